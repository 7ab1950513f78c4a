#!/usr/bin/env bash
# Concurrent page walks: `bnpl payments list --all` over 1,000 payments
# (50 pages of 20) against `bnpl sandbox serve --faults latency=50ms`, at
# --concurrency 1, 4 and 8. The sequential floor is 50 x 50 ms = 2.5 s of
# latency alone; the aim is at most 0.4x that (1.0 s) at the default 4.
# Every row must be printed exactly once.
# Usage: bench/walk.sh [PAYMENTS] [LATENCY]   (default 1000 50ms)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000}
latency=${2:-50ms}
. bench/setup.sh

"$work/load" seed -state "$state" -n "$n" 2>/dev/null
"$work/bnpl" sandbox serve --state "$state" --faults "latency=$latency" --seed 1 \
  --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done

pages=$(((n + 19) / 20))
printf 'payments %d, pages %d, latency %s a request\n' "$n" "$pages" "$latency"
printf '%12s  %8s  %6s  %9s\n' concurrency wall rows distinct
for c in 1 4 8; do
  start=$(date +%s.%N)
  "$work/bnpl" payments list --all -o jsonl --concurrency "$c" >"$work/out.jsonl"
  end=$(date +%s.%N)
  rows=$(wc -l <"$work/out.jsonl")
  distinct=$(sed 's/^{"id":"\([^"]*\)".*/\1/' "$work/out.jsonl" | sort -u | wc -l)
  printf '%12d  %7.2fs  %6d  %9d\n' "$c" "$(echo "$end - $start" | bc)" "$rows" "$distinct"
done
