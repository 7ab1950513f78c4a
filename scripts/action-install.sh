#!/usr/bin/env bash
# The shell logic of the bnpl GitHub Action (action.yml), kept here so that
# it can be run and tested outside GitHub (scripts/action-test.sh serves a
# snapshot dist/ on loopback to it).
#
#   action-install.sh install   download the release archive for this runner,
#                               check it against checksums.txt, install bnpl
#   action-install.sh sandbox   start `bnpl sandbox serve` in the background,
#                               wait until healthy, export its settings
#
# Inputs (environment):
#   BNPL_VERSION         a version (1.2.3 or v1.2.3), or latest (default)
#   BNPL_DOWNLOAD_BASE   where releases are downloaded from (default
#                        https://github.com/bnpl-cli/bnpl/releases): files
#                        are BASE/download/vVERSION/FILE, or
#                        BASE/latest/download/FILE for the latest
#   BNPL_INSTALL_DIR     where bnpl goes (default $RUNNER_TOOL_CACHE/bnpl or
#                        ~/.bnpl), its bin/ added to $GITHUB_PATH
#   RUNNER_OS, RUNNER_ARCH   as GitHub sets them (Linux/macOS/Windows,
#                        X64/ARM64); read from uname when unset
#   BNPL_AE_PORT, BNPL_SA_PORT   the sandbox's loopback ports (8700, 8701)
#   GITHUB_PATH, GITHUB_ENV, GITHUB_OUTPUT   files the step writes to, as on
#                        GitHub (a temporary file each when unset)
set -euo pipefail

die() { echo "::error::bnpl action: $*" >&2; exit 1; }

: "${GITHUB_PATH:=$(mktemp)}" "${GITHUB_ENV:=$(mktemp)}" "${GITHUB_OUTPUT:=$(mktemp)}"

platform() {
  local os arch
  os=${RUNNER_OS:-$(uname -s)}
  arch=${RUNNER_ARCH:-$(uname -m)}
  case "$os" in
    Linux|linux) os=linux ;;
    macOS|Darwin|darwin) os=darwin ;;
    Windows|MINGW*|MSYS*|CYGWIN*|windows) os=windows ;;
    *) die "no bnpl release for the OS $os (Linux, macOS and Windows have one)" ;;
  esac
  case "$arch" in
    X64|x86_64|amd64) arch=amd64 ;;
    ARM64|aarch64|arm64) arch=arm64 ;;
    *) die "no bnpl release for the architecture $arch (X64 and ARM64 have one)" ;;
  esac
  echo "$os $arch"
}

fetch() { # URL FILE
  curl --fail --silent --show-error --location --retry 3 --proto '=https,http' -o "$2" "$1" \
    || die "could not download $1"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

install_bnpl() {
  local base version os arch dir ext name want got
  base=${BNPL_DOWNLOAD_BASE:-https://github.com/bnpl-cli/bnpl/releases}
  base=${base%/}
  version=${BNPL_VERSION:-latest}
  read -r os arch < <(platform)
  ext=tar.gz; [ "$os" = windows ] && ext=zip
  if [ "$version" = latest ]; then
    dir="$base/latest/download"
  else
    version=${version#v}
    case "$version" in
      *[!0-9A-Za-z.+-]*|'') die "version \"$BNPL_VERSION\" is not a version such as 1.2.3 (or latest)" ;;
    esac
    dir="$base/download/v$version"
  fi
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  fetch "$dir/checksums.txt" "$tmp/checksums.txt"
  # The archive's name carries the version: for latest, checksums.txt says it.
  name=$(awk -v suffix="_${os}_${arch}.${ext}" '{ n = $2; sub(/^\*/, "", n) } substr(n, length(n) - length(suffix) + 1) == suffix && n ~ /^bnpl_/ { print n; exit }' "$tmp/checksums.txt")
  [ -n "$name" ] || die "checksums.txt of $dir lists no archive for $os/$arch"
  want=$(awk -v n="$name" '{ f = $2; sub(/^\*/, "", f) } f == n { print $1; exit }' "$tmp/checksums.txt")
  fetch "$dir/$name" "$tmp/$name"
  got=$(sha256_of "$tmp/$name")
  [ "$got" = "$want" ] || die "$name does not match checksums.txt (sha256 $got, listed $want): not installed"
  echo "bnpl action: $name matches checksums.txt (sha256 $got)"

  local dest=${BNPL_INSTALL_DIR:-${RUNNER_TOOL_CACHE:-$HOME}/bnpl}
  mkdir -p "$dest/bin" "$tmp/x"
  if [ "$ext" = zip ]; then
    if command -v unzip >/dev/null 2>&1; then unzip -q "$tmp/$name" -d "$tmp/x"
    else powershell -NoProfile -Command "Expand-Archive -LiteralPath '$tmp/$name' -DestinationPath '$tmp/x'"; fi
    cp "$tmp/x/bnpl.exe" "$dest/bin/bnpl.exe"
  else
    tar -xzf "$tmp/$name" -C "$tmp/x"
    install -m 0755 "$tmp/x/bnpl" "$dest/bin/bnpl"
  fi
  echo "$dest/bin" >> "$GITHUB_PATH"
  export PATH="$dest/bin:$PATH"
  local installed
  installed=$(bnpl version -o json --jq .version)
  echo "version=$installed" >> "$GITHUB_OUTPUT"
  echo "path=$dest/bin" >> "$GITHUB_OUTPUT"
  echo "bnpl action: installed bnpl $installed in $dest/bin"
}

start_sandbox() {
  local ae=${BNPL_AE_PORT:-8700} sa=${BNPL_SA_PORT:-8701} log pidfile
  for p in "$ae" "$sa"; do
    case "$p" in *[!0-9]*|'') die "port \"$p\" is not a number" ;; esac
  done
  log="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/bnpl-sandbox.log"
  pidfile="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/bnpl-sandbox.pid"
  nohup bnpl sandbox serve --state :memory: --ae-addr "127.0.0.1:$ae" --sa-addr "127.0.0.1:$sa" >"$log" 2>&1 &
  echo $! > "$pidfile"
  if ! bnpl sandbox wait --sandbox-url "http://127.0.0.1:$ae" --timeout "${BNPL_WAIT_TIMEOUT:-30s}"; then
    cat "$log" >&2
    die "the sandbox did not become healthy"
  fi
  {
    echo "BNPL_BASE_URL=http://127.0.0.1:$ae"
    echo "BNPL_SANDBOX_URL=http://127.0.0.1:$ae"
    echo "BNPL_SECRET_KEY=sk_test_ae_sandbox"
    echo "BNPL_MERCHANT_CODE=ae-sandbox"
  } >> "$GITHUB_ENV"
  {
    echo "sandbox-url=http://127.0.0.1:$ae"
    echo "sandbox-sa-url=http://127.0.0.1:$sa"
    echo "sandbox-pid=$(cat "$pidfile")"
  } >> "$GITHUB_OUTPUT"
  echo "bnpl action: sandbox healthy at http://127.0.0.1:$ae (ae) and http://127.0.0.1:$sa (sa); log in $log"
}

case "${1:-}" in
  install) install_bnpl ;;
  sandbox) start_sandbox ;;
  *) echo "usage: action-install.sh install|sandbox" >&2; exit 2 ;;
esac
