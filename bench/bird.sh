#!/usr/bin/env bash
# End-to-end timing of `sqlgrade bird` (EX, 500 Mini-Dev questions, gpt-4o baseline predictions)
# against the SQLite floor (bird_floor: the same 1000 queries prepared and stepped on one thread).
#   bench/bird.sh [BUILD_DIR]      (needs the sqlgrade and bird_floor targets built)
# Reports wall time (best of $RUNS) and CPU time (user + sys, mean over $CPU_RUNS process runs):
# on a shared, loaded machine the wall figures are dominated by scheduling, CPU time is steadier.
set -euo pipefail
BUILD=${1:-build}
DATA=${SQLGRADE_DATA:-$(dirname "$0")/../../shared/data}
PRED=$DATA/preds/bird_minidev/official_baselines_TA_output/predict_mini_dev_gpt-4-o_cot_SQLite.json
GOLD=$DATA/bird/minidev/mini_dev_sqlite_gold.sql
DIFF=$DATA/expected/bird/inputs/minidev.mini_dev_sqlite.jsonl
ROOT=$DATA/bird/dev_databases
RUNS=${RUNS:-5}
CPU_RUNS=${CPU_RUNS:-10}

# CPU seconds (user + sys) per run of a command, averaged over $CPU_RUNS runs.
cpu_per_run() {
  local out
  out=$( { /usr/bin/time -f "%U %S" bash -c 'for _ in $(seq '"$CPU_RUNS"'); do "$@" >/dev/null 2>&1; done' _ "$@"; } 2>&1 | tail -1)
  awk -v u="${out% *}" -v s="${out#* }" -v n="$CPU_RUNS" 'BEGIN{printf "%.4f", (u + s) / n}'
}

# Best wall time of $RUNS runs of a command.
best_wall() {
  local b=999 s e
  for _ in $(seq "$RUNS"); do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    b=$(awk -v a="$s" -v z="$e" -v b="$b" 'BEGIN{d = z - a; print (d < b) ? d : b}')
  done
  echo "$b"
}

# The floor is the first pass of bird_floor (connections opened beforehand but with cold SQLite page
# caches and schemas, as in any single grading run), best of $RUNS process runs.
floor=999; warm=999
for _ in $(seq "$RUNS"); do
  read -r f w nq < <("$BUILD/bird_floor" "$GOLD" "$PRED" "$ROOT" 3)
  floor=$(awk -v a="$f" -v b="$floor" 'BEGIN{print (a < b) ? a : b}')
  warm=$(awk -v a="$w" -v b="$warm" 'BEGIN{print (a < b) ? a : b}')
done
floor_cpu=$(cpu_per_run "$BUILD/bird_floor" "$GOLD" "$PRED" "$ROOT" 1)
echo "SQLite floor: $floor s wall for $nq queries on one thread (fresh connections; $warm s with warm page"
echo "  caches); whole bird_floor process: $floor_cpu s CPU"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

CMD=("$BUILD/sqlgrade" bird --predicted_sql_path "$PRED" --ground_truth_path "$GOLD" --db_root_path "$ROOT"
     --diff_json_path "$DIFF" --quiet --no-progress)
for j in 1 2; do
  w=$(best_wall "${CMD[@]}" --num_cpus "$j")
  c=$(cpu_per_run "${CMD[@]}" --num_cpus "$j")
  printf 'sqlgrade bird EX --num_cpus %d: %.3f s wall (%.2fx the floor), %.3f s CPU (%.2fx the floor process)\n' \
    "$j" "$w" "$(awk -v a="$w" -v b="$floor" 'BEGIN{print a / b}')" "$c" "$(awk -v a="$c" -v b="$floor_cpu" 'BEGIN{print a / b}')"
done
