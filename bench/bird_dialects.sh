#!/usr/bin/env bash
# BIRD Mini-Dev in PostgreSQL and MySQL: `sqlgrade bird` against the official scripts on the same server,
# with the floor beside them (issue 33). 3 models x 500 questions per dialect (the shared baselines of
# preds/bird_minidev/official_baselines_sql_output_kg), EX and Soft-F1.
#   bench/bird_dialects.sh [BUILD_DIR]
# Needs: BUILD_DIR/sqlgrade, BUILD_DIR/bird_dialects_floor, BUILD_DIR/tests/sqlgrade_test_server; the
# official scripts at $OFFICIAL (a checkout of bird-bench/mini_dev @4d970a9; never copied into this
# repository) and a Python with psycopg2-binary==2.9.9 PyMySQL==1.1.1 func_timeout numpy at $OFFICIAL_PY
# (default: a venv made at /tmp/sqlgrade-official-venv with pip). RVES=1 adds R-VES (the official
# script's R-VES takes about 5 minutes per PostgreSQL file).
#
# The servers are throwaway ones (sqlgrade_test_server: temporary folder, stopped at the end): PostgreSQL
# also on 127.0.0.1:$PGPORT, since the official script connects over TCP. The official scripts run
# unmodified but for their connection parameters (port, socket, as expected/bird_minidev_dialects/
# connection.diff does, in a temporary copy), --num_cpus 2, --meta_time_out 30. sqlgrade grades the 3
# files in one process (--num_cpus 2) through the read-only login; the official script runs once per file
# as the superuser. Floor: bird_dialects_floor runs each distinct SQL text of the gold and the 3 files once
# on one connection with the plain client API (no transaction, no conversion, no comparison).
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
DATA=$(cd "${SQLGRADE_DATA:-$(dirname "$0")/../../shared/data}" && pwd)
OFFICIAL=${OFFICIAL:?set OFFICIAL to a checkout of bird-bench/mini_dev (evaluation/*.py)}
PGPORT=${PGPORT:-55432}
MODELS="gpt-35-turbo gpt-4 meta-llama-3-70b-instruct-2"
PREDS=$DATA/preds/bird_minidev/official_baselines_sql_output_kg
WORK=$(mktemp -d /tmp/sqlgrade-bench-dialects-XXXXXX)
cleanup() {
  exec 3>&- 4>&- 2>/dev/null || true  # the test servers stop when their stdin closes
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if [ -z "${OFFICIAL_PY:-}" ]; then
  OFFICIAL_PY=/tmp/sqlgrade-official-venv/bin/python
  if [ ! -x "$OFFICIAL_PY" ]; then
    python3 -m venv /tmp/sqlgrade-official-venv
    /tmp/sqlgrade-official-venv/bin/pip install -q psycopg2-binary==2.9.9 PyMySQL==1.1.1 func_timeout==4.3.5 numpy
  fi
fi

# ---- the servers
mkfifo "$WORK/pg.in" "$WORK/my.in"
"$BUILD/tests/sqlgrade_test_server" --kind postgresql --tcp-port "$PGPORT" \
  --load "bird=$DATA/bird/minidev_postgresql/BIRD_dev.sql" < "$WORK/pg.in" > "$WORK/pg.json" &
exec 3> "$WORK/pg.in"
"$BUILD/tests/sqlgrade_test_server" --kind mariadb --load "BIRD=$DATA/bird/minidev_mysql/BIRD_dev.sql" \
  < "$WORK/my.in" > "$WORK/my.json" &
exec 4> "$WORK/my.in"
for f in pg my; do
  for _ in $(seq 600); do [ -s "$WORK/$f.json" ] && break; sleep 0.5; done
  [ -s "$WORK/$f.json" ] || { echo "bench: the $f server did not start" >&2; exit 1; }
done
field() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(eval('d' + sys.argv[2]))" "$@"; }
PG_READER=$(field "$WORK/pg.json" "['readers']['bird']")
MY_READER=$(field "$WORK/my.json" "['readers']['BIRD']")
MY_SOCK=$(field "$WORK/my.json" "['dir']")/mysqld.sock
# The official script logs in as root with its hard-coded password.
mariadb --no-defaults -S "$MY_SOCK" -u root -e \
  "ALTER USER root@localhost IDENTIFIED VIA unix_socket OR mysql_native_password USING PASSWORD('li123911')"
echo "servers: PostgreSQL started in $(field "$WORK/pg.json" "['start_seconds']") s, dump loaded in" \
     "$(field "$WORK/pg.json" "['load_seconds']['bird']") s; MariaDB $(field "$WORK/my.json" "['start_seconds']") s," \
     "$(field "$WORK/my.json" "['load_seconds']['BIRD']") s"

# ---- the official scripts, their connection parameters pointed at the throwaway servers
mkdir "$WORK/official"
cp "$OFFICIAL"/evaluation/evaluation_{ex,f1,ves,utils}.py "$WORK/official/"
sed -i -e "s/port=5432\"/port=$PGPORT\"/" -e "s#unix_socket=\"/var/run/mysqld/mysqld.sock\"#unix_socket=\"$MY_SOCK\"#" \
  "$WORK/official/evaluation_utils.py"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN{printf "%.2f", b - a}'; }

metrics="ex f1"
[ "${RVES:-0}" = 1 ] && metrics="ex f1 ves"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-11s %-7s %12s %14s %12s\n' dialect metric floor sqlgrade official
for dialect in postgresql mysql; do
  if [ $dialect = postgresql ]; then DSN=$PG_READER; DL=PostgreSQL; else DSN=$MY_READER; DL=MySQL; fi
  GOLD=$DATA/bird/minidev/mini_dev_${dialect}_gold.sql
  DIFF=$DATA/expected/bird_minidev_dialects/inputs/minidev.mini_dev_$dialect.jsonl
  files=()
  for m in $MODELS; do
    s=$dialect; [ $dialect = mysql ] && [ "$m" = meta-llama-3-70b-instruct-2 ] && s=mysqljson
    files+=("$PREDS/predict_mini_dev_${m}_$s.json")
  done
  read -r floor nq < <("$BUILD/bird_dialects_floor" "$DSN" "$GOLD" "${files[@]}")
  for metric in $metrics; do
    flag=$metric; [ $metric = f1 ] && flag=soft-f1; [ $metric = ves ] && flag=r-ves
    args=()
    for f in "${files[@]}"; do args+=(--pred "$f"); done
    t=$(now)
    "$BUILD/sqlgrade" bird --sql_dialect "$DL" --dsn "$DSN" "${args[@]}" --gold "$GOLD" --diff_json_path "$DIFF" \
      --metric "$flag" --num_cpus 2 --quiet --no-progress > "$WORK/ours.$dialect.$metric.txt"
    ours=$(since "$t")
    t=$(now)
    for f in "${files[@]}"; do
      (cd "$WORK/official" && "$OFFICIAL_PY" -u "evaluation_$metric.py" --db_root_path "$DATA/bird/dev_databases/" \
        --predicted_sql_path "$f" --ground_truth_path "$GOLD" --num_cpus 2 --output_log_path "$WORK/official.log" \
        --diff_json_path "$DIFF" --meta_time_out 30.0 --sql_dialect "$DL" >> "$WORK/theirs.$dialect.$metric.txt" 2>&1)
    done
    theirs=$(since "$t")
    printf '%-11s %-7s %9s s %11s s %9s s   (%s distinct queries in the floor)\n' "$dialect" "$metric" "$floor" "$ours" "$theirs" "$nq"
  done
done
