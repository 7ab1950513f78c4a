#!/usr/bin/env bash
# `bnpl payments get order:REF` on a sandbox of PAYMENTS payments (default
# 10,000): the order is found by one walk of the payments list in every
# status (paysearch.ByOrder), then the payment is read once. Prints the
# wall time of RUNS lookups (median), for the newest order and the oldest
# one (the last page), and the requests one lookup sends (--debug).
# Usage: bench/order.sh [PAYMENTS] [RUNS]   (default 10000 5)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000}
runs=${2:-5}
. bench/setup.sh

"$work/load" seed -state "$state" -n "$n" 2>/dev/null
"$work/bnpl" sandbox serve --state "$state" --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >/dev/null 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ms() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
printf 'payments %d, %d runs each, median wall time\n' "$n" "$runs"
for which in newest oldest; do
  if [ "$which" = newest ]; then ref=$(printf 'BENCH-%06d' $((n - 1))); else ref=BENCH-000000; fi
  : >"$work/times"
  for ((i = 0; i < runs; i++)); do
    start=$(ms)
    id=$("$work/bnpl" -q payments get "order:$ref" -o json --jq .id)
    end=$(ms)
    echo $(((end - start) / 1000)) >>"$work/times"
  done
  [ -n "$id" ] || { echo "order $ref not found" >&2; exit 1; }
  printf '  %-7s order %s  %6d ms\n' "$which" "$ref" "$(median <"$work/times")"
done
# The requests of one lookup, as --debug shows them.
"$work/bnpl" payments get order:BENCH-000000 -o json --debug 2>"$work/debug" >/dev/null
reqs=$(grep -c '^> [A-Z]* ' "$work/debug")
lists=$(grep -c '^> GET .*/api/v2/payments?' "$work/debug")
printf '  one lookup: %d requests, %d of them list pages (the list is %d pages of 20)\n' "$reqs" "$lists" "$(((n + 19) / 20))"
