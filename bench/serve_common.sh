# Shared by bench/serve.sh and bench/serve_runaways.sh (sourced): the fixture database, one
# `sqlgrade serve` on 127.0.0.1 (any free port), stopped on exit. Sets $tmp, $pid, $port.
command -v wrk >/dev/null || { echo "wrk not installed (Debian: apt-get install wrk)" >&2; exit 2; }
tmp="$(mktemp -d)"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
# serve_start CLI [serve flags...]
serve_start() {
  local cli="$1"
  shift
  mkdir -p "$tmp/dbs"
  sqlite3 "$tmp/dbs/shop.sqlite" < "$here/tests/fixtures/serve/shop.sql"
  "$cli" serve --port 0 --db-dir "$tmp/dbs" "$@" > "$tmp/out" 2> "$tmp/err" &
  pid=$!
  for _ in $(seq 100); do grep -q listening "$tmp/out" 2>/dev/null && break; sleep 0.05; done
  port="$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/out" | head -1)"
  [ -n "$port" ] || { echo "server did not start:"; cat "$tmp/err"; exit 1; }
}
# serve_stop: SIGTERM, wait, print the server's summary line
serve_stop() {
  kill -TERM "$pid"; wait "$pid" || true; pid=""
  tail -1 "$tmp/err"
}
