#!/usr/bin/env bash
# Tests the GitHub Action (action.yml and scripts/action-install.sh) against
# the snapshot release in dist/, served on loopback as GitHub serves
# releases (BASE/download/vVERSION/FILE and BASE/latest/download/FILE): no
# network.
#
#   - the install script alone: a pinned version and latest are installed
#     after checking the archive against checksums.txt; an archive that
#     does not match is refused and nothing installed; a malformed version
#     is refused before any download;
#   - docs/ci.md's action job, run step by step by scripts/action-run.py
#     (what `act` does, without the Docker it needs): on a Linux runner, on
#     a macOS runner (ARM64, a tool cache whose path has spaces, no
#     sha256sum) and on a Windows runner (X64, drive-letter paths with
#     spaces, Git Bash's cygpath, bnpl.exe), the last two simulated on Linux
#     with a release whose darwin and windows archives hold the linux
#     binary (on Windows behind a bnpl.exe that resolves drive paths as
#     Windows does). Not exercised there: pwsh (the steps run in bash, as
#     the action's do), Git Bash's own conversion of arguments, the
#     taskkill fallback of stop ($! is the real pid here), and
#     GITHUB_ACTION_PATH in its Windows form. Each: bnpl smoke passes with its money steps against the
#     action's sandbox, your application's step (a stand-in for make) sees
#     the exported variables, every output is set, the stop step stops the
#     sandbox; run twice, the second run downloads nothing (the tool cache);
#   - a job that fails after the sandbox started: the stop step prints the
#     sandbox's log and stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
dist=$(cd "${1:-dist}" && pwd)
fail() { echo "action test: $*" >&2; exit 1; }
ok() { echo "  ok  $*"; }
start=$(date +%s)

version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$dist/metadata.json")
work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  # Sandboxes a failed run left behind.
  for f in "$work"/*/_temp/bnpl-sandbox.pid "$work"/*/drive-d/a/_temp/bnpl-sandbox.pid "$work"/*/Users/runner/work/_temp/bnpl-sandbox.pid; do
    [ -f "$f" ] && kill "$(cut -d' ' -f1 "$f")" 2>/dev/null || true
  done
  rm -rf "$work"
}
trap cleanup EXIT

# The release as GitHub lays it out; a tampered copy; and a copy for the
# simulated runners, whose darwin and windows archives hold the linux
# binary (bnpl.exe in the zips), with checksums.txt to match.
mkdir -p "$work/site/download" "$work/site/latest" "$work/bad/download/v$version" "$work/sim/download/v$version"
ln -s "$dist" "$work/site/download/v$version"
ln -s "$dist" "$work/site/latest/download"
cp "$dist/checksums.txt" "$work/bad/download/v$version/"
cp "$dist/bnpl_${version}_linux_amd64.tar.gz" "$work/bad/download/v$version/"
printf 'tampered' >> "$work/bad/download/v$version/bnpl_${version}_linux_amd64.tar.gz"
sim="$work/sim/download/v$version"
mkdir -p "$work/linux-bin"
tar -xzf "$dist/bnpl_${version}_linux_amd64.tar.gz" -C "$work/linux-bin" bnpl
# The Windows runner's bnpl.exe: a native program takes D:\a\_temp\x as
# that drive's file, where the linux binary would take it for a relative
# name (and write a file of that literal name). So the simulated bnpl.exe
# turns X:\... arguments into the drive's directory here, as Windows
# resolves them, and runs the linux binary; a path the action mishandles
# (a relative name with backslashes, a drive path given half-converted)
# then leaves a file whose name holds a backslash or a colon, which the
# Windows run checks for.
cat > "$work/bnpl-exe" <<EOF
#!/usr/bin/env bash
args=()
for a in "\$@"; do
  if [[ "\$a" =~ ^([A-Za-z]):\\\\(.*)\$ ]]; then
    rest=\${BASH_REMATCH[2]}
    a="$work/windows/drive-\${BASH_REMATCH[1],,}/\${rest//\\\\//}"
  fi
  args+=("\$a")
done
exec "$work/linux-bin/bnpl" "\${args[@]}"
EOF
chmod +x "$work/bnpl-exe"
for arch in amd64 arm64; do
  mkdir -p "$work/pack-$arch"
  cp "$work/linux-bin/bnpl" "$work/pack-$arch/bnpl"
  tar -czf "$sim/bnpl_${version}_darwin_${arch}.tar.gz" -C "$work/pack-$arch" bnpl
  cp "$work/bnpl-exe" "$work/pack-$arch/bnpl.exe"
  ( cd "$work/pack-$arch" && python3 -c 'import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z: z.write("bnpl.exe")' "$sim/bnpl_${version}_windows_${arch}.zip" )
done
( cd "$sim" && sha256sum bnpl_* > checksums.txt )

python3 - "$work" "$work/requests.log" > "$work/port" <<'PY' &
import functools, http.server, sys
root, log = sys.argv[1], sys.argv[2]
class Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, fmt, *args):
        with open(log, "a") as f:
            f.write(self.path + "\n")
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=root))
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
[ -n "$port" ] || fail "the file server did not start"
base="http://127.0.0.1:$port"
requests() { [ -f "$work/requests.log" ] && wc -l < "$work/requests.log" || echo 0; }

# ---- The install script alone ----
run() { # ENV... : the script as a Linux runner runs it
  env -i PATH="$PATH" HOME="$work/home" RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work" \
    GITHUB_PATH="$work/github_path" GITHUB_ENV="$work/github_env" GITHUB_OUTPUT="$work/github_output" "$@"
}
for v in "v$version" latest; do
  rm -rf "$work/cache" "$work/github_path" "$work/github_output"
  run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION="$v" RUNNER_TOOL_CACHE="$work/cache" \
    scripts/action-install.sh install > "$work/out" 2>&1 || { cat "$work/out"; fail "install of $v failed"; }
  grep -q "bnpl_${version}_linux_amd64.tar.gz matches checksums.txt" "$work/out" || fail "install of $v did not check the archive: $(cat "$work/out")"
  [ "$(cat "$work/github_path")" = "$work/cache/bnpl/$version/x64/bin" ] || fail "GITHUB_PATH: $(cat "$work/github_path")"
  grep -qx "version=$version" "$work/github_output" || fail "output version: $(cat "$work/github_output")"
  grep -qx "cache-hit=false" "$work/github_output" || fail "output cache-hit: $(cat "$work/github_output")"
  [ -f "$work/cache/bnpl/$version/x64.complete" ] || fail "no x64.complete marker in the tool cache"
  grep -q "^bnpl $version " <<<"$("$work/cache/bnpl/$version/x64/bin/bnpl" version)" || fail "installed bnpl: $("$work/cache/bnpl/$version/x64/bin/bnpl" version)"
  ok "install $v: checked against checksums.txt, bnpl $version in the tool cache (\$RUNNER_TOOL_CACHE/bnpl/$version/x64)"
done
before=$(requests)
: > "$work/github_output"
run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION="$version" RUNNER_TOOL_CACHE="$work/cache" \
  scripts/action-install.sh install > "$work/out" 2>&1 || { cat "$work/out"; fail "the second install failed"; }
[ "$(requests)" = "$before" ] || fail "the second install of $version downloaded $(( $(requests) - before )) file(s)"
grep -qx "cache-hit=true" "$work/github_output" || fail "second install: $(cat "$work/github_output")"
ok "install $version again: from the tool cache, nothing downloaded, cache-hit=true"

# latest, cached: fresh (resolved less than 24 hours ago), nothing is
# downloaded, not even checksums.txt; once stale, only checksums.txt.
rm -rf "$work/cache-latest"
run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION=latest RUNNER_TOOL_CACHE="$work/cache-latest" \
  scripts/action-install.sh install > "$work/out" 2>&1 || { cat "$work/out"; fail "install of latest failed"; }
[ "$(cat "$work/cache-latest/bnpl/latest")" = "$version" ] || fail "the tool cache does not note what latest was: $(cat "$work/cache-latest/bnpl/latest")"
before=$(requests)
: > "$work/github_output"
run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION=latest RUNNER_TOOL_CACHE="$work/cache-latest" \
  scripts/action-install.sh install > "$work/out" 2>&1 || { cat "$work/out"; fail "the second install of latest failed"; }
[ "$(requests)" = "$before" ] || fail "a cached latest downloaded $(( $(requests) - before )) file(s): $(tail -n $(( $(requests) - before )) "$work/requests.log")"
grep -qx "cache-hit=true" "$work/github_output" || fail "cached latest: $(cat "$work/github_output")"
touch -d '25 hours ago' "$work/cache-latest/bnpl/latest"
before=$(requests)
run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION=latest RUNNER_TOOL_CACHE="$work/cache-latest" \
  scripts/action-install.sh install > "$work/out" 2>&1 || { cat "$work/out"; fail "the install of a stale latest failed"; }
[ "$(tail -n +$(( before + 1 )) "$work/requests.log")" = "/site/latest/download/checksums.txt" ] || fail "a stale latest fetched $(tail -n +$(( before + 1 )) "$work/requests.log")"
ok "latest again within 24 hours: nothing downloaded, cache-hit=true; after 24 hours, checksums.txt alone"

if run BNPL_DOWNLOAD_BASE="$base/bad" BNPL_VERSION="$version" RUNNER_TOOL_CACHE="$work/cache2" \
    scripts/action-install.sh install > "$work/out" 2>&1; then
  fail "a tampered archive was installed"
fi
grep -q "does not match checksums.txt" "$work/out" || fail "tampered archive: $(cat "$work/out")"
[ ! -e "$work/cache2/bnpl/$version/x64/bin/bnpl" ] || fail "a tampered archive left a binary"
ok "an archive that does not match checksums.txt is refused, nothing installed"
before=$(requests)
if run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION='1.0;rm' scripts/action-install.sh install > "$work/out" 2>&1; then
  fail "a malformed version was accepted"
fi
[ "$(requests)" = "$before" ] || fail "a malformed version was downloaded"
ok "a malformed version is refused before any download"

# A port in use: the step fails with serve's words (not JSON) and names the
# action's own input (ae-port: 0), not serve's flag.
busy=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')
python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(1)
print("listening", flush=True); time.sleep(120)' "$busy" > "$work/busy.out" &
busy_pid=$!
for _ in $(seq 1 100); do [ -s "$work/busy.out" ] && break; sleep 0.1; done
mkdir -p "$work/busy-temp"
if run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION="$version" RUNNER_TOOL_CACHE="$work/cache" RUNNER_TEMP="$work/busy-temp" \
    bash -c 'scripts/action-install.sh install >/dev/null && PATH="$(cat "$GITHUB_PATH" | tail -n 1):$PATH" BNPL_AE_PORT='"$busy"' BNPL_SA_PORT=0 scripts/action-install.sh sandbox' > "$work/out" 2>&1; then
  kill "$busy_pid"; fail "the sandbox step passed with its port taken"
fi
kill "$busy_pid" 2>/dev/null || true
grep -q "^::error::bnpl action: the sandbox did not start: bnpl sandbox serve failed: cannot listen on 127.0.0.1:$busy: the address is in use (another program listens on port $busy: give the action ae-port: 0 (and sa-port: 0) for free ports, or another ae-port)\$" "$work/out" \
  || { cat "$work/out"; fail "a port in use: the annotation does not say so in words naming ae-port"; }
! grep '^::error::' "$work/out" | grep -q -e '{"' -e '--ae-addr' || { cat "$work/out"; fail "a port in use: the annotation holds JSON or serve's flag"; }
ok "a port in use: ::error:: in serve's words, naming the action's ae-port: 0"

# ---- docs/ci.md's action job, on each runner ----
# (Its ports are the system's pick here, as ae-port: 0 asks: another
# sandbox on this machine may hold 8700.)
scripts/doc-recipe.py docs/ci.md action-job > "$work/job.yml"
# Your application's tests stand for `make integration-test`: they record
# what the job gave them.
mkdir -p "$work/app-bin"
cat > "$work/app-bin/make" <<'EOF'
#!/usr/bin/env bash
[ "${1:-}" = integration-test ] || { echo "make: only integration-test here" >&2; exit 2; }
env | grep '^BNPL_' | sort > "$APP_RECORD"
# On the Windows runner, while the sandbox runs: is its ready file where
# Windows puts D:\a\_temp\bnpl-sandbox.json, and is any file named with a
# backslash or a colon (a Windows path taken for a relative name)?
if [ -n "${APP_READY:-}" ]; then
  { [ -f "$APP_READY" ] && echo "ready file in place"; find "$APP_ROOT" \( -name '*\\*' -o -name '*:*' \) -print; } > "$APP_RECORD.paths"
fi
bnpl sandbox wait --timeout 10s
EOF
chmod +x "$work/app-bin/make"
# A macOS runner's tools: no sha256sum, shasum instead.
mkdir -p "$work/macos-bin"
for tool in bash sh curl awk cut mkdir rm cp chmod tar gzip cat mktemp touch seq sleep nohup uname env grep sed tr head tail sort wc dirname basename ls kill install python3 od date id; do
  p=$(command -v "$tool" 2>/dev/null || true)
  [ -n "$p" ] && [ "$p" != "$tool" ] && ln -sf "$p" "$work/macos-bin/$tool"
done
sha=$(command -v sha256sum)
printf '#!/bin/sh\n# shasum -a 256 FILE, as macOS has it\n[ "$1" = -a ] && shift 2\nexec %s "$@"\n' "$sha" > "$work/macos-bin/shasum"
chmod +x "$work/macos-bin/shasum"

job() { # NAME OS ARCH SITE [runner args...]: docs/ci.md's job on such a runner
  local name=$1 os=$2 arch=$3 site=$4
  shift 4
  python3 scripts/action-run.py "$work/job.yml" --work "$work/$name" --os "$os" --arch "$arch" \
    --action "bnpl-cli/bnpl@v1=$repo" --input-default "version=$version" --input-default "download-base=$base/$site" \
    --input-default ae-port=0 --input-default sa-port=0 --env "APP_RECORD=$work/$name.app" "$@"
}
check_job() { # NAME OUT: what a run of the job must show
  local name=$1 out=$2
  grep -q '^job succeeded$' "$out" || { cat "$out"; fail "$name: the job failed"; }
  grep -q 'capture rest	passed' "$out" || { cat "$out"; fail "$name: smoke ran no money steps"; }
  grep -Eq '^BNPL_BASE_URL=http://127\.0\.0\.1:[0-9]+$' "$work/$name.app" || fail "$name: the application saw $(cat "$work/$name.app")"
  grep -q "^BNPL_SANDBOX_URL=$(sed -n 's/^BNPL_BASE_URL=//p' "$work/$name.app")\$" "$work/$name.app" || fail "$name: BNPL_SANDBOX_URL is not the base URL: $(cat "$work/$name.app")"
  grep -q '^BNPL_SECRET_KEY=sk_test_ae_sandbox$' "$work/$name.app" || fail "$name: the application got no key"
  grep -q 'bnpl action: sandbox stopped' "$out" || { cat "$out"; fail "$name: the stop step did not stop the sandbox"; }
  # Stopped cleanly (SIGTERM): serve removed its ready file.
  ! ls "$work/$name"/*/bnpl-sandbox.json "$work/$name"/drive-d/a/_temp/bnpl-sandbox.json "$work/$name"/Users/runner/work/_temp/bnpl-sandbox.json >/dev/null 2>&1 \
    || fail "$name: the sandbox's ready file is left: serve did not stop cleanly"
  ! grep -q '::group::bnpl sandbox log' "$out" || fail "$name: the log was printed though the job succeeded"
}
for runner in "linux Linux X64 site" "macos macOS ARM64 sim" "windows Windows X64 sim"; do
  read -r name os arch site <<< "$runner"
  extra=(--env "PATH=$work/app-bin:$PATH")
  [ "$os" = macOS ] && extra=(--env "PATH=$work/app-bin:$work/macos-bin")
  [ "$os" = Windows ] && extra+=(--tool-cache 'C:\hosted tool cache\windows' --env "APP_READY=$work/windows/drive-d/a/_temp/bnpl-sandbox.json" --env "APP_ROOT=$work/windows")
  job "$name" "$os" "$arch" "$site" "${extra[@]}" > "$work/$name.out" 2>&1 || { cat "$work/$name.out"; fail "$name: the job failed"; }
  check_job "$name" "$work/$name.out"
  grep -q 'bnpl action: downloading' "$work/$name.out" || fail "$name: the first run downloaded nothing"
  case "$os" in
    Windows)
      cache="$work/$name/drive-c/hosted tool cache/windows/bnpl/$version/x64"
      [ -x "$cache/bin/bnpl.exe" ] || fail "windows: no bnpl.exe in $cache"
      grep -q "bnpl action: bnpl $version in $work/$name/drive-c/hosted tool cache/windows/bnpl/$version/x64/bin" "$work/$name.out" || fail "windows: $(cat "$work/$name.out")"
      # The runner reads GITHUB_PATH in its own form.
      grep -qxF "C:\hosted tool cache\windows\bnpl\\$version\x64\bin" "$work/$name"/drive-d/a/_temp/_runner_file_commands/github_path_* \
        || fail "windows: GITHUB_PATH holds $(cat "$work/$name"/drive-d/a/_temp/_runner_file_commands/github_path_*)"
      [ "$(cat "$work/$name.app.paths")" = "ready file in place" ] \
        || fail "windows: while the sandbox ran, its ready file was not at D:\a\_temp\bnpl-sandbox.json, or a path was mishandled: $(cat "$work/$name.app.paths")" ;;
    macOS)
      cache="$work/$name/Users/runner/hosted tool cache/bnpl/$version/arm64"
      [ -x "$cache/bin/bnpl" ] || fail "macos: no bnpl in $cache" ;;
  esac
  before=$(requests)
  job "$name" "$os" "$arch" "$site" "${extra[@]}" > "$work/$name.again" 2>&1 || { cat "$work/$name.again"; fail "$name: the second run failed"; }
  check_job "$name" "$work/$name.again"
  [ "$(requests)" = "$before" ] || fail "$name: the second run downloaded $(( $(requests) - before )) file(s)"
  grep -q "is in the tool cache" "$work/$name.again" || fail "$name: the second run did not use the tool cache"
  ok "docs/ci.md's action job on a $os $arch runner: smoke with money steps, the app sees the variables, stopped; again from the tool cache, nothing downloaded"
done

# Every output the action writes is declared, and declared ones are set.
python3 - "$repo/action.yml" "$work"/linux/_temp/_runner_file_commands <<'PY' || fail "the action's outputs and what it writes differ"
import glob, os, re, sys, yaml
declared = set(yaml.safe_load(open(sys.argv[1]))["outputs"])
written = set()
for path in glob.glob(os.path.join(sys.argv[2], "github_output_*")):
    for line in open(path):
        m = re.match(r"([A-Za-z0-9_-]+)=", line)
        if m:
            written.add(m.group(1))
undeclared, unset = written - declared, declared - written
assert not undeclared, "written but not declared: %s" % sorted(undeclared)
assert not unset, "declared but never written: %s" % sorted(unset)
PY
ok "every output the action writes is declared in action.yml, and every declared one is written"

# A job that fails after the sandbox started: its log is printed, it stops.
cat > "$work/failing.yml" <<'EOF'
steps:
  - uses: bnpl-cli/bnpl@v1
    id: bnpl
    with: { sandbox: true, ae-port: "0", sa-port: "0" }
  - run: bnpl api GET /api/v2/payments/no-such-payment
  - uses: bnpl-cli/bnpl@v1
    if: always()
    with:
      stop: true
      job-status: ${{ job.status }}
EOF
if python3 scripts/action-run.py "$work/failing.yml" --work "$work/failing" --action "bnpl-cli/bnpl@v1=$repo" \
    --input-default "version=$version" --input-default "download-base=$base/site" > "$work/failing.out" 2>&1; then
  cat "$work/failing.out"; fail "the failing job succeeded"
fi
grep -q '::group::bnpl sandbox log (job failure)' "$work/failing.out" || { cat "$work/failing.out"; fail "the stop step did not print the log of a failed job"; }
grep -q 'GET /api/v2/payments/no-such-payment' "$work/failing.out" || grep -q 'bnpl sandbox is running' "$work/failing.out" || fail "the printed log is not the sandbox's"
grep -q 'bnpl action: sandbox stopped' "$work/failing.out" || fail "the failing job's sandbox was not stopped"
pid=$(sed -n 's/^sandbox-pid=//p' "$work"/failing/_temp/_runner_file_commands/github_output_* | head -n 1)
[ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null || fail "the sandbox (pid $pid) still runs"
ok "a failed job: the stop step prints the sandbox's log and stops it (ports 0: picked by the system)"
# docs/ci.md's pipeline without a container: the ready-file recipe, as
# written, on this machine.
scripts/doc-recipe.py docs/ci.md shell > "$work/shell.sh"
mkdir -p "$work/shell"
# Off GitHub: no RUNNER_TEMP nor any GITHUB_ variable, the temporary
# directory the system's.
grep -q 'RUNNER_TEMP\|GITHUB_' "$work/shell.sh" && fail "docs/ci.md's shell recipe names a variable only GitHub sets"
( cd "$work/shell" && env -i PATH="$work/linux-bin:$PATH" HOME="$work/shell" CI=true TMPDIR="$work/shell" \
    bash -euo pipefail "$work/shell.sh" ) > "$work/shell.out" 2>&1 || { cat "$work/shell.out"; fail "docs/ci.md's shell recipe failed"; }
ready_file=$(ls "$work"/shell/tmp.*/bnpl-sandbox.json)
pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["pid"])' "$ready_file")
kill "$pid"
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
grep -q 'capture rest	passed' "$work/shell.out" || { cat "$work/shell.out"; fail "the shell recipe's smoke ran no money steps"; }
[ ! -e "$ready_file" ] || fail "the shell recipe's sandbox left its ready file after SIGTERM"
ok "docs/ci.md's shell recipe (free ports, a ready file): smoke with money steps; SIGTERM stops the sandbox cleanly"
# The release workflow moves the major tag the recipes use (@v1) to each
# release, and leaves it on a pre-release: its step run as written in a
# clone whose origin is a bare repository here.
python3 - "$repo/.github/workflows/release.yml" > "$work/move-tag.sh" <<'PY'
import sys, yaml
steps = yaml.safe_load(open(sys.argv[1]))["jobs"]["release"]["steps"]
print(next(s["run"] for s in steps if s.get("name") == "Move the major tag to this release"))
PY
git init -q --bare "$work/origin.git"
git init -q "$work/clone"
tag_release() { # TAG: a commit tagged TAG, pushed, then the step as GitHub runs it
  git -C "$work/clone" -c user.name=t -c user.email=t@example.com commit -q --allow-empty -m "$1"
  git -C "$work/clone" tag "$1"
  ( cd "$work/clone" && GITHUB_REF_NAME=$1 GITHUB_SHA=$(git rev-parse HEAD) bash -e "$work/move-tag.sh" ) > "$work/move-tag.out" 2>&1 \
    || { cat "$work/move-tag.out"; fail "the release workflow's tag step failed for $1"; }
}
git -C "$work/clone" remote add origin "$work/origin.git"
tag_release v1.2.0
[ "$(git -C "$work/origin.git" rev-parse v1^{commit})" = "$(git -C "$work/clone" rev-parse v1.2.0^{commit})" ] || fail "v1 does not name v1.2.0"
tag_release v1.3.0
[ "$(git -C "$work/origin.git" rev-parse v1^{commit})" = "$(git -C "$work/clone" rev-parse v1.3.0^{commit})" ] || fail "v1 did not move to v1.3.0"
tag_release v1.4.0-rc.1
[ "$(git -C "$work/origin.git" rev-parse v1^{commit})" = "$(git -C "$work/clone" rev-parse v1.3.0^{commit})" ] || fail "a pre-release moved v1"
tag_release v2.0.0
[ "$(git -C "$work/origin.git" rev-parse v2^{commit})" = "$(git -C "$work/clone" rev-parse v2.0.0^{commit})" ] && [ "$(git -C "$work/origin.git" rev-parse v1^{commit})" = "$(git -C "$work/clone" rev-parse v1.3.0^{commit})" ] \
  || fail "v2.0.0: v2 should name it and v1 stay on v1.3.0"
ok "the release workflow moves v1 to v1.2.0, then v1.3.0; not to the pre-release v1.4.0-rc.1; v2.0.0 makes v2"
echo "action test passed in $(( $(date +%s) - start ))s"
