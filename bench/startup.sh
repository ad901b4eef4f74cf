#!/usr/bin/env bash
# Whole-process time of `sqlgrade spider --etype match` on the Spider dev set (1,034 pairs), and
# whether the process maps libduckdb (it must not: DuckDB is loaded on first use, only by `uda`).
#
#   bench/startup.sh [BIN ...]        default: build/sqlgrade; RUNS=30 (env) runs per binary
#
# Prints per binary: min / median / mean wall ms over RUNS runs (after 3 warm-up runs) of the match
# run and of `sqlgrade --help` (start-up and exit only), and the libduckdb check (LD_DEBUG=files of
# one match run). Needs SQLGRADE_DATA (default ../shared/data).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
data=${SQLGRADE_DATA:-$here/../shared/data}
runs=${RUNS:-30}
[ $# -gt 0 ] || set -- "$here/build/sqlgrade"
gold=$data/spider/dev_gold.sql
pred=$data/preds/spider_dev/dail-sql_gpt4/pred.txt
[ -f "$gold" ] || { echo "startup.sh: no Spider dev data under $data (set SQLGRADE_DATA)" >&2; exit 2; }
args=(spider --etype match --gold "$gold" --pred "$pred" --db "$data/spider/database"
      --table "$data/spider/tables.json" --no-progress)
# timed CMD...: min / median / mean wall time of RUNS runs, after 3 warm-up runs
timed() {
  for _ in 1 2 3; do "$@" >/dev/null 2>&1 || true; done
  local times=() t0 t1 i
  for ((i = 0; i < runs; i++)); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    t1=$(date +%s%N)
    times+=($(((t1 - t0) / 1000)))
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1; s+=$1} END {
    printf "min %.1f ms  median %.1f ms  mean %.1f ms", a[1]/1000, (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)/1000, s/NR/1000}'
}
for bin in "$@"; do
  stats=$(timed "$bin" "${args[@]}")
  help=$(timed "$bin" --help)
  dbg=$(LD_DEBUG=files "$bin" "${args[@]}" 2>&1 >/dev/null || true)
  if grep -q 'file=.*libduckdb' <<<"$dbg"; then duck="libduckdb LOADED"; else duck="libduckdb not loaded"; fi
  linked=$(ldd "$bin" | grep -c duckdb || true)
  echo "$bin: $runs runs: spider --etype match: $stats | --help: $help; $duck (ldd lists duckdb: $linked)"
done
