#!/usr/bin/env bash
# Merging a large run: 10 x Spider dev (10,340 questions, dail-sql predictions, --etype exec) graded as
# two shards by database (two ~6 MB run records), then merged 5 times by `sqlgrade merge` (a process)
# and 5 times by `sqlgrade.runs.merge` (in-process, the result parsed into Python too).
# Usage: bench/merge.sh [path/to/sqlgrade] [python]     (SQLGRADE_DATA: the benchmark data)
# Floor: reading the two parts and writing the merged record once (the JSON parse and dump dominate;
# `perf record` of the CLI: parse ~55%, render ~30%).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$here/build/sqlgrade}"
py="${2:-$here/.venv/bin/python}"
data="${SQLGRADE_DATA:-$here/../shared/data}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for i in $(seq 10); do cat "$data/spider/dev_gold.sql"; done > "$tmp/gold.sql"
for i in $(seq 10); do cat "$data/preds/spider_dev/dail-sql_gpt4/pred.txt"; done > "$tmp/pred.txt"
for i in 1 2; do
  "$cli" spider --gold "$tmp/gold.sql" --pred "$tmp/pred.txt" --db "$data/spider/database" --etype exec \
    --shard "$i/2" --shard-by db --json "$tmp/p$i.json" --no-progress > /dev/null 2>&1
done
ls -l "$tmp"/p*.json | awk '{print $5, $9}'
"$py" - "$cli" "$tmp" <<'PY'
import statistics, subprocess, sys, time
import sqlgrade.runs
cli, d = sys.argv[1], sys.argv[2]
parts = [f"{d}/p1.json", f"{d}/p2.json"]
a, b = [], []
for _ in range(5):
    t = time.perf_counter()
    subprocess.run([cli, "merge", *parts, "-o", f"{d}/o1.json"], capture_output=True, check=True)
    a.append(time.perf_counter() - t)
    t = time.perf_counter()
    sqlgrade.runs.merge(parts, f"{d}/o2.json")
    b.append(time.perf_counter() - t)
print(f"sqlgrade merge (process):             min {min(a):.3f} s, median {statistics.median(a):.3f} s")
print(f"sqlgrade.runs.merge (in-process):     min {min(b):.3f} s, median {statistics.median(b):.3f} s")
PY
