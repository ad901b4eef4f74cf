#!/usr/bin/env bash
# Builds the whole project with AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/
# (-DSQLGRADE_SANITIZE=ON, Debug-level optimisation -O1 for usable stacks) and runs the whole ctest
# suite under it. Any sanitizer report fails the test that triggered it (UBSan: -fno-sanitize-recover).
#
# DuckDB is a prebuilt libduckdb.so (not instrumented): ASan still checks our side of every call.
# LeakSanitizer is left on; the suppressions in tests/sanitize/lsan.supp cover one-time allocations
# inside libduckdb.so / libsqlite3.so that are only freed at process exit (none of ours).
#
# Options (environment): BUILD_DIR=build-asan, JOBS=N (default: nproc), SQLGRADE_DATA (benchmark
# data, as for scripts/test.sh). Extra arguments go to ctest (e.g. -R safety).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}
if [ -z "${SQLGRADE_DATA:-}" ] && [ -d ../shared/data ]; then
  SQLGRADE_DATA=$(cd ../shared/data && pwd)
fi
export SQLGRADE_DATA=${SQLGRADE_DATA:-}
DUCK_ARGS=()
if [ -n "${DUCKDB_ROOT:-}" ]; then DUCK_ARGS=(-DDUCKDB_ROOT="$DUCKDB_ROOT"); fi

t0=$(date +%s)
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
      -DSQLGRADE_SANITIZE=ON -DSQLGRADE_BENCH=OFF "${DUCK_ARGS[@]}" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
t1=$(date +%s)

# halt_on_error: the first report ends the process (the test fails with the report in its output).
# detect_odr_violation=0: libduckdb.so and our binaries both carry the C++ runtime's inline statics.
export ASAN_OPTIONS=${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=1:detect_odr_violation=0:detect_leaks=1:strict_string_checks=1:check_initialization_order=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$(pwd)/tests/sanitize/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Instrumented code is several times slower: widen the safety tests' deadline margin.
export SQLGRADE_SAFETY_MARGIN=${SQLGRADE_SAFETY_MARGIN:-4}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$JOBS" --timeout 1800 "$@"
t2=$(date +%s)
echo "sanitize: build $((t1 - t0)) s, tests $((t2 - t1)) s"
