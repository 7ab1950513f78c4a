#!/usr/bin/env bash
# Start-up cost of `bnpl version` against two floors, built on the spot:
#   hello  a hello-world Go program (fmt.Println), its own module;
#   floor  the design card's floor (bench/floor): a cobra CLI linking cobra,
#          viper, resty, tablewriter, decimal and uuid at the versions of
#          bnpl's go.mod, which does nothing but print a version line;
#   floor+ the same floor also linking the libraries bnpl uses beyond the
#          design card (gojq, modernc sqlite, progressbar, go-keyring), so
#          that what their initialisation costs is told from bnpl's own.
# All four are built like the release (CGO_ENABLED=0 -trimpath -ldflags "-s -w") into a
# temporary directory and run RUNS rounds, interleaved (each round runs the
# four in a rotating order, so that a change in the machine's load hits all
# of them alike); the figures are medians of wall time and the ratios of
# the medians. Then, where the tools exist:
#   hyperfine      the same four, its own statistics (not interleaved);
#   callgrind      instructions executed, the least of 3 runs each (repeatable
#                  to about 2%);
#   perf stat      task clock and page faults, RUNS/4 runs each.
# Usage: bench/startup.sh [RUNS]   (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Static, as the release builds it (CGO_ENABLED=0: no dynamic loader).
export CGO_ENABLED=0
flags=(-trimpath -ldflags "-s -w")
go build "${flags[@]}" -o "$work/bnpl" .
go build "${flags[@]}" -o "$work/floor" ./bench/floor
go build "${flags[@]}" -tags floorextra -o "$work/floorx" ./bench/floor
mkdir -p "$work/hello"
cat >"$work/hello/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("hello") }
GO
(cd "$work/hello" && go mod init hello >/dev/null 2>&1 && go build "${flags[@]}" -o "$work/hello-bin" .)

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"
names=(hello floor floor+ bnpl)
cmds=("$work/hello-bin" "$work/floor version" "$work/floorx version" "$work/bnpl version")
count=${#names[@]}
for c in "${cmds[@]}"; do $c >/dev/null 2>&1 || { echo "failed: $c" >&2; exit 1; }; done

. bench/interleave.sh
interleave "$runs" 2>/dev/null
h=$(median "$work/hello.times") f=$(median "$work/floor.times") x=$(median "$work/floor+.times") b=$(median "$work/bnpl.times")
size() { stat -c %s "$1" | awk '{printf "%.1f MB", $1 / 1e6}'; }
printf 'interleaved runs: %d each, medians of wall time\n' "$runs"
printf '  hello-world         %6d us   %s\n' "$h" "$(size "$work/hello-bin")"
printf '  floor version       %6d us   %s   %sx hello\n' "$f" "$(size "$work/floor")" "$(ratio "$f" "$h")"
printf '  floor+ version      %6d us   %s   %sx hello   %sx floor\n' "$x" "$(size "$work/floorx")" "$(ratio "$x" "$h")" "$(ratio "$x" "$f")"
printf '  bnpl version        %6d us   %s   %sx hello   %sx floor   %sx floor+\n' "$b" "$(size "$work/bnpl")" "$(ratio "$b" "$h")" "$(ratio "$b" "$f")" "$(ratio "$b" "$x")"

if command -v hyperfine >/dev/null 2>&1; then
  echo
  echo "hyperfine (-N, $runs runs each, 20 warm-up):"
  hyperfine -N --warmup 20 --runs "$runs" --style basic --export-json "$work/hf.json" \
    -n hello "$work/hello-bin" -n floor "$work/floor version" -n floor+ "$work/floorx version" \
    -n bnpl "$work/bnpl version" >/dev/null 2>&1
  python3 - "$work/hf.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
for n in ("hello", "floor", "floor+", "bnpl"):
    x = r[n]
    print(f"  {n:<18} median {x['median'] * 1e6:6.0f} us   mean {x['mean'] * 1e6:6.0f} us ± {x['stddev'] * 1e6:4.0f}")
print(f"  bnpl / floor: {r['bnpl']['median'] / r['floor']['median']:.2f}x   bnpl / floor+: {r['bnpl']['median'] / r['floor+']['median']:.2f}x (medians)")
PY
fi

# Go's asynchronous pre-emption signals crash callgrind; without them the
# program does the same work.
if command -v valgrind >/dev/null 2>&1; then
  echo
  echo "callgrind, instructions executed (all threads):"
  declare -A ins
  for ((k = 0; k < count; k++)); do
    # The least of 3 runs: valgrind runs one thread at a time, and now
    # and then an idle Go thread spins for its whole time slice, adding
    # hundreds of millions of instructions that the program did not need.
    ins[$k]=$(for _ in 1 2 3; do
      GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null ${cmds[$k]} 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    done | sort -n | head -1)
    printf '  %-18s %10d\n' "${names[$k]}" "${ins[$k]}"
  done
  printf '  bnpl / floor: %sx   bnpl / floor+: %sx   bnpl / hello: %sx\n' "$(ratio "${ins[3]}" "${ins[1]}")" \
    "$(ratio "${ins[3]}" "${ins[2]}")" "$(ratio "${ins[3]}" "${ins[0]}")"
fi

if command -v perf >/dev/null 2>&1 && perf stat -e task-clock true >/dev/null 2>&1; then
  echo
  echo "perf stat ($((runs / 4)) runs each): task clock, page faults"
  for ((k = 0; k < count; k++)); do
    perf stat -x, -e task-clock,page-faults -r $((runs / 4)) ${cmds[$k]} 2>&1 >/dev/null |
      awk -F, -v n="${names[$k]}" '$3 == "task-clock" {tc = $1} $3 == "page-faults" {pf = $1} END {printf "  %-18s %6.2f ms CPU   %5d page faults\n", n, tc, pf}'
  done
fi
