#!/usr/bin/env bash
# The four ratios bnpl's speed is judged by, in one run on one machine:
#
#   1. start-up   `bnpl version` / the design card's floor (bench/floor: a
#                 cobra program linking cobra, viper, resty, tablewriter,
#                 decimal and uuid) — goal at most 1.2x;
#   2. one call   `bnpl payments get ID -o json` / curl of the same URL, the
#                 sandbox served — goal at most 1.0x;
#   3. reads      the sandbox's GET /api/v2/payments/{id}, state in a file,
#                 request log on, under `wrk -t2 -c32` / a bare net/http
#                 server answering the same bytes (bench/bare) — goal at
#                 least 0.5x in requests/s, p99 at most 1.5x;
#   4. stripe     the same sandbox / stripe-mock's GET charge — measured only
#                 when a stripe-mock binary is on PATH (or STRIPE_MOCK names
#                 one: `go install github.com/stripe/stripe-mock@latest`);
#                 without one the script says so;
#   5. writes     checkouts, captures of 0.01 and refunds of 0.01 (POST, a
#                 fresh reference_id each) / stripe-mock's POST of a charge
#                 and of a charge's capture — goal at least 1.5x in
#                 requests/s, p99 at most 50 ms. Each write is also set
#                 against the bare server, like the reads.
#
# Everything is built from this checkout as the release builds it
# (CGO_ENABLED=0 -trimpath -ldflags "-s -w"). Each of ROUNDS rounds runs
# the contenders of each ratio interleaved (the start-ups RUNS times each,
# in alternating order; the servers one after the other, the order swapped
# every round), so a change in the machine's load hits both sides alike;
# every ratio is the median of the rounds' ratios, with their range. With
# valgrind installed, start-up is also counted in instructions (the least
# of three runs), which other work on the machine does not disturb.
#
# Usage: bench/ratios.sh [ROUNDS] [RUNS] [DURATION]   (default 5 100 5s)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
runs=${2:-100}
dur=${3:-5s}
work=$(mktemp -d)
port=${BENCH_PORT:-$((20000 + RANDOM % 20000))}
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
for tool in curl wrk; do
  command -v "$tool" >/dev/null || { echo "bench/ratios.sh needs $tool" >&2; exit 1; }
done

export CGO_ENABLED=0
flags=(-trimpath -ldflags "-s -w")
go build "${flags[@]}" -o "$work/bnpl" .
go build "${flags[@]}" -o "$work/floor" ./bench/floor
go build "${flags[@]}" -o "$work/bare" ./bench/bare
go build -o "$work/load" ./bench/load
export HOME="$work/home" XDG_CONFIG_HOME="$work/home/.config" XDG_STATE_HOME="$work/home/.state" XDG_CACHE_HOME="$work/home/.cache"
mkdir -p "$HOME"
key=sk_test_ae_sandbox

# The sandbox: a state file seeded with payments to capture and to refund
# (in-process, through the sandbox's own handler), served with the
# request log on (the default). Enough of each that no payment reaches
# the sandbox's bound of 100 captures or refunds over every round (at
# 10,000 moves a second, five rounds of 5 s leave each at 84): a move the
# bound refuses is a cheap 400, not a write.
state="$work/state.db"
seeded=${BENCH_PAYMENTS:-3000}
"$work/load" seed -state "$state" -n "$seeded" -ids "$work/capture.ids" 2>/dev/null
"$work/load" seed -state "$state" -n "$seeded" -captured -ids "$work/refund.ids" 2>/dev/null
"$work/bnpl" sandbox serve --state "$state" --ae-addr "127.0.0.1:$port" --sa-addr "127.0.0.1:$((port + 1))" >"$work/serve.log" 2>&1 &
pids+=($!)
base="http://127.0.0.1:$port"
for _ in $(seq 100); do curl -sf "$base/_sandbox/clock" >/dev/null && break; sleep 0.05; done
export BNPL_SECRET_KEY=$key BNPL_BASE_URL=$base BNPL_MERCHANT_CODE=ae-sandbox
id=$("$work/bnpl" api POST /api/v2/checkout --input testdata/checkout.json --jq .payment.id)
"$work/bnpl" sandbox approve "$id" --sandbox-url "$base" -q >/dev/null
url="$base/api/v2/payments/$id"
printf 'header = "Authorization: Bearer %s"\n' "$key" >"$work/curlrc"
curl -sf -K "$work/curlrc" "$url" >"$work/body.json"
"$work/bare" -addr "127.0.0.1:$((port + 2))" -body "$work/body.json" &
pids+=($!)
bare="http://127.0.0.1:$((port + 2))"
for _ in $(seq 100); do curl -sf "$bare/" >/dev/null && break; sleep 0.05; done
cmp -s "$work/body.json" <("$work/bnpl" payments get "$id" -o json) ||
  echo "note: bnpl -o json and curl printed the payment differently (formatting)" >&2

stripe=${STRIPE_MOCK:-$(command -v stripe-mock || true)}
if [ -n "$stripe" ]; then
  "$stripe" -http-port "$((port + 3))" >"$work/stripe.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do curl -sf -u sk_test_123: "http://127.0.0.1:$((port + 3))/v1/charges/ch_1" >/dev/null && break; sleep 0.1; done
fi
stripe_url=http://127.0.0.1:$((port + 3))

cat >"$work/get.lua" <<LUA
wrk.headers["Authorization"] = "Bearer $key"
LUA
cat >"$work/stripe.lua" <<'LUA'
wrk.headers["Authorization"] = "Bearer sk_test_123"
LUA
# A move of 0.01 with a fresh reference_id on each request, across the
# seeded payments: each of wrk's two threads takes every other payment in
# turn (its 16 connections then move 16 different payments at a time, so
# a payment's lock answers 409 only when the sandbox falls a lap behind),
# and numbers its references apart, and each round's apart from the
# others' (a reference sent again is an idempotent repeat, answered
# without a write).
move_lua() { # OP IDS ROUND
  cat <<LUA
local ids, n = {}, 0
for line in io.lines("$2") do ids[#ids + 1] = line end
tid = 1 -- set per thread by setup: 1 or 2
local next_tid = 0
function setup(thread) next_tid = next_tid + 1; thread:set("tid", next_tid) end
request = function()
  n = n + 1
  local per = math.floor(#ids / 2)
  local path = "/api/v2/payments/" .. ids[((n - 1) % per) * 2 + tid] .. "/$1"
  local body = string.format('{"amount": "0.01", "reference_id": "r$3-w%d-%d"}', tid, n)
  return wrk.format("POST", path, {["Authorization"] = "Bearer $key", ["Content-Type"] = "application/json"}, body)
end
LUA
}
# A checkout of the README's example, as an integration's load test sends
# it; the sandbox keeps every one.
tr -d '\n' <testdata/checkout.json | sed 's/\\/\\\\/g; s/"/\\"/g' >"$work/checkout.body"
cat >"$work/checkout.lua" <<LUA
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer $key"
wrk.headers["Content-Type"] = "application/json"
wrk.body = "$(cat "$work/checkout.body")"
LUA
# stripe-mock's writes: a charge, and a charge's capture (it keeps no
# state, so every answer is made up from its fixtures).
cat >"$work/stripe-charge.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer sk_test_123"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "amount=1&currency=usd&source=tok_visa"
LUA
cat >"$work/stripe-capture.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer sk_test_123"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "amount=1"
LUA

us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
median() { sort -g | awk '{a[NR] = $1} END {if (NR) print a[int((NR + 1) / 2)]}'; }
summary() { sort -g | awk '{a[NR] = $1} END {if (NR) printf "%.2fx (rounds %.2f to %.2f)", a[int((NR + 1) / 2)], a[1], a[NR]; else printf "n/a"}'; }

# startups A B: RUNS runs of each command line, alternating which goes
# first; prints the ratio of B's median wall time to A's.
startups() {
  : >"$work/a.t"
  : >"$work/b.t"
  for ((i = 0; i < runs; i++)); do
    for side in $((i % 2)) $(((i + 1) % 2)); do
      local cmd=$1 out=a
      [ "$side" = 1 ] && cmd=$2 out=b
      local s
      s=$(us)
      $cmd >/dev/null 2>&1
      echo $(($(us) - s)) >>"$work/$out.t"
    done
  done
  awk -v a="$(median <"$work/a.t")" -v b="$(median <"$work/b.t")" 'BEGIN {printf "%.4f %d %d\n", b / a, a, b}'
}

# load URL LUA: wrk for DURATION; prints requests/s, p99 in µs and the
# answers that were not 2xx.
load() {
  wrk -t2 -c32 -d"$dur" --latency -s "$2" "$1" 2>/dev/null | awk '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000; if (v ~ /s$/) return v * 1000000; return v }
    /Requests\/sec/ { rps = $2 }
    $1 == "99%" { p99 = us($2) }
    /Non-2xx/ { bad = $NF }
    END { printf "%.0f %.0f %d\n", rps, p99, bad }'
}

: >"$work/r1"; : >"$work/r2"
kinds="read capture refund checkout stripe stripe-charge stripe-capture"
for k in $kinds; do : >"$work/$k.rps"; : >"$work/$k.p99"; : >"$work/$k.raw"; done
for ((r = 1; r <= rounds; r++)); do
  move_lua captures "$work/capture.ids" "$r" >"$work/capture.lua"
  move_lua refunds "$work/refund.ids" "$r" >"$work/refund.lua"
  read -r ratio a b < <(startups "$work/floor version" "$work/bnpl version")
  echo "$ratio" >>"$work/r1"
  printf 'round %d: version %6d us, floor %6d us: %.2fx\n' "$r" "$b" "$a" "$ratio" >&2
  read -r ratio a b < <(startups "curl -sf -K $work/curlrc $url" "$work/bnpl payments get $id -o json")
  echo "$ratio" >>"$work/r2"
  printf 'round %d: payments get %6d us, curl %6d us: %.2fx\n' "$r" "$b" "$a" "$ratio" >&2

  for k in $kinds; do
    case $k in
      read) target=$url lua=$work/get.lua ;;
      capture) target=$base lua=$work/capture.lua ;;
      refund) target=$base lua=$work/refund.lua ;;
      checkout) target=$base/api/v2/checkout lua=$work/checkout.lua ;;
      stripe | stripe-*) [ -n "$stripe" ] || continue ;;&
      stripe) target=$stripe_url/v1/charges/ch_1 lua=$work/stripe.lua ;;
      stripe-charge) target=$stripe_url/v1/charges lua=$work/stripe-charge.lua ;;
      stripe-capture) target=$stripe_url/v1/charges/ch_1/capture lua=$work/stripe-capture.lua ;;
    esac
    if ((r % 2)); then
      read -r brps bp99 _ < <(load "$bare/" "$work/get.lua")
      read -r rps p99 bad < <(load "$target" "$lua")
    else
      read -r rps p99 bad < <(load "$target" "$lua")
      read -r brps bp99 _ < <(load "$bare/" "$work/get.lua")
    fi
    awk -v a="$rps" -v b="$brps" 'BEGIN {printf "%.4f\n", a / b}' >>"$work/$k.rps"
    awk -v a="$p99" -v b="$bp99" 'BEGIN {printf "%.4f\n", a / b}' >>"$work/$k.p99"
    echo "$rps $p99 $brps $bp99 $bad" >>"$work/$k.raw"
    printf 'round %d: %-14s %6d req/s p99 %6d us (not 2xx: %d), bare %6d req/s p99 %6d us\n' "$r" "$k" "$rps" "$p99" "${bad:-0}" "$brps" "$bp99" >&2
  done
done

raw() { # KIND: medians of the raw figures
  awk '{print $1}' "$work/$1.raw" | median | tr '\n' ' '
  awk '{print $2}' "$work/$1.raw" | median | tr '\n' ' '
  awk '{print $3}' "$work/$1.raw" | median | tr '\n' ' '
  awk '{print $4}' "$work/$1.raw" | median
}

echo
echo "bench/ratios.sh: $rounds rounds ($runs start-ups a side, wrk -t2 -c32 -d$dur), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '1. bnpl version / floor version                  %s   goal <= 1.2x\n' "$(summary <"$work/r1")"
printf '2. bnpl payments get -o json / curl              %s   goal <= 1.0x\n' "$(summary <"$work/r2")"
read -r rps p99 brps bp99 < <(raw read)
printf '3. sandbox GET payment / bare net/http, req/s    %s   goal >= 0.5x   (%s vs %s req/s)\n' "$(summary <"$work/read.rps")" "$rps" "$brps"
printf '   p99 of the same                               %s   goal <= 1.5x   (%s vs %s us)\n' "$(summary <"$work/read.p99")" "$p99" "$bp99"
if [ -n "$stripe" ]; then
  read -r srps sp99 _ _ < <(raw stripe)
  awk -v a="$rps" -v b="$srps" 'BEGIN {printf "4. sandbox GET payment / stripe-mock GET charge  %.2fx   goal >= 4x   (%s vs %s req/s)\n", a / b, a, b}'
else
  echo "4. sandbox / stripe-mock                         not measured: no stripe-mock on this machine (set STRIPE_MOCK)"
fi
for k in checkout capture refund; do
  read -r rps p99 brps bp99 < <(raw $k)
  printf '   writes: %-8s / bare, req/s              %s   (%s vs %s req/s; p99 %s vs %s us)\n' "$k" "$(summary <"$work/$k.rps")" "$rps" "$brps" "$p99" "$bp99"
done
# A write answered otherwise than 2xx did not happen (a payment at its
# bound, a lock): the rates above count it all the same.
printf '   writes answered other than 2xx, all rounds:  checkout %d, capture %d, refund %d\n' \
  "$(awk '{n += $5} END {print n + 0}' "$work/checkout.raw")" "$(awk '{n += $5} END {print n + 0}' "$work/capture.raw")" \
  "$(awk '{n += $5} END {print n + 0}' "$work/refund.raw")"
if [ -n "$stripe" ]; then
  read -r crps _ _ _ < <(raw stripe-charge)
  read -r prps pp99 _ _ < <(raw stripe-capture)
  read -r _ cp99 _ _ < <(raw stripe-charge)
  for k in checkout capture refund; do
    read -r rps p99 _ _ < <(raw $k)
    # A checkout is set against stripe-mock's new charge, a move against
    # its capture of a charge.
    srps=$prps sp99=$pp99 what="capture"
    [ "$k" = checkout ] && srps=$crps sp99=$cp99 what="charge"
    awk -v k="$k" -v w="$what" -v a="$rps" -v b="$srps" -v p="$p99" -v q="$sp99" 'BEGIN {
      printf "5. sandbox %-8s / stripe-mock POST %-7s %.2fx   goal >= 1.5x   (%d vs %d req/s; p99 %.1f vs %.1f ms, goal <= 50 ms)\n", k, w, a / b, a, b, p / 1000, q / 1000 }'
  done
else
  echo "5. sandbox writes / stripe-mock POST             not measured: no stripe-mock on this machine (set STRIPE_MOCK)"
fi

if command -v valgrind >/dev/null 2>&1; then
  # Go's asynchronous pre-emption signals crash callgrind; without them
  # the program does the same work. The least of three: now and then an
  # idle Go thread spins under valgrind for a whole time slice.
  count() {
    for _ in 1 2 3; do
      GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
    done | sort -n | head -1
  }
  f=$(count "$work/floor" version)
  b=$(count "$work/bnpl" version)
  h=$(count "$work/bnpl" --help)
  g=$(count "$work/bnpl" payments get "$id" -o json)
  awk -v f="$f" -v b="$b" -v h="$h" -v g="$g" 'BEGIN {
    printf "   instructions: floor version %.2f M, bnpl version %.2f M (%.2fx), bnpl --help %.2f M, payments get %.2f M\n", f / 1e6, b / 1e6, b / f, h / 1e6, g / 1e6 }'
fi
