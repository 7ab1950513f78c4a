#!/usr/bin/env bash
# Builds the sandbox container image (Containerfile) with buildah from the
# static linux binaries of a release build, for linux/amd64 and
# linux/arm64, under one manifest list:
#
#   dist/bnpl-sandbox_VERSION.oci.tar                OCI archive of the
#                                                    manifest list and both
#                                                    images, Docker's format
#                                                    (skopeo copy --all
#                                                    oci-archive:FILE docker://...)
#   dist/bnpl-sandbox_VERSION_linux_ARCH.docker.tar  each image alone, as a
#                                                    docker archive (docker load,
#                                                    podman load)
#
# The binaries are cross-compiled (goreleaser) and the Containerfile runs
# nothing inside the image (FROM scratch, COPY only), so the arm64 image is
# built on an amd64 machine without emulation. The images and the list are
# in Docker's format (a Docker manifest list, v2s2 manifests), held in an
# OCI archive: the OCI image format has no HEALTHCHECK, Docker's keeps it in
# each image's config, so the health check travels with the image wherever
# `skopeo copy --all` pushes it (scripts/image-test.sh pushes it to a
# registry and reads it back).
#
# Usage: scripts/image.sh [--arch amd64|arm64|all] [--binary PATH --version V]
#   Without --binary, the binaries and version come from dist/ as
#   `goreleaser release --snapshot --clean` (or a release) left it, and
#   --arch all (the default) builds both. --binary builds one --arch.
# The images stay in buildah's local storage as
# localhost/bnpl-sandbox:VERSION-ARCH, the list as localhost/bnpl-sandbox:VERSION
# (vfs driver, chroot isolation: this needs no daemon and works as root in a
# container without overlay mounts).
set -euo pipefail
cd "$(dirname "$0")/.."

arches=all binary="" version="" revision=""
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) arches=$2; shift 2 ;;
    --binary) binary=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "image.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$arches" in
  all) arches="amd64 arm64" ;;
  amd64|arm64) ;;
  *) echo "image.sh: --arch must be amd64, arm64 or all, got $arches" >&2; exit 2 ;;
esac
if [ -n "$binary" ] && [ "$arches" = "amd64 arm64" ]; then
  echo "image.sh: --binary builds one architecture: give --arch amd64 or arm64" >&2; exit 2
fi

if [ -z "$binary" ]; then
  [ -f dist/metadata.json ] || { echo "image.sh: no dist/metadata.json: run goreleaser release --snapshot --clean first, or give --binary" >&2; exit 2; }
  version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
  revision=$(sed -n 's/.*"commit":"\([^"]*\)".*/\1/p' dist/metadata.json)
fi
[ -n "$version" ] || { echo "image.sh: --version is needed with --binary" >&2; exit 2; }
[ -n "$revision" ] || revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)

# elf_machine is the ELF e_machine of a binary: 62 for x86-64, 183 for
# aarch64; "" when it is not an ELF file.
elf_machine() {
  [ "$(head -c 4 "$1" | od -An -c | tr -d ' \n')" = 177ELF ] || return 0
  od -An -t u2 -j 18 -N 2 "$1" | tr -d ' '
}

buildah() { command buildah --storage-driver vfs "$@"; }
list="localhost/bnpl-sandbox:$version"
mkdir -p dist
buildah manifest rm "$list" >/dev/null 2>&1 || buildah rmi "$list" >/dev/null 2>&1 || true
buildah manifest create "$list" >/dev/null

for arch in $arches; do
  bin=$binary
  if [ -z "$bin" ]; then
    bin=$(ls dist/bnpl_linux_"$arch"*/bnpl 2>/dev/null | head -n 1)
    [ -n "$bin" ] || { echo "image.sh: no linux/$arch binary under dist/" >&2; exit 2; }
  fi
  want=62; [ "$arch" = arm64 ] && want=183
  [ "$(elf_machine "$bin")" = "$want" ] || { echo "image.sh: $bin is not a linux/$arch binary" >&2; exit 2; }

  ctx=$(mktemp -d)
  install -m 0755 "$bin" "$ctx/bnpl"
  mkdir -p "$ctx/rootfs/data" "$ctx/rootfs/tmp"
  chmod 0755 "$ctx/rootfs/data"
  chmod 1777 "$ctx/rootfs/tmp"
  tag="$list-$arch"
  buildah bud --quiet --isolation chroot --format docker --platform "linux/$arch" \
    --build-arg VERSION="$version" --build-arg REVISION="$revision" \
    -t "$tag" -f Containerfile "$ctx" >/dev/null
  rm -rf "$ctx"
  buildah manifest add --os linux --arch "$arch" "$list" "$tag" >/dev/null
  docker_out="dist/bnpl-sandbox_${version}_linux_${arch}.docker.tar"
  rm -f "$docker_out"
  # Inside the archive the image is named as the list is, so that a load
  # gives localhost/bnpl-sandbox:VERSION for the machine's architecture.
  buildah push --quiet --format v2s2 "$tag" "docker-archive:$docker_out:$list"
  echo "$docker_out"
done

out="dist/bnpl-sandbox_${version}.oci.tar"
rm -f "$out"
buildah manifest push --quiet --all --format v2s2 "$list" "oci-archive:$out:$list"
echo "$out"
