#!/usr/bin/env bash
# Reward-server latency of normal verifies while 1% of the requests are runaways (a prediction that
# never ends, stopped by a 1 s deadline), at a steady offered load (issue 12).
# Usage: bench/serve_runaways.sh [path/to/sqlgrade] [seconds] [requests/s] [max-concurrency]
#
# One server (--timeout 1), two wrk runs at once (wrk from Debian: apt-get install wrk):
#  * 32 connections send normal verifies (the four bodies of bench/serve.sh, golds cached), each
#    waiting 32000 / (0.99 R) ms before every request: 99% of R requests/s;
#  * runaway connections (2, or more above 200 requests/s) each wait so that they offer 1% of R.
# wrk 4.1 is closed-loop (Debian has no wrk2): a connection stalled behind runaways sends nothing
# until its reply, so the percentiles leave out requests that would have arrived during a stall;
# with 32 paced connections (delay >> latency) the normal stream stays close to R all the same, and
# the achieved rates are printed. Bounded: two wrk runs of $seconds against 127.0.0.1 only.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$here/build/sqlgrade}"
secs="${2:-30}"
rate="${3:-100}"
conc="${4:-2}"
. "$here/bench/serve_common.sh"
serve_start "$cli" --max-concurrency "$conc" --timeout 1
url="http://127.0.0.1:$port/verify"

normal_conns=32
normal_delay=$(awk -v r="$rate" -v c="$normal_conns" 'BEGIN { printf "%d", c * 1000 / (0.99 * r) }')
runaway_conns=$(awk -v r="$rate" 'BEGIN { c = int(0.02 * r + 0.999); if (c < 2) c = 2; print c }')
# each runaway request takes ~1000 ms, then the connection waits: c / (1 + d/1000) = 0.01 r
runaway_delay=$(awk -v r="$rate" -v c="$runaway_conns" 'BEGIN { d = (c / (0.01 * r) - 1) * 1000; if (d < 0) d = 0; printf "%d", d }')
echo "sqlgrade serve on 127.0.0.1:$port: max-concurrency $conc, --timeout 1; offered $rate requests/s for ${secs}s" \
     "(normal: $normal_conns connections x 1 per ${normal_delay} ms; runaway: $runaway_conns x 1 per 1000+${runaway_delay} ms;" \
     "cores: $(nproc), load before: $(cut -d' ' -f1-3 /proc/loadavg))"
# warm the gold cache
SQLGRADE_BENCH_DELAY_MS=0 wrk -t1 -c1 -d1s -s "$here/bench/serve_verify.lua" "$url" > /dev/null
SQLGRADE_BENCH_BODIES=runaway SQLGRADE_BENCH_DELAY_MS="$runaway_delay" \
  wrk -t1 -c"$runaway_conns" -d"${secs}s" --timeout 30s --latency -s "$here/bench/serve_verify.lua" "$url" > "$tmp/runaway" &
rpid=$!
SQLGRADE_BENCH_DELAY_MS="$normal_delay" \
  wrk -t2 -c"$normal_conns" -d"${secs}s" --timeout 30s --latency -s "$here/bench/serve_verify.lua" "$url" > "$tmp/normal"
wait "$rpid"
echo "== normal verifies"
grep -E "^ +(50|75|90|99)%|requests in|Requests/sec|Non-2xx|Socket errors" "$tmp/normal"
echo "== runaway verifies (each stopped at the 1 s deadline)"
grep -E "^ +(50|99)%|requests in|Requests/sec|Non-2xx|Socket errors" "$tmp/runaway"
curl -s "http://127.0.0.1:$port/health"; echo
serve_stop
