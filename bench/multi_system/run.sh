#!/usr/bin/env bash
# Many systems in one pass (issues 15, 22): N distinct Spider dev systems (make_systems.py: the five
# real systems, and systems derived from one real system each — a fraction of its answers replaced by
# another real system's, a fraction written in the system's own surface style; fixed seed) graded with
#   sqlgrade spider --etype all --compat {spider,test-suite} --pred sys001.sql … --pred sysN.sql --json-dir R
# one process per compat mode, then both modes in one process (--compat both), REPEAT times each, beside
#   - the floor: spider_exec_floor (bench/spider_exec_floor.cpp) executing every distinct (db, SQL) of
#     the gold and of all N systems once, on one thread, with the bare SQLite C API — what SQLite itself
#     needs, whatever grader runs on top;
#   - optionally (SAMPLE > 0) one process per system on a sample, extrapolated.
#   bench/multi_system/run.sh [BUILD_DIR]   (env: N=136 REPEAT=2 SAMPLE=0 OUT=BUILD_DIR/bench-multi-system;
#                                            targets: sqlgrade, spider_exec_floor)
set -euo pipefail
BUILD=${1:-build}
DATA=${SQLGRADE_DATA:-$(cd "$(dirname "$0")/../../../shared/data" && pwd)}
N=${N:-136}
REPEAT=${REPEAT:-2}
SAMPLE=${SAMPLE:-0}
OUT=${OUT:-$BUILD/bench-multi-system}
CLI=$BUILD/sqlgrade
SP=$DATA/spider
rm -rf "$OUT" && mkdir -p "$OUT"
python3 "$(dirname "$0")/make_systems.py" "$OUT/preds" --n "$N" --data "$DATA"
mapfile -t PREDS < <(ls "$OUT"/preds/sys*.sql)
load() { cut -d' ' -f1-3 /proc/loadavg; }
echo "machine: $(nproc) cores, load average $(load)"
TIMEFORMAT='%R %U %S'
pflags=()
for p in "${PREDS[@]}"; do pflags+=(--pred "$p"); done
if [ -x "$BUILD/spider_exec_floor" ]; then
  # Every distinct (db, SQL) once — the golds and every system's predictions, as one "prediction" list
  # (its "gold" side is SELECT 1, a few microseconds each).
  python3 - "$SP/dev_gold.sql" "$OUT/floor_pred.sql" "$OUT/floor_gold.sql" "${PREDS[@]}" <<'EOF2'
import sys
gold = [l.rstrip("\n").split("\t") for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
seen, out = set(), []
def add(db, sql):
    if sql and (db, sql) not in seen:
        seen.add((db, sql))
        out.append((db, sql))
for g in gold:
    add(g[1], g[0].strip())
n_gold = len(out)
for path in sys.argv[4:]:
    for q, line in enumerate(open(path, encoding="utf-8")):
        if q < len(gold):
            add(gold[q][1], line.rstrip("\n").strip())
open(sys.argv[2], "w", encoding="utf-8").write("".join(s + "\n" for _, s in out))
open(sys.argv[3], "w", encoding="utf-8").write("".join("SELECT 1\t" + d + "\n" for d, _ in out))
print(f"floor input: {n_gold} distinct golds + {len(out) - n_gold} distinct (db, prediction) pairs")
# Both modes: test-suite also runs its own text of each statement, DISTINCT removed (approximated here
# by a regex outside quotes; sqlgrade uses sqlparse's lexer). The texts that differ are added.
import re
def no_distinct(sql):
    parts = re.split(r"""('(?:[^']|'')*'|"(?:[^"]|"")*")""", sql)
    return "".join(p if k % 2 else re.sub(r"(?i)\bdistinct\b", "", p) for k, p in enumerate(parts))
both = list(out)
for d, s in out:
    t = no_distinct(s)
    if t != s and (d, t) not in seen:
        seen.add((d, t))
        both.append((d, t))
open(sys.argv[2] + ".both", "w", encoding="utf-8").write("".join(s + "\n" for _, s in both))
open(sys.argv[3] + ".both", "w", encoding="utf-8").write("".join("SELECT 1\t" + d + "\n" for d, _ in both))
print(f"floor input, both modes: + {len(both) - len(out)} texts test-suite runs without DISTINCT")
EOF2
  read -r fw fq < <("$BUILD/spider_exec_floor" "$OUT/floor_gold.sql" "$OUT/floor_pred.sql" "$SP/database" 1)
  printf 'floor: each distinct (db, SQL) executed once, 1 thread, bare SQLite, no timeout: %7.2f s (%d queries incl. SELECT 1)\n' "$fw" "$fq"
  read -r fw fq < <("$BUILD/spider_exec_floor" "$OUT/floor_gold.sql.both" "$OUT/floor_pred.sql.both" "$SP/database" 1)
  printf 'floor, both modes: each distinct (db, SQL) of either mode once, 1 thread:        %7.2f s (%d queries incl. SELECT 1)\n' "$fw" "$fq"
fi
for r in $(seq "$REPEAT"); do
  total=0
  for compat in spider test-suite; do
    args=(spider --gold "$SP/dev_gold.sql" --db "$SP/database" --table "$SP/tables.json" --etype all --compat "$compat"
          --no-progress --quiet)
    before=$(load)
    t=$( { time "$CLI" "${args[@]}" "${pflags[@]}" --json-dir "$OUT/records-$compat" >"$OUT/tables-$compat.txt"; } 2>&1 | tail -1)
    read -r w u s <<<"$t"
    total=$(awk -v a="$total" -v b="$w" 'BEGIN{print a + b}')
    printf 'run %d %-10s %d systems in one process: %7.2f s wall, %7.2f s CPU, %d records (load before %s)\n' "$r" "$compat" \
      "${#PREDS[@]}" "$w" "$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}')" "$(ls "$OUT/records-$compat" | wc -l)" "$before"
    if [ "$SAMPLE" -gt 0 ] && [ "$r" -eq 1 ]; then
      t=$( { time for p in "${PREDS[@]:0:$SAMPLE}"; do "$CLI" "${args[@]}" --pred "$p" >/dev/null; done; } 2>&1 | tail -1)
      read -r bw _ _ <<<"$t"
      printf '           one process per system: %d systems %7.2f s wall -> %7.1f s for %d (extrapolated)\n' "$SAMPLE" "$bw" \
        "$(awk -v w="$bw" -v s="$SAMPLE" -v n="${#PREDS[@]}" 'BEGIN{print w / s * n}')" "${#PREDS[@]}"
    fi
  done
  printf 'run %d: both modes, all %d systems, one process per mode: %.2f s wall (target <= 90 s on 2 cores)\n' "$r" \
    "${#PREDS[@]}" "$total"
  # Both modes in one pass (--compat both): the test-suite pass borrows the spider pass's results.
  # Without --quiet for its statement counts (last stderr line); its stdout must be the two runs' above.
  args=(spider --gold "$SP/dev_gold.sql" --db "$SP/database" --table "$SP/tables.json" --etype all --compat both --no-progress)
  before=$(load)
  t=$( { time "$CLI" "${args[@]}" "${pflags[@]}" --json-dir "$OUT/records-both" >"$OUT/tables-both.txt" 2>"$OUT/both.err"; } 2>&1 | tail -1)
  read -r w u s <<<"$t"
  same=$( { printf '==> --compat spider <==\n'; cat "$OUT/tables-spider.txt"; printf '\n==> --compat test-suite <==\n';
            cat "$OUT/tables-test-suite.txt"; } | cmp -s - "$OUT/tables-both.txt" && echo identical || echo DIFFERENT)
  printf 'run %d both modes  %d systems in one pass:    %7.2f s wall, %7.2f s CPU, %d records, output %s to the two runs (load before %s)\n' \
    "$r" "${#PREDS[@]}" "$w" "$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}')" "$(ls "$OUT/records-both" | wc -l)" "$same" "$before"
  echo "           $(grep -- '--compat both:' "$OUT/both.err" | sed 's/^sqlgrade: //')"
done
