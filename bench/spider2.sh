#!/usr/bin/env bash
# End-to-end timing of `sqlgrade spider2` on the shared Spider 2.0-Lite data (local subset):
#   exec_result: the 135 gold CSVs (first alternative) as predictions;
#   exec_result --v2: the same with the tolerant metrics;
#   sql: the 24 public gold SQL files on the rebuilt SQLite databases.
# Usage: bench/spider2.sh [path/to/sqlgrade] [runs]   (SQLGRADE_DATA defaults to ../shared/data)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="$(realpath "${1:-$here/build/sqlgrade}")"
runs="${2:-10}"
data="${SQLGRADE_DATA:-$here/../shared/data}"
gold="$data/spider2lite/gold"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/gc" "$tmp/sq"
for f in "$gold"/exec_result/local*.csv; do
  b="$(basename "$f" .csv)"
  id="${b%_[a-z]}"
  [ -e "$tmp/gc/$id.csv" ] || cp "$f" "$tmp/gc/$id.csv"
done
cp "$gold"/sql/*.sql "$tmp/sq/"
time_it() {  # label, then the command; prints the mean wall time over $runs runs
  local label="$1"; shift
  local t0 t1
  t0=$(date +%s.%N)
  for _ in $(seq "$runs"); do "$@" >/dev/null; done
  t1=$(date +%s.%N)
  printf '%-40s %8.3f s/run (%d runs)\n' "$label" "$(echo "($t1 - $t0) / $runs" | bc -l)" "$runs"
}
cd "$tmp"
time_it "exec_result, 135 gold copies" "$cli" spider2 --mode exec_result --result_dir gc --gold_dir "$gold" --no-progress
time_it "exec_result --v2, 135 gold copies" "$cli" spider2 --mode exec_result --result_dir gc --gold_dir "$gold" --v2 --errors_log "" --no-progress
time_it "exec_result, 1 worker" "$cli" spider2 --mode exec_result --result_dir gc --gold_dir "$gold" --max_workers 1 --no-progress
time_it "sql, 24 gold SQL" "$cli" spider2 --mode sql --result_dir sq --gold_dir "$gold" --db_dir "$data/spider2lite/databases" --no-progress
echo "official evaluate.py (expected/MANIFEST.json wall_s): gold_copy_first_alt 3.686 s, sql_gold24 1.474 s"
