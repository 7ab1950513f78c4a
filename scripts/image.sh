#!/usr/bin/env bash
# Builds the sandbox container image (Containerfile) with buildah from the
# static linux binary of a release build, and writes it twice:
#
#   dist/bnpl-sandbox_VERSION_linux_ARCH.oci.tar     OCI archive (skopeo copy
#                                                    oci-archive:FILE docker://...)
#   dist/bnpl-sandbox_VERSION_linux_ARCH.docker.tar  docker archive (docker load,
#                                                    podman load)
#
# The OCI image format has no HEALTHCHECK: only the docker archive (and an
# image pushed with --format v2s2) keeps the one the Containerfile sets.
#
# Usage: scripts/image.sh [--arch amd64|arm64] [--binary PATH --version V]
#   Without --binary, the binary and version come from dist/ as
#   `goreleaser release --snapshot --clean` (or a release) left it.
# The image is also left in buildah's local storage as
# localhost/bnpl-sandbox:VERSION (vfs driver, chroot isolation: this needs no
# daemon and works as root in a container without overlay mounts).
set -euo pipefail
cd "$(dirname "$0")/.."

arch=amd64 binary="" version="" revision=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arch=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$arch" in amd64|arm64) ;; *) echo "image.sh: --arch must be amd64 or arm64, got $arch" >&2; exit 2 ;; esac

if [ -z "$binary" ]; then
  [ -f dist/metadata.json ] || { echo "image.sh: no dist/metadata.json: run goreleaser release --snapshot --clean first, or give --binary" >&2; exit 2; }
  binary=$(ls dist/bnpl_linux_"$arch"*/bnpl 2>/dev/null | head -n 1)
  [ -n "$binary" ] || { echo "image.sh: no linux/$arch binary under dist/" >&2; exit 2; }
  version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
  revision=$(sed -n 's/.*"commit":"\([^"]*\)".*/\1/p' dist/metadata.json)
fi
[ -n "$version" ] || { echo "image.sh: --version is needed with --binary" >&2; exit 2; }
[ -n "$revision" ] || revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
if ! file_out=$(head -c 4 "$binary" | od -An -c | tr -d ' \n') || [ "$file_out" != "177ELF" ]; then
  echo "image.sh: $binary is not a linux binary" >&2; exit 2
fi

ctx=$(mktemp -d)
trap 'rm -rf "$ctx"' EXIT
install -m 0755 "$binary" "$ctx/bnpl"
mkdir -p "$ctx/rootfs/data" "$ctx/rootfs/tmp"
chmod 0755 "$ctx/rootfs/data"
chmod 1777 "$ctx/rootfs/tmp"

tag="localhost/bnpl-sandbox:$version"
out="dist/bnpl-sandbox_${version}_linux_${arch}.oci.tar"
mkdir -p dist
buildah() { command buildah --storage-driver vfs "$@"; }
buildah bud --quiet --isolation chroot --format docker --platform "linux/$arch" \
  --build-arg VERSION="$version" --build-arg REVISION="$revision" \
  -t "$tag" -f Containerfile "$ctx" >/dev/null
docker_out="dist/bnpl-sandbox_${version}_linux_${arch}.docker.tar"
rm -f "$out" "$docker_out"
buildah push --quiet "$tag" "oci-archive:$out:$tag"
buildah push --quiet --format v2s2 "$tag" "docker-archive:$docker_out:$tag"
echo "$out"
echo "$docker_out"
