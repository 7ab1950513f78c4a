#!/usr/bin/env bash
# Runs the sandbox image that scripts/image.sh wrote to dist/ as users' CI
# would, with podman:
#   - the manifest list holds linux/amd64 and linux/arm64, each with its
#     labels, user, ports and volume, and the arm64 image's binary is an
#     aarch64 one;
#   - the amd64 docker archive loads, runs with its ports published on
#     loopback, passes its HEALTHCHECK (the binary itself), runs as 65532,
#     logs the URLs a client uses and warns about remote control naming the
#     variable the image sets, and `bnpl smoke` from the host passes with
#     its money steps;
#   - pushed with docs/ci.md's command (skopeo copy --all) to a registry
#     (Debian's docker-registry, on loopback) and pulled back, each image
#     keeps its health check, and the pulled one passes it;
#   - every container recipe of docs/ci.md, as written (scripts/recipe-run.py):
#     the GitHub service container with the job on the runner, the job in a
#     container reaching the sandbox by its name (both by podman, as
#     GitHub's runner would), GitLab (as its runner runs a job), compose
#     (by podman-compose itself);
#   - a ready file where uid 65532 may not write: serve and wait fail at once;
#   - a /data bind-mounted from a root-owned host directory stops the
#     container with exit 12 saying what to do, and the chown it names
#     makes it start;
#   - a seed file and a state volume: a restart keeps the state and says it
#     skipped the seed.
# It prints the figures docs/benchmarks.md quotes: image size, and time
# from `podman run` to healthy.
set -euo pipefail
cd "$(dirname "$0")/.."
fail() { echo "image test: $*" >&2; exit 1; }
ok() { echo "  ok  $*"; }

version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' dist/metadata.json)
commit=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["commit"])' dist/metadata.json)
archive="dist/bnpl-sandbox_${version}_linux_amd64.docker.tar"
oci="dist/bnpl-sandbox_${version}.oci.tar"
[ -f "$archive" ] && [ -f "$oci" ] || fail "no image archives for $version in dist/: run scripts/image.sh"
podman() { command podman --storage-driver vfs --runtime runc "$@"; }
limits=(--ulimit nofile=1024:1024 --ulimit nproc=1024:1024)
work=$(mktemp -d)
containers=()
registry_pid=""
cleanup() {
  [ -z "$registry_pid" ] || kill "$registry_pid" 2>/dev/null || true
  for c in "${containers[@]}"; do podman rm -f -v "$c" >/dev/null 2>&1 || true; done
  podman volume rm -f "bnpl-image-test-$$" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
tar -xzf "dist/bnpl_${version}_linux_amd64.tar.gz" -C "$work" bnpl
bnpl="$work/bnpl"
free_ports() {
  python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))'
}
healthy() { # CONTAINER: the image's own HEALTHCHECK, run by podman, until it passes
  for _ in $(seq 1 300); do
    podman healthcheck run "$1" >/dev/null 2>&1 && return 0
    [ "$(podman inspect --format '{{.State.Status}}' "$1" 2>/dev/null)" = exited ] && return 1
    sleep 0.1
  done
  return 1
}
start=$(date +%s)

# The manifest list, and each image's settings.
skopeo inspect --raw "oci-archive:$oci" > "$work/index.json"
python3 - "$work/index.json" <<'PY' || fail "$oci is not a manifest list of linux/amd64 and linux/arm64"
import json, sys
idx = json.load(open(sys.argv[1]))
# Docker's format: the OCI image format has no HEALTHCHECK.
assert idx.get("mediaType") == "application/vnd.docker.distribution.manifest.list.v2+json", idx.get("mediaType")
assert all(m["mediaType"] == "application/vnd.docker.distribution.manifest.v2+json" for m in idx["manifests"]), idx
plats = sorted((m["platform"]["os"], m["platform"]["architecture"]) for m in idx["manifests"])
assert plats == [("linux", "amd64"), ("linux", "arm64")], plats
PY
for arch in amd64 arm64; do
  skopeo --override-os linux --override-arch "$arch" inspect --raw --config "oci-archive:$oci" > "$work/config-$arch.json"
  python3 - "$work/config-$arch.json" "$version" "$commit" "$arch" <<'PY' || fail "labels or settings of the $arch image in $oci"
import json, sys
doc = json.load(open(sys.argv[1]))
c = doc["config"]
labels = c.get("Labels", {})
want = {"org.opencontainers.image.version": sys.argv[2], "org.opencontainers.image.revision": sys.argv[3],
        "org.opencontainers.image.licenses": "Apache-2.0", "org.opencontainers.image.source": "https://github.com/bnpl-cli/bnpl"}
for k, v in want.items():
    assert labels.get(k) == v, (k, labels.get(k), v)
assert doc["architecture"] == sys.argv[4], doc["architecture"]
assert c["User"] == "65532:65532", c["User"]
assert set(c["ExposedPorts"]) == {"8700/tcp", "8701/tcp"}, c["ExposedPorts"]
assert "/data" in c["Volumes"], c.get("Volumes")
hc = c.get("Healthcheck") or {}
assert hc.get("Test", [])[:4] == ["CMD", "/usr/bin/bnpl", "sandbox", "wait"], hc
PY
done
# The arm64 image's binary is an aarch64 one (ELF machine 183).
skopeo --override-os linux --override-arch arm64 copy -q "oci-archive:$oci" "dir:$work/arm64" >/dev/null
machine=""
for layer in "$work"/arm64/*; do
  grep -qx 'usr/bin/bnpl' <<<"$(tar -tzf "$layer" 2>/dev/null)" || continue # a here-string: under pipefail, tar dies of SIGPIPE when grep stops at its match
  tar -xzf "$layer" -C "$work/arm64" usr/bin/bnpl
  machine=$(od -An -t u2 -j 18 -N 2 "$work/arm64/usr/bin/bnpl" | tr -d ' ')
done
[ "$machine" = 183 ] || fail "the arm64 image's /usr/bin/bnpl is not an aarch64 binary (ELF machine ${machine:-none})"
ok "$oci: Docker manifest list of linux/amd64 and linux/arm64 (aarch64 binary); labels, user 65532, ports 8700 8701, volume /data, the health check each"

# Pushed to a registry with the documented command, pulled back: the
# health check travels. The registry is Debian's docker-registry, on
# loopback, its storage and configuration in $work, stopped at the end.
reg_port=$(free_ports | cut -d' ' -f1)
mkdir -p "$work/registry"
printf 'version: 0.1\nlog: {level: error, accesslog: {disabled: true}}\nstorage: {filesystem: {rootdirectory: %s}}\nhttp: {addr: "127.0.0.1:%s"}\n' \
  "$work/registry/storage" "$reg_port" > "$work/registry/config.yml"
docker-registry serve "$work/registry/config.yml" > "$work/registry/log" 2>&1 &
registry_pid=$!
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$reg_port/v2/" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "http://127.0.0.1:$reg_port/v2/" >/dev/null || fail "docker-registry did not start: $(cat "$work/registry/log")"
pushed="127.0.0.1:$reg_port/bnpl-sandbox:$version"
# docs/ci.md's command; --dest-tls-verify=false for this registry alone,
# which serves plain http on loopback.
skopeo copy -q --all --dest-tls-verify=false "oci-archive:$oci" "docker://$pushed" >/dev/null
for arch in amd64 arm64; do
  skopeo --override-os linux --override-arch "$arch" inspect --raw --config --tls-verify=false "docker://$pushed" > "$work/pushed-$arch.json"
  python3 -c 'import json,sys; hc=json.load(open(sys.argv[1]))["config"].get("Healthcheck") or {}; assert hc.get("Test", [])[:4] == ["CMD", "/usr/bin/bnpl", "sandbox", "wait"], hc' "$work/pushed-$arch.json" \
    || fail "the $arch image pushed to a registry has no health check: $(cat "$work/pushed-$arch.json")"
done
podman pull -q --tls-verify=false "$pushed" >/dev/null
pulled_hc=$(podman image inspect --format '{{json .Config.Healthcheck.Test}}' "$pushed")
case "$pulled_hc" in
  '["CMD","/usr/bin/bnpl","sandbox","wait",'*) ;;
  *) fail "the image pulled from the registry has the health check $pulled_hc" ;;
esac
cid=$(podman run -d --health-interval disable "${limits[@]}" -e BNPL_SANDBOX_STATE=:memory: "$pushed" 2>/dev/null)
containers+=("$cid")
healthy "$cid" || { podman logs "$cid" >&2 || true; fail "the pulled image's health check never passed"; }
podman rm -f -v "$cid" >/dev/null 2>&1
podman rmi -f "$pushed" >/dev/null 2>&1 || true
kill "$registry_pid"; wait "$registry_pid" 2>/dev/null || true; registry_pid=""
ok "skopeo copy --all to a registry (docker-registry $(dpkg-query -W -f '${Version}' docker-registry 2>/dev/null)): both images keep the health check; pulled back by podman, it passes"

podman load -q -i "$archive" >/dev/null
image="localhost/bnpl-sandbox:$version"
size=$(podman image inspect --format '{{.Size}}' "$image")
[ "$(podman image inspect --format '{{len .Config.Healthcheck.Test}}' "$image")" -gt 0 ] || fail "the image has no HEALTHCHECK"
ok "image $image: $size bytes ($(python3 -c "print(round($size/1048576, 1))") MiB) uncompressed"

# Published on loopback, smoke from the host.
read -r ae sa <<< "$(free_ports)"
t0=$(date +%s%N)
cid=$(podman run -d --health-interval disable "${limits[@]}" \
  -e BNPL_SANDBOX_STATE=:memory: -p "127.0.0.1:$ae:8700" -p "127.0.0.1:$sa:8701" "$image" 2>/dev/null)
containers+=("$cid")
healthy "$cid" || { podman logs "$cid" >&2 || true; fail "the container's HEALTHCHECK never passed"; }
t1=$(date +%s%N)
ok "healthy (its HEALTHCHECK, bnpl sandbox wait) $(( (t1 - t0) / 1000000 )) ms after podman run"
[ "$(podman top "$cid" user | tail -n 1 | tr -d ' ')" = 65532 ] || fail "the sandbox runs as $(podman top "$cid" user | tail -n 1)"
"$bnpl" sandbox wait --sandbox-url "http://127.0.0.1:$ae" --timeout 30s -o json > "$work/health"
grep -q '"state":"memory"' "$work/health" || fail "health from the host: $(cat "$work/health")"
env -i PATH="$PATH" HOME="$work" CI=true BNPL_BASE_URL="http://127.0.0.1:$ae" \
  BNPL_SECRET_KEY=sk_test_ae_sandbox BNPL_MERCHANT_CODE=ae-sandbox \
  "$bnpl" smoke > "$work/smoke" 2>&1 || { cat "$work/smoke"; podman logs "$cid" >&2; fail "bnpl smoke against the container failed"; }
grep -q "capture rest.*passed" "$work/smoke" || fail "smoke ran no money steps: $(cat "$work/smoke")"
ok "bnpl smoke from the host against the container: $(tail -n 1 "$work/smoke")"
podman logs "$cid" > "$work/log" 2>&1
grep -q '^  ae (UAE, Kuwait)  http://bnpl-sandbox:8700$' "$work/log" || fail "the log does not show the URL a client uses: $(cat "$work/log")"
grep -q '^  listening on      0.0.0.0:8700  0.0.0.0:8701 (every address)$' "$work/log" || fail "the log does not show the addresses: $(cat "$work/log")"
grep -q '^  from the host     http://localhost:HOSTPORT for -p 127.0.0.1:HOSTPORT:8700 (ae), ' "$work/log" || fail "the log does not say how the host reaches it: $(cat "$work/log")"
grep -q "^  links             follow each request's Host (ae, sa): no public URL set" "$work/log" || fail "the log does not say no public URL is set: $(cat "$work/log")"
grep -q 'warning: BNPL_SANDBOX_ALLOW_REMOTE_CONTROL=1: any client' "$work/log" || fail "the remote-control warning does not name the variable the image sets: $(cat "$work/log")"
! grep -q -- '--open-control' "$work/log" || fail "the log names --open-control, which the image does not use"
ok "its log: the URL other containers use (http://bnpl-sandbox:8700), the addresses, how the host reaches them (-p), no public URL set, the warning naming BNPL_SANDBOX_ALLOW_REMOTE_CONTROL=1"

# A ready file where user 65532 cannot write (/): serve stops before it
# says it is running (exit 2), and a wait for it fails at once.
if podman run --rm --health-interval disable "${limits[@]}" "$image" sandbox serve --state :memory: --ready-file /bnpl-sandbox.json > "$work/ready.log" 2>&1; then
  fail "serve ran with a ready file it cannot write"
else
  rc=$?
fi
[ "$rc" = 2 ] && grep -q -- '--ready-file /bnpl-sandbox.json: cannot write in /: permission denied' "$work/ready.log" && ! grep -q 'is running' "$work/ready.log" \
  || fail "serve --ready-file in / as 65532: exit $rc: $(cat "$work/ready.log")"
if podman run --rm --health-interval disable "${limits[@]}" "$image" sandbox wait --ready-file /bnpl-sandbox.json --timeout 60s > "$work/ready.log" 2>&1; then
  fail "wait --ready-file in / as 65532 passed"
else
  rc=$?
fi
[ "$rc" = 2 ] && grep -q 'this user may not write in /' "$work/ready.log" || fail "wait --ready-file in / as 65532: exit $rc: $(cat "$work/ready.log")"
ok "as uid 65532, a ready file in /: serve exits 2 before it says it is running, wait fails at once (exit 2)"
podman rm -f -v "$cid" >/dev/null 2>&1

# docs/ci.md's recipes, as written.
for recipe in github-service github-container-job gitlab compose; do
  scripts/doc-recipe.py docs/ci.md "$recipe" > "$work/$recipe.yml"
  echo "  --  docs/ci.md recipe $recipe"
  python3 scripts/recipe-run.py "$recipe" "$work/$recipe.yml" --image "$image" --bnpl "$work" \
    || fail "the $recipe recipe of docs/ci.md failed"
  ok "recipe $recipe: bnpl smoke passed with its money steps"
done

# A /data bind-mounted from a directory of root's: a clear refusal, then the
# chown it names.
mkdir "$work/data"
chmod 0755 "$work/data"
if podman run --rm --health-interval disable "${limits[@]}" -v "$work/data:/data" "$image" > "$work/bind.log" 2>&1; then
  fail "the sandbox served a /data it cannot write"
else
  rc=$?
fi
[ "$rc" = 12 ] || fail "a /data it cannot write: exit $rc, want 12: $(cat "$work/bind.log")"
grep -q '^error: sandbox state /data: not writable by uid 65532, the user serve runs as (it belongs to uid 0, gid 0)$' "$work/bind.log" || fail "bind mount: $(cat "$work/bind.log")"
grep -q 'chown 65532:65532 the directory mounted there' "$work/bind.log" || fail "bind mount hint: $(cat "$work/bind.log")"
grep -q -- '--user 0:0' "$work/bind.log" || fail "bind mount hint lacks --user: $(cat "$work/bind.log")"
chown 65532:65532 "$work/data"
cid=$(podman run -d --health-interval disable "${limits[@]}" -v "$work/data:/data" "$image" 2>/dev/null)
containers+=("$cid")
healthy "$cid" || { podman logs "$cid" >&2; fail "the sandbox did not start on a /data given to 65532"; }
[ -f "$work/data/sandbox.db" ] || fail "no state in the bind-mounted /data"
podman rm -f -v "$cid" >/dev/null 2>&1
ok "a root-owned /data: exit 12 naming uid 65532, chown 65532:65532 and --user; after the chown it serves"

# A seed file and a state volume: the restart keeps the state.
podman volume create "bnpl-image-test-$$" >/dev/null
cp testdata/fixtures/every-state.yaml "$work/seed.yaml"
chmod 0644 "$work/seed.yaml"
read -r ae sa <<< "$(free_ports)"
cid=$(podman run -d --health-interval disable "${limits[@]}" -v "bnpl-image-test-$$:/data" \
  -v "$work/seed.yaml:/seed.yaml:ro" -p "127.0.0.1:$ae:8700" -p "127.0.0.1:$sa:8701" \
  "$image" sandbox serve --seed-file /seed.yaml 2>/dev/null)
containers+=("$cid")
healthy "$cid" || { podman logs "$cid" >&2; fail "the seeded sandbox did not start"; }
podman stop -t 10 "$cid" >/dev/null 2>&1
# SIGTERM stops serve cleanly: exit 0, not 137 after the stop's time-out.
[ "$(podman inspect --format '{{.State.ExitCode}}' "$cid")" = 0 ] || fail "podman stop: the sandbox exited $(podman inspect --format '{{.State.ExitCode}}' "$cid"), not 0"
# (podman says it cannot reach systemd for health-check timers: the test
# runs the check itself.)
podman start "$cid" >/dev/null 2>&1
healthy "$cid" || { podman logs "$cid" >&2; fail "the seeded sandbox did not restart on its volume"; }
podman logs "$cid" > "$work/seed.log" 2>&1
grep -q 'seeded 20 payment(s) and 1 webhook(s) from /seed.yaml' "$work/seed.log" || fail "first start: $(cat "$work/seed.log")"
grep -q 'the state holds 20 payment(s) and 1 webhook(s) already: --seed-file /seed.yaml skipped' "$work/seed.log" || fail "restart: $(cat "$work/seed.log")"
env -i PATH="$PATH" HOME="$work" "$bnpl" sandbox export --sandbox-url "http://127.0.0.1:$ae" --file "$work/kept.yaml" 2> "$work/export.log" || fail "export: $(cat "$work/export.log")"
grep -q 'wrote 20 payment(s)' "$work/export.log" || fail "after the restart: $(cat "$work/export.log")"
ok "a seed file and a volume: the restart keeps the 20 payments and says the seed was skipped"
echo "image test passed in $(( $(date +%s) - start ))s"
