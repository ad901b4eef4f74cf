#!/usr/bin/env bash
# End-to-end timing of `sqlgrade spider --etype all` (test-suite exec + exact match, Spider dev,
# 1034 examples, the 20 rebuilt dev databases) against
#   - the SQLite floor (spider_exec_floor: every gold and every prediction executed once on one
#     thread with the bare SQLite C API — no rewriting, comparison or caching), and
#   - the official test-suite evaluation.py wall time recorded in expected/MANIFEST.json (the
#     official script cannot be run here; those runs were made on a 2-core machine too).
#   bench/spider_exec.sh [BUILD_DIR]   (needs the sqlgrade and spider_exec_floor targets)
# Prints wall and CPU (user+sys) seconds: on a shared machine the CPU figure is the stable one.
set -euo pipefail
BUILD=${1:-build}
DATA=${SQLGRADE_DATA:-$(dirname "$0")/../../shared/data}
RUNS=${RUNS:-5}
SYSTEMS=${SYSTEMS:-"dail-sql_gpt4:dail-sql_gpt4/pred.txt c3sql_gpt35:c3sql_gpt35/pred.txt"}

TIMEFORMAT='%R %U %S'
measure() {  # best wall and best CPU of $RUNS runs of the command
  local bw=999 bc=999
  for _ in $(seq "$RUNS"); do
    local t
    t=$( { time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
    read -r w u s <<<"$t"
    bw=$(awk -v a="$bw" -v b="$w" 'BEGIN{print (b < a) ? b : a}')
    bc=$(awk -v a="$bc" -v b="$u" -v c="$s" 'BEGIN{x = b + c; print (x < a) ? x : a}')
  done
  echo "$bw $bc"
}
official() {  # wall_s of an expected/MANIFEST.json case
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print([c['wall_s'] for c in m['cases'] if c['id']==sys.argv[2]][0])" \
    "$DATA/expected/MANIFEST.json" "$1" 2>/dev/null || echo "?"
}

echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $SYSTEMS; do
  name=${s%%:*}
  pred=$DATA/preds/spider_dev/${s#*:}
  gold=$DATA/spider/dev_gold.sql
  read -r fw fc < <(measure "$BUILD/spider_exec_floor" "$gold" "$pred" "$DATA/spider/database" 1)
  read -r _ nq < <("$BUILD/spider_exec_floor" "$gold" "$pred" "$DATA/spider/database" 1)
  echo "== $name"
  printf '  SQLite floor (%s queries, 1 thread):          %6.3f s wall  %6.3f s CPU\n' "$nq" "$fw" "$fc"
  for j in 1 2; do
    read -r w c < <(measure "$BUILD/sqlgrade" spider --gold "$gold" --pred "$pred" --db "$DATA/spider/database" \
                      --table "$DATA/spider/tables.json" --etype all --jobs "$j" --no-progress --quiet)
    printf '  sqlgrade spider --etype all --jobs %d:         %6.3f s wall  %6.3f s CPU  (CPU = %.2fx floor CPU)\n' \
      "$j" "$w" "$c" "$(awk -v a="$c" -v b="$fc" 'BEGIN{print a / b}')"
  done
  ow=$(official "testsuite_all/$name")
  printf '  official test-suite evaluation.py --etype all: %s s wall (MANIFEST.json)\n' "$ow"
done
ex=$DATA/preds/spider_dev/taoyds_pred_example
read -r w c < <(measure "$BUILD/sqlgrade" spider --gold "$ex/gold_example.txt" --pred "$ex/pred_example.txt" \
                  --db "$DATA/spider/database" --table "$DATA/spider/tables.json" --etype exec --plug_value --no-progress --quiet)
printf '== --etype exec --plug_value (official example): %6.3f s wall  %6.3f s CPU; official %s s wall\n' \
  "$w" "$c" "$(official testsuite_exec_plug_value/taoyds_pred_example)"
