#!/usr/bin/env bash
# Peak memory of `bnpl sandbox verify` on large recordings:
#   real   a real-shaped recording of SIZE MB: a `bnpl smoke` run recorded
#          through `bnpl sandbox record` in front of a served sandbox, with
#          `bnpl listen --record` adding its notifications (10 requests, 6
#          notifications, the payment bodies bnpl sends and the answers the
#          sandbox gives), repeated by bench/bighar with every id made new
#          in each copy and the times moved on, until the file holds SIZE MB;
#   empties  1,000,000 entries of `{}` (3 MB, the hostile file), refused at
#          the default --max-entries and read whole with --max-entries 2000000.
# Prints /usr/bin/time -v's maximum resident set size and wall time of each.
# BNPL=/path/to/bnpl measures that build instead of one built here.
# Usage: bench/bighar.sh [SIZE_MB]   (default 100)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-100}
work=${BENCH_WORK:-$(mktemp -d)}
port=${BENCH_PORT:-18930}
server=
stop() { if [ -n "$server" ]; then kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; server=; fi; }
trap 'stop; [ -n "${BENCH_WORK:-}" ] || rm -rf "$work"' EXIT
bnpl=${BNPL:-}
if [ -z "$bnpl" ]; then
	go build -trimpath -o "$work/bnpl" .
	bnpl="$work/bnpl"
fi
go build -o "$work/bighar" ./bench/bighar
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"

# The seed: one smoke run, recorded with its notifications.
"$bnpl" sandbox serve --state :memory: --ae-addr "127.0.0.1:$port" --sa-addr 127.0.0.1:0 --allow-local-webhooks >/dev/null 2>&1 &
server=$!
for _ in $(seq 200); do curl -sf "http://127.0.0.1:$port/_sandbox/clock" >/dev/null && break; sleep 0.05; done
export BNPL_SECRET_KEY=sk_test_ae_sandbox BNPL_BASE_URL="http://127.0.0.1:$port" BNPL_MERCHANT_CODE=ae-sandbox
"$bnpl" listen --register --addr "127.0.0.1:$((port + 1))" --record "$work/seed.har" --max 6 >/dev/null 2>&1 &
listen=$!
for _ in $(seq 200); do curl -s "http://127.0.0.1:$((port + 1))/" >/dev/null && break; sleep 0.05; done
"$bnpl" sandbox record "$work/seed.har" --addr 127.0.0.1:0 -- "$bnpl" smoke >/dev/null 2>&1
wait "$listen"
stop
unset BNPL_SECRET_KEY BNPL_BASE_URL BNPL_MERCHANT_CODE

"$work/bighar" -seed "$work/seed.har" -mb "$size" -out "$work/big.har"
"$work/bighar" -empties 1000000 -out "$work/empties.har"
ls -l "$work/seed.har" "$work/big.har" "$work/empties.har" | awk '{print $5, $9}'

measure() {
	local name=$1
	shift
	/usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt" || true
	printf '%-40s peak %s kB, wall %s, %s\n' "$name" \
		"$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")" \
		"$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt")" \
		"$(grep -E 'difference|replayed|holds more' "$work/time.txt" | tr '\n' ' ')"
}
measure "verify big.har (${size} MB)" "$bnpl" sandbox verify "$work/big.har" --max-entries 10000000
measure "verify empties.har" "$bnpl" sandbox verify "$work/empties.har"
measure "verify empties.har --max-entries 2000000" "$bnpl" sandbox verify "$work/empties.har" --max-entries 2000000
