#!/usr/bin/env bash
# Runs the action's shell logic (scripts/action-install.sh) against the
# snapshot release in dist/, served on loopback as GitHub serves releases
# (BASE/download/vVERSION/FILE and BASE/latest/download/FILE): no network.
# Checks that it installs the runner's archive after checking it against
# checksums.txt, refuses an archive that does not match, and starts a
# sandbox that `bnpl smoke` passes against with the variables it exports.
set -euo pipefail
cd "$(dirname "$0")/.."
dist=$(cd "${1:-dist}" && pwd)
fail() { echo "action test: $*" >&2; exit 1; }

version=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$dist/metadata.json")
work=$(mktemp -d)
server_pid="" sandbox_pid=""
cleanup() {
  [ -n "$sandbox_pid" ] && kill "$sandbox_pid" 2>/dev/null || true
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# The release as GitHub lays it out, and a tampered copy.
mkdir -p "$work/site/download" "$work/site/latest" "$work/bad/download/v$version"
ln -s "$dist" "$work/site/download/v$version"
ln -s "$dist" "$work/site/latest/download"
cp "$dist/checksums.txt" "$work/bad/download/v$version/"
cp "$dist/bnpl_${version}_linux_amd64.tar.gz" "$work/bad/download/v$version/"
printf 'tampered' >> "$work/bad/download/v$version/bnpl_${version}_linux_amd64.tar.gz"

python3 - "$work" > "$work/port" <<'PY' &
import functools, http.server, os, sys
root = sys.argv[1]
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=root)
handler.log_message = lambda *a: None
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
print(srv.server_address[1], flush=True)
srv.serve_forever()
PY
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(cat "$work/port")
[ -n "$port" ] || fail "the file server did not start"
base="http://127.0.0.1:$port"

run() { # NAME ENV... -- ARGS
  env -i PATH="$PATH" HOME="$work/home" RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work" \
    GITHUB_PATH="$work/github_path" GITHUB_ENV="$work/github_env" GITHUB_OUTPUT="$work/github_output" "$@"
}

# A pinned version, then latest.
for v in "v$version" latest; do
  rm -rf "$work/install" "$work/github_path" "$work/github_output"
  run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION="$v" BNPL_INSTALL_DIR="$work/install" \
    scripts/action-install.sh install > "$work/out" 2>&1 || { cat "$work/out"; fail "install of $v failed"; }
  grep -q "bnpl_${version}_linux_amd64.tar.gz matches checksums.txt" "$work/out" || fail "install of $v did not check the archive: $(cat "$work/out")"
  [ "$(cat "$work/github_path")" = "$work/install/bin" ] || fail "GITHUB_PATH: $(cat "$work/github_path")"
  grep -qx "version=$version" "$work/github_output" || fail "output version: $(cat "$work/github_output")"
  "$work/install/bin/bnpl" version | grep -q "^bnpl $version " || fail "installed bnpl: $("$work/install/bin/bnpl" version)"
  echo "  ok  action install $v: checked against checksums.txt, bnpl $version on the PATH"
done

# An archive that does not match checksums.txt is refused, nothing installed.
rm -rf "$work/install2"
if run BNPL_DOWNLOAD_BASE="$base/bad" BNPL_VERSION="$version" BNPL_INSTALL_DIR="$work/install2" \
    scripts/action-install.sh install > "$work/out" 2>&1; then
  fail "a tampered archive was installed"
fi
grep -q "does not match checksums.txt" "$work/out" || fail "tampered archive: $(cat "$work/out")"
[ ! -e "$work/install2/bin/bnpl" ] || fail "a tampered archive left a binary"
echo "  ok  action install refuses an archive that does not match checksums.txt"

# A version that is not one is refused before any download.
if run BNPL_DOWNLOAD_BASE="$base/site" BNPL_VERSION='1.0;rm' scripts/action-install.sh install > "$work/out" 2>&1; then
  fail "a malformed version was accepted"
fi

# The sandbox: started, healthy, and the exported variables point at it.
ports=$(python3 -c 'import socket
s=[socket.socket() for _ in range(2)]
[x.bind(("127.0.0.1",0)) for x in s]
print(" ".join(str(x.getsockname()[1]) for x in s))')
read -r ae sa <<< "$ports"
: > "$work/github_env"
run PATH="$work/install/bin:$PATH" BNPL_AE_PORT="$ae" BNPL_SA_PORT="$sa" \
  scripts/action-install.sh sandbox > "$work/out" 2>&1 || { cat "$work/out"; fail "sandbox start failed"; }
sandbox_pid=$(sed -n 's/^sandbox-pid=//p' "$work/github_output")
grep -qx "BNPL_BASE_URL=http://127.0.0.1:$ae" "$work/github_env" || fail "GITHUB_ENV: $(cat "$work/github_env")"
grep -qx "BNPL_SECRET_KEY=sk_test_ae_sandbox" "$work/github_env" || fail "GITHUB_ENV lacks the key"
grep -qx "BNPL_MERCHANT_CODE=ae-sandbox" "$work/github_env" || fail "GITHUB_ENV lacks the merchant"
( set -a; . "$work/github_env"; set +a
  env -i PATH="$work/install/bin:$PATH" HOME="$work/home" CI=true \
    BNPL_BASE_URL="$BNPL_BASE_URL" BNPL_SECRET_KEY="$BNPL_SECRET_KEY" BNPL_MERCHANT_CODE="$BNPL_MERCHANT_CODE" \
    bnpl smoke > "$work/smoke" 2>&1 ) || { cat "$work/smoke"; fail "bnpl smoke against the action's sandbox failed"; }
grep -q "capture rest.*passed" "$work/smoke" || fail "smoke ran no money steps: $(cat "$work/smoke")"
echo "  ok  action sandbox: healthy on 127.0.0.1:$ae, exported variables, bnpl smoke passes (money steps included)"
echo "action test passed"
