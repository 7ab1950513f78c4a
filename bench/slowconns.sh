#!/usr/bin/env bash
# What slow clients can make `bnpl listen` and `bnpl sandbox serve` hold:
# N connections each send a header and almost 1 MiB of a declared 1 MiB
# body, then one byte every 2 seconds for HOLD (bench/slowconns). Prints the
# server's peak resident memory, how many connections it cut, and whether
# a normal request got through meanwhile. Linux (reads /proc).
# Usage: bench/slowconns.sh [N] [HOLD]   (default 600 40s)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-600}
hold=${2:-40s}
work=$(mktemp -d)
port=${BENCH_PORT:-18760}
go build -trimpath -ldflags "-s -w" -o "$work/bnpl" .
go build -o "$work/slowconns" ./bench/slowconns
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"
server=
stop() { if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; server=; fi; }
trap 'stop; rm -rf "$work"' EXIT
ulimit -n 8192 2>/dev/null || true

echo "== bnpl listen --header-title X-Hook, senders without the header"
HOOK_SECRET=bench-secret-value "$work/bnpl" listen --addr "127.0.0.1:$port" --header-title X-Hook --header-value-env HOOK_SECRET >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.05; done
"$work/slowconns" -addr "127.0.0.1:$port" -path /hook -n "$n" -hold "$hold" -pid "$server"
stop

echo "== bnpl listen without a header check"
"$work/bnpl" listen --addr "127.0.0.1:$port" >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.05; done
"$work/slowconns" -addr "127.0.0.1:$port" -path /hook -n "$n" -hold "$hold" -pid "$server"
stop

echo "== bnpl sandbox serve, checkouts with a valid key"
"$work/bnpl" sandbox serve --state :memory: --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/_sandbox/clock" >/dev/null && break; sleep 0.05; done
"$work/slowconns" -addr "127.0.0.1:$port" -path /api/v2/checkout -header "Authorization: Bearer sk_test_ae_sandbox" -n "$n" -hold "$hold" -pid "$server"
stop
