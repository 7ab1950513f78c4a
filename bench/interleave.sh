# Sourced by the benchmarks that time commands against each other (get.sh,
# startup.sh). interleave RUNS runs the commands of cmds, named by names,
# RUNS rounds, each round in a rotating order, so that a change in the
# machine's load hits all of them alike, and writes each one's wall times
# in microseconds to $work/NAME.times; median and ratio read them.

# Wall time in microseconds, without forking a clock.
us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }

interleave() {
  local runs=$1 count=${#names[@]} n i k j start end
  for n in "${names[@]}"; do : >"$work/$n.times"; done
  for ((i = 0; i < runs; i++)); do
    for ((k = 0; k < count; k++)); do
      j=$(((i + k) % count))
      start=$(us)
      ${cmds[$j]} >/dev/null
      end=$(us)
      echo $((end - start)) >>"$work/${names[$j]}.times"
    done
  done
}

median() { sort -n "$1" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
