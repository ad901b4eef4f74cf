#!/usr/bin/env bash
# End-to-end timing of `sqlgrade bird` (EX, 500 Mini-Dev questions, gpt-4o baseline predictions)
# against the SQLite floor (bird_floor: the same 1000 queries prepared and stepped on one thread).
#   bench/bird.sh [BUILD_DIR]      (needs the sqlgrade and bird_floor targets built)
set -euo pipefail
BUILD=${1:-build}
DATA=${SQLGRADE_DATA:-$(dirname "$0")/../../shared/data}
PRED=$DATA/preds/bird_minidev/official_baselines_TA_output/predict_mini_dev_gpt-4-o_cot_SQLite.json
GOLD=$DATA/bird/minidev/mini_dev_sqlite_gold.sql
DIFF=$DATA/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl
ROOT=$DATA/bird/dev_databases
RUNS=${RUNS:-5}

# The floor is the first pass of bird_floor (connections opened beforehand but with cold SQLite page
# caches and schemas, as in any single grading run); taken as the best of $RUNS process runs.
floor=999; warm=999
for _ in $(seq "$RUNS"); do
  read -r f w nq < <("$BUILD/bird_floor" "$GOLD" "$PRED" "$ROOT" 3)
  floor=$(awk -v a="$f" -v b="$floor" 'BEGIN{print (a < b) ? a : b}')
  warm=$(awk -v a="$w" -v b="$warm" 'BEGIN{print (a < b) ? a : b}')
done
echo "SQLite floor: $floor s for $nq queries on one thread (fresh connections); $warm s with warm page caches"

best() {  # best wall time of $RUNS runs of the given command
  local b=999
  for _ in $(seq "$RUNS"); do
    local s e
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    b=$(echo "$e - $s" | bc -l | awk -v b="$b" '{print ($1 < b) ? $1 : b}')
  done
  echo "$b"
}
for j in 1 2; do
  w=$(best "$BUILD/sqlgrade" bird --predicted_sql_path "$PRED" --ground_truth_path "$GOLD" --db_root_path "$ROOT" \
        --diff_json_path "$DIFF" --num_cpus "$j" --quiet --no-progress)
  printf 'sqlgrade bird EX --num_cpus %d: %.3f s wall (process start to exit) = %.2fx the floor\n' \
    "$j" "$w" "$(echo "$w / $floor" | bc -l)"
done
