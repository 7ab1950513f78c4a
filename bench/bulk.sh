#!/usr/bin/env bash
# Bulk captures against `bnpl sandbox serve` (in memory, no faults), three
# ways over the same shape of work, 4 captures on each of N payments:
#   bnpl    `bnpl payments capture --from-file` at its default concurrency
#   bnpl on tmpfs  the same with its journal and report on /dev/shm, where
#           fsync is free: the difference is the journal's two fsyncs per row
#   curl    a sequential shell loop of curl calls, one per row
#   ceiling bench/bulkload capture: the same grouping and concurrency as bnpl
#           with nothing but a keep-alive Go HTTP client, i.e. what the
#           sandbox itself can serve to such a client
# Each gets its own freshly seeded payments. Prints the times and ratios.
# Usage: bench/bulk.sh [N]   (default 250 payments = 1,000 captures)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-250}
conc=8 # bnpl's default --concurrency
. bench/setup.sh

"$work/bnpl" sandbox serve --state :memory: --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done

shm=
if [ -d /dev/shm ] && [ -w /dev/shm ]; then shm=$(mktemp -d /dev/shm/bnpl-bench.XXXXXX); fi
trap 'stop; rm -rf "$work" ${shm:+"$shm"}' EXIT

for who in bnpl ${shm:+shm} curl ceiling; do
  "$work/bulkload" seed -url "$BNPL_BASE_URL" -n "$n" -out "$work/$who.csv" -prefix "$who"
done
rows=$(($(wc -l <"$work/bnpl.csv") - 1))
now() { date +%s.%N; }

t0=$(now)
"$work/bnpl" payments capture --from-file "$work/bnpl.csv" -q
t1=$(now)
bnpl_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
# The outcome column found by its name in the report's header.
bad=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "outcome") col = i; next } $col != "ok"' "$work/bnpl.csv.report.csv" | wc -l)
if [ "$bad" -ne 0 ]; then echo "bnpl: $bad rows not ok" >&2; exit 1; fi

shm_s=
if [ -n "$shm" ]; then
  t0=$(now)
  "$work/bnpl" payments capture --from-file "$work/shm.csv" --journal "$shm/journal" --report "$shm/report.csv" -q
  t1=$(now)
  shm_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
fi

t0=$(now)
tail -n +2 "$work/curl.csv" | while IFS=, read -r id amount ref; do
  curl -sf -o /dev/null -X POST \
    -H "Authorization: Bearer $BNPL_SECRET_KEY" -H 'Content-Type: application/json' \
    -d "{\"amount\": \"$amount\", \"reference_id\": \"$ref\"}" \
    "$BNPL_BASE_URL/api/v2/payments/$id/captures"
done
t1=$(now)
curl_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')

ceiling=$("$work/bulkload" capture -url "$BNPL_BASE_URL" -file "$work/ceiling.csv" -c "$conc")
ceiling_s=$(sed -E 's/.*elapsed=([0-9.]+)s.*/\1/' <<<"$ceiling")

echo "== $rows captures over $n payments, sandbox in memory, no faults ($(nproc) CPUs)"
awk -v r="$rows" -v b="$bnpl_s" -v m="$shm_s" -v c="$curl_s" -v s="$ceiling_s" -v k="$conc" 'BEGIN {
  printf "bnpl payments capture --from-file (concurrency %d)  %7.3fs  %6.0f captures/s\n", k, b, r / b
  if (m != "") printf "the same, journal and report on tmpfs              %7.3fs  %6.0f captures/s\n", m, r / m
  printf "sequential curl loop                              %7.3fs  %6.0f captures/s\n", c, r / c
  printf "ceiling: Go client, same grouping, %d at once      %7.3fs  %6.0f captures/s\n", k, s, r / s
  printf "bnpl is %.1fx faster than the curl loop, and takes %.2fx the ceiling'"'"'s time\n", c / b, b / s
  if (m != "") printf "on tmpfs: %.1fx faster than the curl loop, %.2fx the ceiling'"'"'s time\n", c / m, m / s
}'
echo "ceiling detail: $ceiling"
