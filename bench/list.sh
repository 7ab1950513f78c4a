#!/usr/bin/env bash
# `bnpl payments list --all -o jsonl` over a growing number of payments on
# a running sandbox: wall time, rows printed, time per row and peak RSS of
# the client. Flat time per row means a page costs the same at any offset;
# flat memory means the list streams page by page. Seeding goes through the
# sandbox's own handler in-process (bench/load seed), the same code the
# server runs.
# Usage: bench/list.sh [COUNTS...]   (default 1000 10000 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(1000 10000 100000)
. bench/setup.sh

have=0
printf '%9s  %10s  %9s  %9s  %11s\n' payments "peak RSS" wall rows "per row"
for n in "${counts[@]}"; do
  "$work/load" seed -state "$state" -n $((n - have)) 2>/dev/null
  have=$n
  "$work/bnpl" sandbox serve --state "$state" --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >/dev/null 2>&1 &
  server=$!
  for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done
  /usr/bin/time -v -o "$work/time.txt" "$work/bnpl" payments list --all -o jsonl >"$work/out.jsonl"
  rss=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s}' "$work/time.txt")
  rows=$(wc -l <"$work/out.jsonl")
  unique=$(grep -o '"id":"[^"]*"' "$work/out.jsonl" | sort -u | wc -l)
  [ "$unique" -eq "$rows" ] || echo "warning: $rows rows but $unique distinct ids" >&2
  per=$(awk -v w="$wall" -v r="$rows" 'BEGIN { printf "%.1f us", r ? w * 1e6 / r : 0 }')
  printf '%9d  %7d KB  %8.2fs  %9d  %11s\n' "$n" "$rss" "$wall" "$rows" "$per"
  stop
done
