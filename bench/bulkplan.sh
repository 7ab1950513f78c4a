#!/usr/bin/env bash
# The bulk plan (--dry-run) and payments report against `bnpl sandbox
# serve` (in memory, no faults), with /usr/bin/time -v for wall time and
# peak memory (maximum resident set size):
#   plan 10k    10,000 capture rows over 2,500 payments (4 each, each with
#               a reference_id): `payments capture --input F --dry-run`
#   plan 4M     4,000,000 rows over the same 2,500 payments, 1,600 each:
#               "same" rows (payment_id,amount,currency; --allow-repeats)
#               and "distinct" rows (each with a reference_id of its own)
#   report 10k  `payments report` over 10,000 payments with 4 captures each
# Usage: bench/bulkplan.sh [ROWS]   (default 4000000 for the large files)
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-4000000}
. bench/setup.sh

"$work/bnpl" sandbox serve --state :memory: --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done

# measure SLUG LABEL CMD...: runs CMD under /usr/bin/time -v, prints its
# wall time and peak memory, and bnpl's plan or summary lines.
measure() {
  local slug=$1 name=$2
  shift 2
  local out=$work/$slug.time
  local rc=0
  /usr/bin/time -v "$@" >"$work/$slug.out" 2>"$out" || rc=$?
  local wall rss
  wall=$(sed -nE 's/.*Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.*)/\1/p' "$out")
  rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$out")
  printf '%-34s exit %d  wall %8s  peak RSS %6.1f MB\n' "$name" "$rc" "$wall" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')"
  grep -E '^(plan|dry run|[0-9]+ rows)' "$out" | sed 's/^/    /' || true
}

"$work/bulkload" seed -url "$BNPL_BASE_URL" -n 2500 -out "$work/plan10k.csv" -prefix P
echo "== $(nproc) CPUs; sandbox in memory"
measure plan10k "plan 10,000 rows, 2,500 payments" "$work/bnpl" payments capture --input "$work/plan10k.csv" --dry-run

# The large files, over the same 2,500 payments (authorized 100.00 AED
# each): 1,600 rows of 0.01 per payment.
tail -n +2 "$work/plan10k.csv" | cut -d, -f1 | sort -u >"$work/ids"
awk -v n="$big" 'BEGIN { print "payment_id,amount,currency" } { id[NR] = $0 } END {
  for (i = 0; i < n; i++) print id[i % NR + 1] ",0.01,AED" }' "$work/ids" >"$work/same.csv"
awk -v n="$big" 'BEGIN { print "payment_id,amount,reference_id" } { id[NR] = $0 } END {
  for (i = 0; i < n; i++) printf "%s,0.01,R%d\n", id[i % NR + 1], i }' "$work/ids" >"$work/distinct.csv"
ls -l "$work/same.csv" "$work/distinct.csv" | awk '{ printf "    %s: %.1f MB\n", $NF, $5 / 1e6 }' | sed "s|$work/||"
measure same "plan $big same rows" "$work/bnpl" payments capture --input "$work/same.csv" --dry-run --allow-repeats
measure distinct "plan $big distinct rows" "$work/bnpl" payments capture --input "$work/distinct.csv" --dry-run
measure stdin "plan $big same rows, stdin" sh -c "\"$work/bnpl\" payments capture --input - --journal \"$work/stdin.journal\" --dry-run --allow-repeats <\"$work/same.csv\""

# payments report over 10,000 payments, each captured in 4 moves, on a
# fresh sandbox.
stop
"$work/bnpl" sandbox serve --state :memory: --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >"$work/serve.log" 2>&1 &
server=$!
for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done
"$work/bulkload" seed -url "$BNPL_BASE_URL" -n 10000 -out "$work/report.csv" -prefix R
"$work/bulkload" capture -url "$BNPL_BASE_URL" -file "$work/report.csv" -c 8 >/dev/null
measure report "report over 10,000 payments" "$work/bnpl" payments report --since 2000-01-01 --until 2100-01-01 -o csv
sed 's/^/    /' "$work/report.out"
