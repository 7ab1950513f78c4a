#!/usr/bin/env bash
# Start-up cost of bnpl against the floor of any Go binary: builds bnpl and a
# minimal Go program on the spot, runs `bnpl version`, `bnpl --help` and the
# minimal program RUNS times each, and prints the medians and the ratios.
# Usage: bench/startup.sh [RUNS]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -trimpath -ldflags "-s -w" -o "$work/bnpl" .
mkdir -p "$work/minimal"
cat > "$work/minimal/main.go" <<'GO'
package main

import "fmt"

func main() { fmt.Println("minimal") }
GO
(cd "$work/minimal" && go mod init minimal >/dev/null 2>&1 && go build -trimpath -ldflags "-s -w" -o "$work/min" .)

# The floor of any cobra CLI: one command, nothing else. Built inside this
# module so it uses the same cobra version, offline.
mkdir -p bench/.cobrafloor
trap 'rm -rf "$work" bench/.cobrafloor' EXIT
cat > bench/.cobrafloor/main.go <<'GO'
package main

import "github.com/spf13/cobra"

func main() {
	root := &cobra.Command{Use: "floor", Run: func(*cobra.Command, []string) {}}
	root.AddCommand(&cobra.Command{Use: "version", Run: func(*cobra.Command, []string) { println("floor") }})
	_ = root.Execute()
}
GO
go build -trimpath -ldflags "-s -w" -o "$work/cobra" ./bench/.cobrafloor

# median wall time in microseconds of RUNS executions of the command
median_us() {
  local times=()
  for ((i = 0; i < runs; i++)); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state"
min=$(median_us "$work/min")
cob=$(median_us "$work/cobra" version)
ver=$(median_us "$work/bnpl" version)
help=$(median_us "$work/bnpl" --help)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf 'runs: %d\n' "$runs"
printf 'minimal Go program: %6d us\n' "$min"
printf 'minimal cobra CLI:  %6d us  (%sx)\n' "$cob" "$(ratio "$cob" "$min")"
printf 'bnpl version:       %6d us  (%sx)\n' "$ver" "$(ratio "$ver" "$min")"
printf 'bnpl --help:        %6d us  (%sx)\n' "$help" "$(ratio "$help" "$min")"
printf 'bnpl version against the cobra floor: %sx\n' "$(ratio "$ver" "$cob")"
