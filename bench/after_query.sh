#!/usr/bin/env bash
# Time and peak RSS of what is done with a result after the query (issue 19, finding 5; docs/safety.md,
# "After the query"): a Spider 2.0 sql-mode prediction of 1 M rows x 8 integers against a 2-row gold and
# against a 1 M-row gold, the same with --timeout 3, 10 MB exec_result CSVs, and 30 MB UDA result.csv
# files through `uda eval` on the Shop fixture.
# Usage: bench/after_query.sh [path/to/sqlgrade]   (fixtures in a temporary folder, ~150 MB, removed after)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="$(realpath "${1:-$here/build/sqlgrade}")"
shop="$here/tests/fixtures/uda/Shop"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'EOF'
import os, sqlite3, sys
root = sys.argv[1]
def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
def int_csv(rows, cols, one_digit=False):
    out = [",".join("c%d" % c for c in range(cols))]
    for r in range(1, rows + 1):
        out.append(",".join(str((r + c) % 10 if one_digit else r * (c + 1)) for c in range(cols)))
    return "\n".join(out) + "\n"
task = '{"instance_id": "local001", "condition_cols": [], "ignore_order": true}\n'
pred = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000) "
        "SELECT x, x * 2, x * 3, x * 4, x * 5, x * 6, x * 7, x * 8 FROM c")
for name, gold in [("sql_small", "a,b\n1,2\n3,4\n"), ("sql_big", int_csv(1000000, 1))]:
    d = os.path.join(root, name)
    os.makedirs(os.path.join(d, "databases"))
    c = sqlite3.connect(os.path.join(d, "databases", "tiny.sqlite"))
    c.execute("CREATE TABLE t(x INT)")
    c.commit()
    c.close()
    put(os.path.join(d, "gold", "spider2lite_eval.jsonl"), task)
    put(os.path.join(d, "meta.jsonl"), '{"instance_id": "local001", "db": "tiny"}\n')
    put(os.path.join(d, "gold", "exec_result", "local001.csv"), gold)
    put(os.path.join(d, "preds", "local001.sql"), pred)
one_digit = int_csv(625000, 8, True)  # 10 MB, 2 bytes a cell
wide = int_csv(180000, 8)             # 10 MB of up to 7-digit cells
for name, p, gold in [("csv_small", one_digit, "a,b\n1,2\n"), ("csv_same", one_digit, one_digit), ("csv_wide", wide, wide)]:
    d = os.path.join(root, name)
    put(os.path.join(d, "gold", "spider2lite_eval.jsonl"), task)
    put(os.path.join(d, "gold", "exec_result", "local001.csv"), gold)
    put(os.path.join(d, "preds", "local001.csv"), p)
rows, i, size = ["file_name,name,price,stock"], 0, 0
while size < 30_000_000:  # 1 M distinct ids
    i += 1
    rows.append("%d,%d,%d,%d" % (i, i * 2, i * 3, i * 4))
    size += len(rows[-1]) + 1
put(os.path.join(root, "uda_ids", "q", "result.csv"), "\n".join(rows) + "\n")
rows = ["file_name,name,price,stock"] + ["%d,%d,%d,%d" % (i % 10, i % 7, i % 9, i % 5) for i in range(1, 30_000_000 // 8)]
put(os.path.join(root, "uda_digits", "q", "result.csv"), "\n".join(rows) + "\n")
EOF

run() {  # label, then the command: wall time, peak RSS, and the verdict line
  local label="$1"; shift
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$@" >"$tmp/out" 2>"$tmp/err" || true
  read -r wall kb <"$tmp/time"
  local verdict
  verdict=$(grep -ho 'Correct examples: [0-9]*, Total examples: 1\|An error occurred: .*' "$tmp/out" | head -1 || true)
  printf '%-58s %7.2f s %6d MiB  %s\n' "$label" "$wall" "$((kb / 1024))" "$verdict"
}
for c in sql_small sql_big; do
  d="$tmp/$c"
  run "spider2 sql, 1M x 8 integers ($c)" "$cli" spider2 --mode sql --result_dir "$d/preds" --gold_dir "$d/gold" \
    --db_dir "$d/databases" --meta "$d/meta.jsonl" --no-progress --max_workers 1 --timeout 600
done
d="$tmp/sql_big"
run "spider2 sql, 1M x 8 integers (sql_big), --timeout 3" "$cli" spider2 --mode sql --result_dir "$d/preds" \
  --gold_dir "$d/gold" --db_dir "$d/databases" --meta "$d/meta.jsonl" --no-progress --max_workers 1 --timeout 3
for c in csv_small csv_same csv_wide; do
  d="$tmp/$c"
  run "spider2 exec_result, 10 MB CSV ($c)" "$cli" spider2 --mode exec_result --result_dir "$d/preds" \
    --gold_dir "$d/gold" --no-progress --max_workers 1
done
for c in uda_ids uda_digits; do
  run "uda eval, 30 MB result.csv ($c)" "$cli" uda eval --dataset-dir "$shop" --sql-file "$shop/Select/select_queries.sql" \
    --query-id 1 --result-csv "$tmp/$c/q/result.csv" --quiet
done
