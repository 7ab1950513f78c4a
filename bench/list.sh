#!/usr/bin/env bash
# Peak memory of `bnpl payments list --all` over 1,000, 5,000 and 10,000
# payments on a running sandbox: flat memory means the list streams page by
# page rather than being held whole. Seeding goes through the sandbox's
# own handler in-process (bench/load seed), the same code the server runs.
# Usage: bench/list.sh [COUNTS...]   (default 1000 5000 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1000 5000 10000)
work=$(mktemp -d)
port=${BENCH_PORT:-18710}
go build -trimpath -ldflags "-s -w" -o "$work/bnpl" .
go build -o "$work/load" ./bench/load
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"
export BNPL_SECRET_KEY=sk_test_ae_sandbox BNPL_BASE_URL="http://127.0.0.1:$port" BNPL_MERCHANT_CODE=ae-sandbox
state="$work/state.db"
server=
stop() { if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; server=; fi; }
trap 'stop; rm -rf "$work"' EXIT

have=0
printf '%8s  %10s  %10s  %8s\n' payments "peak RSS" "wall" rows
for n in "${counts[@]}"; do
  "$work/load" seed -state "$state" -n $((n - have)) 2>/dev/null
  have=$n
  "$work/bnpl" sandbox serve --state "$state" --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >/dev/null 2>&1 &
  server=$!
  for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done
  /usr/bin/time -v -o "$work/time.txt" "$work/bnpl" payments list --all -o jsonl >"$work/out.jsonl"
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$work/time.txt")
  rows=$(wc -l <"$work/out.jsonl")
  printf '%8d  %7d KB  %10s  %8d\n' "$n" "$rss" "$wall" "$rows"
  stop
done
