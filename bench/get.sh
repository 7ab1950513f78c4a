#!/usr/bin/env bash
# One `bnpl payments get ID -o json` against the same request through curl,
# both on a running `bnpl sandbox serve`. RUNS rounds, interleaved (each
# round runs curl, `get -o json` and `get` (tsv, piped) in a rotating order,
# so that a change in the machine's load hits all of them alike); medians of
# wall time and their ratios to curl. Then, with hyperfine installed, the
# same commands under hyperfine's own statistics (not interleaved). The gap
# is bnpl's own cost per call: start-up, config, client, rendering.
# Usage: bench/get.sh [RUNS]   (default 300)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-300}
work=$(mktemp -d)
port=${BENCH_PORT:-$((20000 + RANDOM % 20000))}
# Static, as the release builds it (CGO_ENABLED=0: no dynamic loader).
export CGO_ENABLED=0
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

# curl reads the key from a file, so that it is not on a command line.
printf 'header = "Authorization: Bearer %s"\n' "$BNPL_SECRET_KEY" >"$work/curlrc"
names=(curl json tsv)
cmds=("curl -sf -K $work/curlrc $base/api/v2/payments/$id"
  "$work/bnpl payments get $id -o json"
  "$work/bnpl payments get $id")
for c in "${cmds[@]}"; do $c >/dev/null || { echo "failed: $c" >&2; exit 1; }; done
cmp <(${cmds[0]} | python3 -m json.tool --sort-keys) <(${cmds[1]} | python3 -m json.tool --sort-keys) >/dev/null ||
  echo "warning: bnpl -o json and curl printed different payments" >&2

. bench/interleave.sh
interleave "$runs"
c=$(median "$work/curl.times") j=$(median "$work/json.times") t=$(median "$work/tsv.times")
printf 'interleaved runs: %d each, medians of wall time\n' "$runs"
printf '  curl                        %6d us\n' "$c"
printf '  bnpl payments get -o json   %6d us  %sx curl\n' "$j" "$(ratio "$j" "$c")"
printf '  bnpl payments get (tsv)     %6d us  %sx curl\n' "$t" "$(ratio "$t" "$c")"

if command -v hyperfine >/dev/null 2>&1; then
  echo
  echo "hyperfine (-N, $runs runs each, 20 warm-up):"
  hyperfine -N --warmup 20 --runs "$runs" --style basic --export-json "$work/hf.json" \
    -n curl "${cmds[0]}" -n json "${cmds[1]}" -n tsv "${cmds[2]}" >/dev/null 2>&1
  python3 - "$work/hf.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
for n in ("curl", "json", "tsv"):
    x = r[n]
    print(f"  {n:<6} median {x['median'] * 1e6:6.0f} us   mean {x['mean'] * 1e6:6.0f} us ± {x['stddev'] * 1e6:4.0f}   {x['median'] / r['curl']['median']:.2f}x curl")
PY
fi
