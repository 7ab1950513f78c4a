#!/usr/bin/env bash
# A real bulk run (no --dry-run) against `bnpl sandbox serve` (in memory,
# no faults), with /usr/bin/time -v for wall time and peak memory (maximum
# resident set size), over 2,500 authorized payments of 100.00 AED:
#   run 10k     10,000 capture rows, 4 per payment (bulkload's file)
#   run ROWS    ROWS capture rows of 0.01 AED, each with a reference_id of
#               its own, spread over the same payments (default 100,000)
# Each run has a sandbox of its own. BEFORE=/path/to/bnpl measures that
# binary too, on the same files, for a comparison.
# Usage: bench/bulkrun.sh [ROWS]
set -euo pipefail
cd "$(dirname "$0")/.."
big=${1:-100000}
. bench/setup.sh

# fresh: a new sandbox, seeded with 2,500 payments; writes $work/seed.csv.
fresh() {
  stop
  "$work/bnpl" sandbox serve --state :memory: --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >"$work/serve.log" 2>&1 &
  server=$!
  for _ in $(seq 200); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done
  "$work/bulkload" seed -url "$BNPL_BASE_URL" -n 2500 -out "$work/seed.csv" -prefix "S$RANDOM" >/dev/null
}

# measure LABEL BIN FILE: a real capture run of FILE by BIN on a fresh
# sandbox; prints wall time, peak memory and bnpl's summary line.
measure() {
  local name=$1 bin=$2 file=$3
  rm -f "$file.journal" "$file.report.csv"
  local rc=0
  /usr/bin/time -v "$bin" payments capture --input "$file" >"$work/out" 2>"$work/time" || rc=$?
  local wall rss cpu
  wall=$(sed -nE 's/.*Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (.*)/\1/p' "$work/time")
  rss=$(sed -nE 's/.*Maximum resident set size \(kbytes\): ([0-9]+)/\1/p' "$work/time")
  # bnpl's own CPU time (user + system): on a shared machine the wall
  # time moves with the load, this much less.
  cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.1f", s }' "$work/time")
  printf '%-40s exit %d  wall %8s  cpu %6ss  peak RSS %6.1f MB  report lines %d\n' "$name" "$rc" "$wall" "$cpu" \
    "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "$(($(wc -l <"$file.report.csv") - 1))"
  grep -E '^[0-9]+ rows' "$work/time" | sed 's/^/    /' || true
}

echo "== $(nproc) CPUs; sandbox in memory"
for which in after before; do
  bin=$work/bnpl
  if [ "$which" = before ]; then
    [ -n "${BEFORE:-}" ] || continue
    bin=$BEFORE
  fi
  fresh
  cp "$work/seed.csv" "$work/run10k.csv"
  measure "$which: run 10,000 rows, 2,500 payments" "$bin" "$work/run10k.csv"
  fresh
  tail -n +2 "$work/seed.csv" | cut -d, -f1 | sort -u >"$work/ids"
  awk -v n="$big" 'BEGIN { print "payment_id,amount,reference_id" } { id[NR] = $0 } END {
    for (i = 0; i < n; i++) printf "%s,0.01,R%d\n", id[i % NR + 1], i }' "$work/ids" >"$work/big.csv"
  measure "$which: run $big rows, 2,500 payments" "$bin" "$work/big.csv"
done
