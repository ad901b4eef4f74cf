#!/usr/bin/env bash
# What real predictions need inside SQLite (issue 31, item 4; docs/safety.md, "Bounds that keep every
# official number"): every prediction of the shared data and of the published Spider dev files under
# $SQLGRADE_PREDS_EXTERNAL, each distinct (database, text) run once with the statement memory cap raised
# to CAP_MB and no spill, so that its peak is what it needs in memory.
# Usage: bench/sqlite_needs.sh BUILD_DIR [OUT_DIR]   (env: THREADS=2 TIMEOUT=300 CAP_MB=4096 SHOW_MB=16 PY=python3)
# Build first: cmake --build BUILD_DIR -j2 --target sqlite_needs   (SQLGRADE_BENCH, on by default)
set -euo pipefail
BUILD=${1:?usage: bench/sqlite_needs.sh BUILD_DIR [OUT_DIR]}
OUT=${2:-$(mktemp -d)}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$OUT"
[ -x "$BUILD/sqlite_needs" ] || { echo "bench/sqlite_needs.sh: $BUILD/sqlite_needs is missing (build the sqlite_needs target)" >&2; exit 2; }
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
"${PY:-python3}" "$HERE/sqlite_needs.py" "$OUT/statements.jsonl"
/usr/bin/time -f "sqlite_needs: %e s wall, %U s user, %M KB peak RSS" "$BUILD/sqlite_needs" "$OUT/statements.jsonl" \
  --threads "${THREADS:-2}" --timeout "${TIMEOUT:-300}" --cap-mb "${CAP_MB:-4096}" --show-mb "${SHOW_MB:-16}" | tee "$OUT/needs.txt"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); output: $OUT"
