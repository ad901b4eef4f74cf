#!/usr/bin/env bash
# Builds the libFuzzer targets (scripts/asan_build.sh: clang, ASan + UBSan, in build-asan/ — the tree
# scripts/sanitize.sh tests) and runs each one. CI runs the short run after scripts/sanitize.sh.
#   scripts/fuzz.sh                 short run: FUZZ_SECONDS (default 20) per target — what CI runs
#   scripts/fuzz.sh --long [SECS]   long run: SECS (default 3600) per target, FUZZ_JOBS workers each
#   scripts/fuzz.sh --target NAME   only that target (repeatable)
# The working corpus is build-asan/corpus/<target>/ (seeded from tests/fuzz/corpus/<target>/, which
# stays read-only); crashes go to build-asan/crashes/<target>/ and end the run with exit 1. Turn each
# crash into a regression test in tests/unit/safety_regression_test.cpp and, once fixed, add the
# (minimised) input to tests/fuzz/corpus/<target>/.
# Prints one summary line per target: executions, seconds, corpus size, result.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}
SECS=${FUZZ_SECONDS:-20}
FUZZ_JOBS=${FUZZ_JOBS:-1}
TARGETS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --long) SECS=3600; if [ $# -gt 1 ] && [[ "$2" =~ ^[0-9]+$ ]]; then SECS=$2; shift; fi ;;
    --target) TARGETS+=("$2"); shift ;;
    *) echo "fuzz.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(fuzz_spider_parser fuzz_extract_sql fuzz_csv fuzz_json_readers fuzz_run_record)
export BUILD_DIR JOBS
if ! command -v clang++ >/dev/null; then echo "fuzz.sh: clang++ not found (scripts/setup.sh installs it)" >&2; exit 2; fi
scripts/asan_build.sh "${TARGETS[@]}"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:detect_odr_violation=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
for t in "${TARGETS[@]}"; do
  corpus="$BUILD_DIR/corpus/$t"
  crashes="$BUILD_DIR/crashes/$t"
  mkdir -p "$corpus" "$crashes"
  log="$BUILD_DIR/fuzz-$t.log"
  args=(-max_total_time="$SECS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1
        -artifact_prefix="$crashes/")
  [ "$FUZZ_JOBS" -gt 1 ] && args+=(-fork="$FUZZ_JOBS" -ignore_crashes=0)
  rc=0
  "$BUILD_DIR/fuzz/$t" "${args[@]}" "$corpus" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -1 | grep -o '[0-9]*$' || true)
  [ -n "$execs" ] || execs=$(grep -o '#[0-9]*' "$log" | tail -1 | tr -d '#' || true)
  size=$(ls "$corpus" | wc -l)
  if [ $rc -eq 0 ]; then
    echo "fuzz: $t ok: ${execs:-?} executions in ${SECS} s, corpus $size"
  else
    echo "fuzz: $t FAILED (exit $rc) after ${execs:-?} executions; artifacts in $crashes, log $log"
    grep -m5 -E 'ERROR|finding|runtime error|Assertion' "$log" || tail -20 "$log"
    status=1
  fi
done
exit $status
