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
command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)" >&2; exit 2; }
tmp="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/dbs"
sqlite3 "$tmp/dbs/shop.sqlite" < "$here/tests/fixtures/serve/shop.sql"
"$cli" serve --port 0 --db-dir "$tmp/dbs" --max-concurrency "$conc" --timeout 5 > "$tmp/out" 2> "$tmp/err" &
pid=$!
for _ in $(seq 100); do grep -q listening "$tmp/out" 2>/dev/null && break; sleep 0.05; done
port="$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/out" | head -1)"
[ -n "$port" ] || { echo "server did not start:"; cat "$tmp/err"; exit 1; }
# warm the gold cache once per body
curl -s -o /dev/null "http://127.0.0.1:$port/health" || true
echo "sqlgrade serve on 127.0.0.1:$port, max-concurrency $conc; wrk -t2 -c$conns -d${secs}s (cores: $(nproc))"
wrk -t2 -c"$conns" -d"${secs}s" --latency -s "$here/bench/serve_verify.lua" "http://127.0.0.1:$port/verify"
curl -s "http://127.0.0.1:$port/health"; echo
kill -TERM "$pid"; wait "$pid" || true; pid=""
tail -1 "$tmp/err"
