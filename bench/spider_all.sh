#!/usr/bin/env bash
# End-to-end timing of `sqlgrade spider --etype all` on Spider dev (1034 examples, the 20 rebuilt
# databases) in both compat modes, against
#   - the SQLite floor: spider_exec_floor (bench/spider_exec_floor.cpp) executes every gold and
#     every prediction once on one thread with the bare C API (the time SQLite itself needs), and
#   - the official scripts' wall time recorded in expected/MANIFEST.json (2-core machine).
#   bench/spider_all.sh [BUILD_DIR]   (targets: sqlgrade, spider_exec_floor)
# Prints best-of-$RUNS wall and CPU (user+sys); on a shared machine the CPU figure is the stable one.
set -euo pipefail
BUILD=${1:-build}
DATA=${SQLGRADE_DATA:-$(cd "$(dirname "$0")/../../shared/data" && pwd)}
RUNS=${RUNS:-3}
SYSTEMS=${SYSTEMS:-"dail-sql_gpt4:dail-sql_gpt4/pred.txt c3sql_gpt35:c3sql_gpt35/pred.txt"}
TIMEFORMAT='%R %U %S'
measure() {
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
official() {
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print([c['wall_s'] for c in m['cases'] if c['id']==sys.argv[2]][0])" \
    "$DATA/expected/MANIFEST.json" "$1" 2>/dev/null || echo "?"
}
echo "machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $SYSTEMS; do
  name=${s%%:*}
  pred=$DATA/preds/spider_dev/${s#*:}
  gold=$DATA/spider/dev_gold.sql
  echo "== $name"
  if [ -x "$BUILD/spider_exec_floor" ]; then
    read -r fw fc < <(measure "$BUILD/spider_exec_floor" "$gold" "$pred" "$DATA/spider/database" 1)
    printf '  SQLite floor (every gold + prediction once, 1 thread): %6.3f s wall  %6.3f s CPU\n' "$fw" "$fc"
  fi
  for compat in spider test-suite; do
    for j in 1 2; do
      read -r w c < <(measure "$BUILD/sqlgrade" spider --gold "$gold" --pred "$pred" --db "$DATA/spider/database" \
                        --table "$DATA/spider/tables.json" --etype all --compat "$compat" --jobs "$j" --no-progress --quiet)
      printf '  sqlgrade --compat %-10s --jobs %d:                 %6.3f s wall  %6.3f s CPU\n' "$compat" "$j" "$w" "$c"
    done
  done
  printf '  official spider evaluation.py --etype all:    %s s wall\n' "$(official "spider_all/$name")"
  printf '  official test-suite evaluation.py --etype all: %s s wall\n' "$(official "testsuite_all/$name")"
done
