#!/usr/bin/env bash
# Runs the sandbox image that scripts/image.sh wrote to dist/ as a user's CI
# would: loads the docker archive into podman, runs it with its ports
# published on loopback, waits for its HEALTHCHECK (the binary itself), and
# runs `bnpl smoke` (money steps included) against it from the host. Also
# checks its labels, user and size, and prints the figures docs/benchmarks.md
# quotes: image size, and time from `podman run` to healthy.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "image test: $*" >&2; exit 1; }

version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' dist/metadata.json)
commit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["commit"])' dist/metadata.json)
archive="dist/bnpl-sandbox_${version}_linux_amd64.docker.tar"
oci="dist/bnpl-sandbox_${version}_linux_amd64.oci.tar"
[ -f "$archive" ] && [ -f "$oci" ] || fail "no image archives for $version in dist/: run scripts/image.sh"
podman() { command podman --storage-driver vfs --runtime runc "$@"; }
work=$(mktemp -d)
cid=""
cleanup() {
  [ -n "$cid" ] && podman rm -f "$cid" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
tar -xzf "dist/bnpl_${version}_linux_amd64.tar.gz" -C "$work" bnpl
bnpl="$work/bnpl"

# The OCI archive's labels.
skopeo inspect --config "oci-archive:$oci" > "$work/config.json"
python3 - "$work/config.json" "$version" "$commit" <<'PY' || fail "labels or settings of $oci"
import json, sys
c = json.load(open(sys.argv[1]))["config"]
labels = c.get("Labels", {})
want = {"org.opencontainers.image.version": sys.argv[2], "org.opencontainers.image.revision": sys.argv[3],
        "org.opencontainers.image.licenses": "Apache-2.0", "org.opencontainers.image.source": "https://github.com/bnpl-cli/bnpl"}
for k, v in want.items():
    assert labels.get(k) == v, (k, labels.get(k), v)
assert c["User"] == "65532:65532", c["User"]
assert set(c["ExposedPorts"]) == {"8700/tcp", "8701/tcp"}, c["ExposedPorts"]
assert "/data" in c["Volumes"], c.get("Volumes")
PY
echo "  ok  $oci: OCI labels (source, version, revision, licence), user 65532, ports 8700 8701, volume /data"

podman load -q -i "$archive" >/dev/null
image="localhost/bnpl-sandbox:$version"
size=$(podman image inspect --format '{{.Size}}' "$image")
[ "$(podman image inspect --format '{{len .Config.Healthcheck.Test}}' "$image")" -gt 0 ] || fail "the image has no HEALTHCHECK"
echo "  ok  image $image: $size bytes ($(python3 -c "print(round($size/1048576, 1))") MiB) uncompressed"

ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r ae sa <<< "$ports"
start=$(date +%s%N)
cid=$(podman run -d --health-interval disable --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 \
  -e BNPL_SANDBOX_STATE=:memory: -p "127.0.0.1:$ae:8700" -p "127.0.0.1:$sa:8701" "$image" 2>/dev/null)
# The image's own HEALTHCHECK, run by podman, until it passes.
healthy=""
for _ in $(seq 1 300); do
  if podman healthcheck run "$cid" >/dev/null 2>&1; then healthy=1; break; fi
  sleep 0.1
done
end=$(date +%s%N)
[ -n "$healthy" ] || { podman logs "$cid" >&2 || true; fail "the container's HEALTHCHECK never passed"; }
echo "  ok  healthy (its HEALTHCHECK, bnpl sandbox wait) $(( (end - start) / 1000000 )) ms after podman run"
[ "$(podman top "$cid" user | tail -n 1 | tr -d ' ')" = 65532 ] || fail "the sandbox runs as $(podman top "$cid" user | tail -n 1)"
"$bnpl" sandbox wait --sandbox-url "http://127.0.0.1:$ae" --timeout 30s -o json > "$work/health"
grep -q '"state":"memory"' "$work/health" || fail "health from the host: $(cat "$work/health")"

env -i PATH="$PATH" HOME="$work" CI=true BNPL_BASE_URL="http://127.0.0.1:$ae" \
  BNPL_SECRET_KEY=sk_test_ae_sandbox BNPL_MERCHANT_CODE=ae-sandbox \
  "$bnpl" smoke > "$work/smoke" 2>&1 || { cat "$work/smoke"; podman logs "$cid" >&2; fail "bnpl smoke against the container failed"; }
grep -q "capture rest.*passed" "$work/smoke" || fail "smoke ran no money steps: $(cat "$work/smoke")"
echo "  ok  bnpl smoke from the host against the container: $(tail -n 1 "$work/smoke")"
podman logs "$cid" 2>&1 | grep -q 'warning: --open-control' || fail "the container did not warn about remote control"
echo "image test passed"
