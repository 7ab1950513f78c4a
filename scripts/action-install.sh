#!/usr/bin/env bash
# The shell logic of the bnpl GitHub Action (action.yml), kept here so that
# it can be run and tested outside GitHub (scripts/action-test.sh runs the
# action against a snapshot release served on loopback, as Linux, macOS and
# Windows runners would). It runs in bash on every runner: Git Bash on
# Windows, whose runner paths (C:\hostedtoolcache\windows) are turned into
# the shell's (/c/hostedtoolcache/windows) with cygpath, and back for
# $GITHUB_PATH.
#
#   action-install.sh install   download the release archive for this runner,
#                               check it against checksums.txt, install bnpl
#                               in the tool cache; a version there already is
#                               used as it is, with nothing downloaded
#   action-install.sh sandbox   start `bnpl sandbox serve` in the background,
#                               wait until healthy, export its settings
#   action-install.sh stop      stop the sandbox `sandbox` started, printing
#                               its log unless the job succeeded
#
# Inputs (environment):
#   BNPL_VERSION         a version (1.2.3 or v1.2.3), or latest; action.yml
#                        passes its own release by default
#   BNPL_DOWNLOAD_BASE   where releases are downloaded from (default
#                        https://github.com/bnpl-cli/bnpl/releases): files
#                        are BASE/download/vVERSION/FILE, or
#                        BASE/latest/download/FILE for the latest
#   RUNNER_TOOL_CACHE    the tool cache: bnpl goes to
#                        $RUNNER_TOOL_CACHE/bnpl/VERSION/ARCH (ARCH x64 or
#                        arm64; default $HOME/.bnpl/tool-cache/bnpl/...),
#                        with ARCH.complete beside it once installed; its
#                        bin/ is added to $GITHUB_PATH. bnpl/latest holds
#                        the version latest was last resolved to: fresh for
#                        24 hours (its age), when latest downloads nothing
#   RUNNER_OS, RUNNER_ARCH   as GitHub sets them (Linux/macOS/Windows,
#                        X64/ARM64); read from uname when unset
#   RUNNER_TEMP          where the sandbox's log, pid and ready files go
#   BNPL_AE_PORT, BNPL_SA_PORT   the sandbox's loopback ports (8700, 8701;
#                        0 picks free ones)
#   BNPL_WAIT_TIMEOUT    how long to wait for the sandbox (30s)
#   BNPL_JOB_STATUS      for stop: the job's status; the log is printed
#                        unless it is success
#   GITHUB_PATH, GITHUB_ENV, GITHUB_OUTPUT   files the step writes to, as on
#                        GitHub (a temporary file each when unset)
set -euo pipefail

die() { echo "::error::bnpl action: $*" >&2; exit 1; }

# to_shell turns a runner path into this shell's: C:\a b\c -> /c/a b/c on
# Windows (cygpath), unchanged elsewhere. to_runner is the way back.
to_shell() {
  case "$1" in
    [A-Za-z]:[\\/]*) command -v cygpath >/dev/null 2>&1 || die "cygpath is needed to read the Windows path $1"; cygpath -u "$1" ;;
    *) printf '%s\n' "$1" ;;
  esac
}
to_runner() {
  if [ "$os" = windows ] && command -v cygpath >/dev/null 2>&1; then cygpath -w "$1"; else printf '%s\n' "$1"; fi
}

platform() {
  local name machine
  name=${RUNNER_OS:-$(uname -s)}
  machine=${RUNNER_ARCH:-$(uname -m)}
  case "$name" in
    Linux|linux) os=linux ;;
    macOS|Darwin|darwin) os=darwin ;;
    Windows|MINGW*|MSYS*|CYGWIN*|windows) os=windows ;;
    *) die "no bnpl release for the OS $name (Linux, macOS and Windows have one)" ;;
  esac
  case "$machine" in
    X64|x86_64|amd64) arch=amd64 ;;
    ARM64|aarch64|arm64) arch=arm64 ;;
    *) die "no bnpl release for the architecture $machine (X64 and ARM64 have one)" ;;
  esac
  exe=""; [ "$os" = windows ] && exe=.exe
  return 0
}

# The files the step writes to, and the runner's temp directory, as this
# shell names them.
runner_files() {
  : "${GITHUB_PATH:=$(mktemp)}" "${GITHUB_ENV:=$(mktemp)}" "${GITHUB_OUTPUT:=$(mktemp)}"
  path_file=$(to_shell "$GITHUB_PATH") env_file=$(to_shell "$GITHUB_ENV") output_file=$(to_shell "$GITHUB_OUTPUT")
  temp_dir=$(to_shell "${RUNNER_TEMP:-${TMPDIR:-/tmp}}")
}

fetch() { # URL FILE
  echo "bnpl action: downloading $1"
  curl --fail --silent --show-error --location --retry 3 --proto '=https,http' -o "$2" "$1" \
    || die "could not download $1"
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# release_dir sets $dir (where the release's files are) and $version
# ("" for latest until checksums.txt names it).
release_dir() {
  local base=${BNPL_DOWNLOAD_BASE:-https://github.com/bnpl-cli/bnpl/releases}
  base=${base%/}
  version=${BNPL_VERSION:-}
  [ -n "$version" ] || die "no version to install: give the action's version input (1.2.3, or latest)"
  if [ "$version" = latest ]; then
    dir="$base/latest/download" version=""
    return 0
  fi
  version=${version#v}
  case "$version" in
    *[!0-9A-Za-z.+-]*|'') die "version \"$BNPL_VERSION\" is not a version such as 1.2.3 (or latest)" ;;
  esac
  dir="$base/download/v$version"
}

# find_archive reads the archive for this runner, and so the version, from
# checksums.txt (fetched once): for latest, it is what names the version.
find_archive() {
  local ext=tar.gz
  [ "$os" = windows ] && ext=zip
  [ -s "$tmp/checksums.txt" ] || fetch "$dir/checksums.txt" "$tmp/checksums.txt"
  name=$(awk -v suffix="_${os}_${arch}.${ext}" '{ n = $2; sub(/^\*/, "", n) } substr(n, length(n) - length(suffix) + 1) == suffix && n ~ /^bnpl_/ { print n; exit }' "$tmp/checksums.txt")
  [ -n "$name" ] || die "checksums.txt of $dir lists no archive for $os/$arch"
  version=${name#bnpl_} version=${version%_${os}_${arch}.${ext}}
}

# download_checked fetches the archive for this runner into $tmp, checked
# against checksums.txt.
download_checked() {
  local want got
  find_archive
  want=$(awk -v n="$name" '{ f = $2; sub(/^\*/, "", f) } f == n { print $1; exit }' "$tmp/checksums.txt")
  fetch "$dir/$name" "$tmp/$name"
  got=$(sha256_of "$tmp/$name")
  [ "$got" = "$want" ] || die "$name does not match checksums.txt (sha256 $got, listed $want): not installed"
  echo "bnpl action: $name matches checksums.txt (sha256 $got)"
}

# unpack installs the binary of the archive in $tmp into $1/bin.
unpack() {
  local into=$1
  mkdir -p "$tmp/x" "$into/bin"
  if [ "$os" = windows ]; then
    if command -v unzip >/dev/null 2>&1; then unzip -q "$tmp/$name" -d "$tmp/x"
    else powershell -NoProfile -Command "Expand-Archive -LiteralPath '$(to_runner "$tmp/$name")' -DestinationPath '$(to_runner "$tmp/x")'"; fi
  else
    tar -xzf "$tmp/$name" -C "$tmp/x"
  fi
  cp "$tmp/x/bnpl$exe" "$into/bin/bnpl$exe"
  chmod 0755 "$into/bin/bnpl$exe"
}

install_bnpl() {
  local cache machine dest installed hit=false
  platform
  runner_files
  release_dir
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cache=$(to_shell "${RUNNER_TOOL_CACHE:-$HOME/.bnpl/tool-cache}")
  # latest: checksums.txt names the version, and so the cache directory;
  # a latest resolved on this runner less than a day ago is taken as it is
  # (the tool cache's bnpl/latest file), with nothing downloaded.
  if [ -z "$version" ]; then
    if [ -f "$cache/bnpl/latest" ] && [ -n "$(find "$cache/bnpl/latest" -mmin -1440 2>/dev/null)" ]; then
      version=$(cat "$cache/bnpl/latest")
      echo "bnpl action: latest is $version, as resolved on this runner less than 24 hours ago"
    else
      find_archive
      mkdir -p "$cache/bnpl"
      printf '%s\n' "$version" > "$cache/bnpl/latest"
    fi
  fi
  machine=x64; [ "$arch" = arm64 ] && machine=arm64
  dest="$cache/bnpl/$version/$machine"
  if [ -f "$dest.complete" ] && [ -x "$dest/bin/bnpl$exe" ]; then
    hit=true
    echo "bnpl action: bnpl $version is in the tool cache ($dest): nothing downloaded"
  else
    download_checked
    rm -rf "$dest" "$dest.complete"
    unpack "$dest"
    touch "$dest.complete"
  fi
  to_runner "$dest/bin" >> "$path_file"
  export PATH="$dest/bin:$PATH"
  installed=$("$dest/bin/bnpl$exe" version -o json --jq .version)
  {
    echo "version=$installed"
    echo "path=$(to_runner "$dest/bin")"
    echo "cache-hit=$hit"
  } >> "$output_file"
  echo "bnpl action: bnpl $installed in $dest/bin"
}

# wait_failure FILE AE SA: why the sandbox is not there, in the words of
# bnpl's error, and what to do in the action's own inputs (ae-port,
# sa-port, wait-timeout), not serve's flags.
wait_failure() {
  local said hint=""
  said=$(sed -n 's/^error: //p' "$1" | head -n 1)
  [ -n "$said" ] || said=$(head -n 1 "$1")
  case "$said" in
    *"cannot listen on"*":$2: the address is in use"*) hint="another program listens on port $2: give the action ae-port: 0 (and sa-port: 0) for free ports, or another ae-port" ;;
    *"cannot listen on"*":$3: the address is in use"*) hint="another program listens on port $3: give the action sa-port: 0 (and ae-port: 0) for free ports, or another sa-port" ;;
    *"not healthy after"*|*"after "*": not written yet"*) hint="give the action a longer wait-timeout; the sandbox's log is above" ;;
  esac
  printf 'the sandbox did not start: %s%s' "${said:-no error given (its log is above)}" "${hint:+ (${hint})}"
}

start_sandbox() {
  local ae=${BNPL_AE_PORT:-8700} sa=${BNPL_SA_PORT:-8701} log ready pidfile urls ae_url sa_url instance shell_pid pid
  platform
  runner_files
  for p in "$ae" "$sa"; do
    case "$p" in *[!0-9]*|'') die "port \"$p\" is not a number" ;; esac
  done
  log="$temp_dir/bnpl-sandbox.log" ready="$temp_dir/bnpl-sandbox.json" pidfile="$temp_dir/bnpl-sandbox.pid"
  instance="bnpl-action-${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}-$$"
  rm -f "$ready"
  nohup "bnpl$exe" sandbox serve --state :memory: --ae-addr "127.0.0.1:$ae" --sa-addr "127.0.0.1:$sa" \
    --instance "$instance" --ready-file "$(to_runner "$ready")" >"$log" 2>&1 &
  shell_pid=$!
  # The wait in words (its error is what the step's annotation says), then
  # the ready file's values from the sandbox now healthy.
  if ! "bnpl$exe" sandbox wait --ready-file "$(to_runner "$ready")" --timeout "${BNPL_WAIT_TIMEOUT:-30s}" 2>"$temp_dir/bnpl-sandbox-wait.txt" \
    || ! urls=$("bnpl$exe" sandbox wait --ready-file "$(to_runner "$ready")" --timeout 10s --jq '.urls.ae + " " + .urls.sa + " " + (.pid | tostring)' 2>>"$temp_dir/bnpl-sandbox-wait.txt"); then
    cat "$log" >&2
    kill "$shell_pid" 2>/dev/null || true
    die "$(wait_failure "$temp_dir/bnpl-sandbox-wait.txt" "$ae" "$sa")"
  fi
  read -r ae_url sa_url pid <<< "$urls"
  # The shell's id of the background job, and the process's own (they
  # differ on Windows): stop tries the first, then the second.
  echo "$shell_pid $pid" > "$pidfile"
  {
    echo "BNPL_BASE_URL=$ae_url"
    echo "BNPL_SANDBOX_URL=$ae_url"
    echo "BNPL_SECRET_KEY=sk_test_ae_sandbox"
    echo "BNPL_MERCHANT_CODE=ae-sandbox"
  } >> "$env_file"
  {
    echo "sandbox-url=$ae_url"
    echo "sandbox-sa-url=$sa_url"
    echo "sandbox-pid=$pid"
    echo "sandbox-instance=$instance"
    echo "sandbox-log=$(to_runner "$log")"
  } >> "$output_file"
  echo "bnpl action: sandbox $instance healthy at $ae_url (ae) and $sa_url (sa); log in $(to_runner "$log")"
}

stop_sandbox() {
  local log pidfile pid shell_pid status=${BNPL_JOB_STATUS:-}
  platform
  runner_files
  log="$temp_dir/bnpl-sandbox.log" pidfile="$temp_dir/bnpl-sandbox.pid"
  if [ ! -f "$pidfile" ]; then
    echo "bnpl action: no sandbox was started in this job: nothing to stop"
    return 0
  fi
  read -r shell_pid pid < "$pidfile"
  if kill "$shell_pid" 2>/dev/null || { [ "$os" = windows ] && taskkill //PID "$pid" //F >/dev/null 2>&1; }; then
    for _ in $(seq 1 50); do kill -0 "$shell_pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$shell_pid" 2>/dev/null || true
    echo "bnpl action: sandbox stopped (pid $pid)"
  else
    echo "bnpl action: the sandbox (pid $pid) had stopped already"
  fi
  rm -f "$pidfile"
  if [ "$status" != success ] && [ -f "$log" ]; then
    echo "::group::bnpl sandbox log (job ${status:-status not given})"
    cat "$log"
    echo "::endgroup::"
  fi
}

case "${1:-}" in
  install) install_bnpl ;;
  sandbox) start_sandbox ;;
  stop) stop_sandbox ;;
  *) echo "usage: action-install.sh install|sandbox|stop" >&2; exit 2 ;;
esac
