#!/usr/bin/env bash
# Load test of `sqlgrade serve` on loopback with cached golds and small results (wrk from Debian).
# Usage: bench/serve.sh [path/to/sqlgrade] [seconds] [connections] [max-concurrency]
# Bounded: one wrk run of $seconds (default 10) against 127.0.0.1 only; the server is stopped after.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$here/build/sqlgrade}"
secs="${2:-10}"
conns="${3:-32}"
conc="${4:-2}"
. "$here/bench/serve_common.sh"
serve_start "$cli" --max-concurrency "$conc" --timeout 5
# warm the gold cache once per body
curl -s -o /dev/null "http://127.0.0.1:$port/health" || true
echo "sqlgrade serve on 127.0.0.1:$port, max-concurrency $conc; wrk -t2 -c$conns -d${secs}s (cores: $(nproc))"
wrk -t2 -c"$conns" -d"${secs}s" --latency -s "$here/bench/serve_verify.lua" "http://127.0.0.1:$port/verify"
curl -s "http://127.0.0.1:$port/health"; echo
serve_stop
