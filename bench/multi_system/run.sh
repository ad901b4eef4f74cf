#!/usr/bin/env bash
# Many systems in one pass (issue 15): 136 distinct synthetic Spider dev systems (make_systems.py:
# real predictions of five published systems mixed per question, fixed seed) graded with
#   sqlgrade spider --etype all --compat {spider,test-suite} --pred sys001.sql … --pred sys136.sql --json-dir R
# one process per compat mode, against the one-process-per-system baseline measured on a sample of
# SAMPLE systems and extrapolated to all of them.
#   bench/multi_system/run.sh [BUILD_DIR]      (env: N=136 SAMPLE=8 OUT=BUILD_DIR/bench-multi-system)
set -euo pipefail
BUILD=${1:-build}
DATA=${SQLGRADE_DATA:-$(cd "$(dirname "$0")/../../../shared/data" && pwd)}
N=${N:-136}
SAMPLE=${SAMPLE:-8}
OUT=${OUT:-$BUILD/bench-multi-system}
CLI=$BUILD/sqlgrade
SP=$DATA/spider
rm -rf "$OUT" && mkdir -p "$OUT"
python3 "$(dirname "$0")/make_systems.py" "$OUT/preds" --n "$N" --data "$DATA"
mapfile -t PREDS < <(ls "$OUT"/preds/sys*.sql)
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
TIMEFORMAT='%R %U %S'
total=0
for compat in spider test-suite; do
  args=(spider --gold "$SP/dev_gold.sql" --db "$SP/database" --table "$SP/tables.json" --etype all --compat "$compat"
        --no-progress --quiet)
  pflags=()
  for p in "${PREDS[@]}"; do pflags+=(--pred "$p"); done
  t=$( { time "$CLI" "${args[@]}" "${pflags[@]}" --json-dir "$OUT/records-$compat" >"$OUT/tables-$compat.txt"; } 2>&1 | tail -1)
  read -r w u s <<<"$t"
  total=$(awk -v a="$total" -v b="$w" 'BEGIN{print a + b}')
  printf '%-10s %d systems in one process: %7.2f s wall, %7.2f s CPU, %d records\n' "$compat" "${#PREDS[@]}" "$w" \
    "$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}')" "$(ls "$OUT/records-$compat" | wc -l)"
  # Baseline: one process per system, on the first SAMPLE systems, extrapolated.
  t=$( { time for p in "${PREDS[@]:0:$SAMPLE}"; do "$CLI" "${args[@]}" --pred "$p" >/dev/null; done; } 2>&1 | tail -1)
  read -r bw _ _ <<<"$t"
  printf '%-10s one process per system: %d systems %7.2f s wall -> %7.1f s for %d (extrapolated)\n' "$compat" "$SAMPLE" "$bw" \
    "$(awk -v w="$bw" -v s="$SAMPLE" -v n="${#PREDS[@]}" 'BEGIN{print w / s * n}')" "${#PREDS[@]}"
done
printf 'both modes, all %d systems, one process per mode: %.2f s wall (target < 120 s)\n' "${#PREDS[@]}" "$total"
