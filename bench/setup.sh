# Sourced by the benchmarks that drive a served sandbox (list.sh, walk.sh,
# order.sh, bulk.sh, bulkplan.sh, bulkrun.sh): builds bnpl, the load tool
# and the bulk file tool into a temporary directory, gives them a
# home of their own and a sandbox address, and stops the server on exit.
# Sets work, port, state, server and stop.
work=$(mktemp -d)
port=${BENCH_PORT:-$((20000 + RANDOM % 20000))}
go build -trimpath -ldflags "-s -w" -o "$work/bnpl" .
go build -o "$work/load" ./bench/load
go build -o "$work/bulkload" ./bench/bulkload
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"
export BNPL_SECRET_KEY=sk_test_ae_sandbox BNPL_BASE_URL="http://127.0.0.1:$port" BNPL_MERCHANT_CODE=ae-sandbox
state="$work/state.db"
server=
stop() { if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; server=; fi; }
trap 'stop; rm -rf "$work"' EXIT
