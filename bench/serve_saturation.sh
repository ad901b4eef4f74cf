#!/usr/bin/env bash
# Saturation of `sqlgrade serve` (issue 34 item 4): verifies/s and latency percentiles with 1x, 4x and
# 16x the worker count of concurrent closed-loop clients (wrk connections), then 16x clients sending only
# runaway predictions with a short --queue-timeout (every wait is bounded: a 503 with Retry-After,
# never an unbounded queue). The floor beside the figures: one client back to back (1 connection),
# i.e. one verify's latency with nothing queued, and its verifies/s.
# Usage: bench/serve_saturation.sh [path/to/sqlgrade] [seconds] [workers]
# Bounded: five wrk runs of $seconds (default 8) against 127.0.0.1 only; the servers are stopped after.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$here/build/sqlgrade}"
secs="${2:-8}"
workers="${3:-4}"
. "$here/bench/serve_common.sh"
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); workers $workers, max-queue 64, ${secs}s per row"
# one wrk run -> "clients  verifies/s  p50  p99  non-2xx"
row() {
  local label="$1" conns="$2"
  shift 2
  local out
  out="$(env "$@" wrk -t"$(( conns < 2 ? 1 : 2 ))" -c"$conns" -d"${secs}s" --timeout 30s --latency -s "$here/bench/serve_verify.lua" \
         "http://127.0.0.1:$port/verify")"
  local rps p50 p99 bad
  rps="$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' <<<"$out")"
  p50="$(awk '$1=="50%"{print $2}' <<<"$out")"
  p99="$(awk '$1=="99%"{print $2}' <<<"$out")"
  bad="$(sed -n 's/.*Non-2xx or 3xx responses: *\([0-9]*\).*/\1/p' <<<"$out")"
  printf '| %-34s | %5s | %10s | %9s | %9s | %7s |\n' "$label" "$conns" "$rps" "$p50" "$p99" "${bad:-0}"
}
printf '| %-34s | %5s | %10s | %9s | %9s | %7s |\n' "load" "conns" "replies/s" "p50" "p99" "503s"
echo "|---|---|---|---|---|---|"
serve_start "$cli" --max-concurrency "$workers" --max-queue 64 --timeout 5 --queue-timeout 30
row "floor: 1 client back to back" 1
row "1x workers" "$workers"
row "4x workers" $((4 * workers))
row "16x workers" $((16 * workers))
curl -s "http://127.0.0.1:$port/health" | tr ',' '\n' | grep -E '"(saturated|rejected_busy|verifies)"' | tr '\n' ' '; echo
serve_stop
# Saturated for real: every request holds its worker until --timeout 1; the queue can only wait
# --queue-timeout 0.5 s, so the clients past the workers get 503 (Retry-After: 1) within ~0.5 s.
rm -f "$tmp/dbs/shop.sqlite"  # serve_start builds it again
serve_start "$cli" --max-concurrency "$workers" --max-queue 64 --timeout 1 --queue-timeout 0.5
row "16x workers, runaways only" $((16 * workers)) SQLGRADE_BENCH_BODIES=runaway
curl -s "http://127.0.0.1:$port/health" | tr ',' '\n' | grep -E '"(saturated|rejected_busy|verifies)"' | tr '\n' ' '; echo
serve_stop
