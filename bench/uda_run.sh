#!/usr/bin/env bash
# End-to-end timing of `sqlgrade uda run` on all six UDA-Bench datasets with the gold results fed
# back as system results (602 statements, 576 with a runnable gold). Usage:
#   bench/uda_run.sh [DATA_DIR]   (default: $SQLGRADE_DATA or ../shared/data)
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${1:-${SQLGRADE_DATA:-../shared/data}}
BIN=${SQLGRADE_BIN:-build/sqlgrade}
Q="$DATA/uda-bench/Query"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$BIN" uda gold --dataset-dir "$Q" --out "$tmp" --as-result >/dev/null
for i in 1 2 3; do
  start=$(date +%s.%N)
  "$BIN" uda run --dataset-dir "$Q" --results "$tmp" > "$tmp/out.txt"
  end=$(date +%s.%N)
  echo "uda run, 6 datasets, gold as result: run $i: $(echo "$end - $start" | bc) s"
done
grep "^all " "$tmp/out.txt"
