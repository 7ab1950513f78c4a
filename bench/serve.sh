#!/usr/bin/env bash
# Read throughput of `bnpl sandbox serve`: GET /api/v2/payments/{id} with
# CONNS connections for DURATION (bench/load read), on the in-memory state
# and on a state file, each with the request log on (the default) and off
# (--no-request-log). Prints requests per second and latency percentiles,
# and the server's CPU time per request (Linux: from /proc), which a busy
# machine disturbs less than the throughput. ROUNDS=N repeats the four runs
# N times, interleaved, so that on/off pairs see the same machine.
# Usage: bench/serve.sh [DURATION] [CONNS]   (default 10s 32)
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-10s}
conns=${2:-32}
work=$(mktemp -d)
port=${BENCH_PORT:-18720}
# Static, as the release builds it (CGO_ENABLED=0: no dynamic loader).
export CGO_ENABLED=0
go build -trimpath -ldflags "-s -w" -o "$work/bnpl" .
go build -o "$work/load" ./bench/load
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"
export BNPL_SECRET_KEY=sk_test_ae_sandbox BNPL_BASE_URL="http://127.0.0.1:$port" BNPL_MERCHANT_CODE=ae-sandbox
server=
stop() { if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; server=; fi; }
trap 'stop; rm -rf "$work"' EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }
runs=()
for _ in $(seq "${ROUNDS:-1}"); do runs+=("memory on" "memory off" "file on" "file off"); done
for run in "${runs[@]}"; do
  read -r mode log <<<"$run"
  args=(--state :memory:)
  [ "$mode" = file ] && args=(--state "$work/state-$log.db")
  [ "$log" = off ] && args+=(--no-request-log)
  "$work/bnpl" sandbox serve "${args[@]}" --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >/dev/null 2>&1 &
  server=$!
  for _ in $(seq 100); do curl -sf "$BNPL_BASE_URL/_sandbox/clock" >/dev/null && break; sleep 0.05; done
  id=$("$work/bnpl" api POST /api/v2/checkout --input testdata/checkout.json --jq .payment.id)
  "$work/bnpl" sandbox approve "$id" --sandbox-url "$BNPL_BASE_URL" -q >/dev/null
  echo "== state: $mode, request log: $log"
  before=$(cpu_ticks "$server")
  "$work/load" read -url "$BNPL_BASE_URL/api/v2/payments/$id" -c "$conns" -d "$dur" | tee "$work/out"
  sleep 0.3 # the log's last batch
  after=$(cpu_ticks "$server")
  reqs=$(awk '/^requests:/ {print $2}' "$work/out")
  awk -v t=$((after - before)) -v n="$reqs" -v hz="$(getconf CLK_TCK)" \
    'BEGIN { if (n > 0) printf "server cpu:  %.1f µs per request\n", t / hz * 1e6 / n }'
  stop
done
