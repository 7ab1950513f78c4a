#!/usr/bin/env bash
# One `bnpl payments get` against the same request through curl, both on a
# running `bnpl sandbox serve`: RUNS runs each, medians and the ratio. The
# gap is bnpl's own cost per call (start-up, config, client, rendering).
# Usage: bench/get.sh [RUNS]   (default 200)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-200}
work=$(mktemp -d)
port=${BENCH_PORT:-18700}
go build -trimpath -ldflags "-s -w" -o "$work/bnpl" .
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"
"$work/bnpl" sandbox serve --state :memory: --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >/dev/null 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; wait "$server" 2>/dev/null; rm -rf "$work"' EXIT
base="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$base/_sandbox/clock" >/dev/null && break; sleep 0.05; done

export BNPL_SECRET_KEY=sk_test_ae_sandbox BNPL_BASE_URL=$base BNPL_MERCHANT_CODE=ae-sandbox
id=$("$work/bnpl" api POST /api/v2/checkout --input testdata/checkout.json --jq .payment.id)
"$work/bnpl" sandbox approve "$id" --sandbox-url "$base" -q >/dev/null

# median wall time in microseconds of RUNS executions of the command
median_us() {
  local times=()
  for ((i = 0; i < runs; i++)); do
    local start end
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1
    end=$(date +%s%N)
    times+=($(((end - start) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

curl_us=$(median_us curl -sf -H "Authorization: Bearer $BNPL_SECRET_KEY" "$base/api/v2/payments/$id")
json_us=$(median_us "$work/bnpl" payments get "$id" -o json)
table_us=$(median_us "$work/bnpl" payments get "$id")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
printf 'runs: %d\n' "$runs"
printf 'curl:                        %6d us\n' "$curl_us"
printf 'bnpl payments get -o json:   %6d us  (%sx curl)\n' "$json_us" "$(ratio "$json_us" "$curl_us")"
printf 'bnpl payments get (tsv):     %6d us  (%sx curl)\n' "$table_us" "$(ratio "$table_us" "$curl_us")"
