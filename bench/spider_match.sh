#!/usr/bin/env bash
# Timing of `sqlgrade spider --etype match` on Spider dev (1034 pairs):
#   1. spider_match_bench (Google Benchmark): CPU time of the grading work after start-up;
#   2. the whole command, start-up included (best of $RUNS, wall and CPU = user+sys);
#   3. the official script's wall time for comparison (spec §7: ~1.2 s for 1034 pairs).
#   bench/spider_match.sh [BUILD_DIR]   (targets: sqlgrade, spider_match_bench)
set -euo pipefail
BUILD=${1:-build}
DATA=${SQLGRADE_DATA:-$(cd "$(dirname "$0")/../../shared/data" && pwd)}
RUNS=${RUNS:-5}
export SQLGRADE_DATA=$DATA
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
if [ -x "$BUILD/spider_match_bench" ]; then
  "$BUILD/spider_match_bench" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null |
    grep -E "^(grade_all|Benchmark)"
fi
TIMEFORMAT='%R %U %S'
for compat in spider test-suite; do
  bw=999 bc=999
  for _ in $(seq "$RUNS"); do
    t=$( { time "$BUILD/sqlgrade" spider --gold "$DATA/spider/dev_gold.sql" \
             --pred "$DATA/preds/spider_dev/dail-sql_gpt4/pred.txt" --db "$DATA/spider/database" \
             --table "$DATA/spider/tables.json" --etype match --compat "$compat" --quiet >/dev/null; } 2>&1 | tail -1)
    read -r w u s <<<"$t"
    bw=$(awk -v a="$bw" -v b="$w" 'BEGIN{print (b < a) ? b : a}')
    bc=$(awk -v a="$bc" -v b="$u" -v c="$s" 'BEGIN{x = b + c; print (x < a) ? x : a}')
  done
  printf 'sqlgrade spider --etype match --compat %-10s (whole command): %6.3f s wall  %6.3f s CPU\n' "$compat" "$bw" "$bc"
done
echo "official evaluation.py --etype match (spec section 7): 1.03-1.34 s wall"
