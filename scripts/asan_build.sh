#!/usr/bin/env bash
# Configures and builds the instrumented tree shared by scripts/sanitize.sh and scripts/fuzz.sh:
# clang with AddressSanitizer + UndefinedBehaviorSanitizer (-O1 and line tables for usable stacks), the whole
# test suite and the libFuzzer targets, in build-asan/ (BUILD_DIR). One build serves both jobs.
# Without clang (it comes with scripts/setup.sh) the default compiler builds the tests only.
#   scripts/asan_build.sh [TARGET ...]    build only these targets (default: everything)
# Options (environment): BUILD_DIR=build-asan, JOBS=N (default: nproc), DUCKDB_ROOT.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build-asan}
JOBS=${JOBS:-$(nproc)}
# Debug information: line tables only (-gline-tables-only; g++: -g1) — a sanitizer report's stack names
# file and line all the same, and full -g cost ~25% more compile time and much larger objects to link.
UNITY=ON; [ "${SQLGRADE_UNITY:-1}" = 0 ] && UNITY=OFF  # unity sources (CMakeLists.txt SQLGRADE_UNITY)
ARGS=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSQLGRADE_SANITIZE=ON -DSQLGRADE_BENCH=OFF -DSQLGRADE_UNITY="$UNITY")
if command -v clang++ >/dev/null && command -v clang >/dev/null; then
  G=-gline-tables-only
  ARGS+=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DSQLGRADE_FUZZ=ON)
else
  G=-g1
  echo "asan_build: clang not found, building the tests with the default compiler (no fuzz targets)" >&2
  ARGS+=(-DSQLGRADE_FUZZ=OFF)
fi
ARGS+=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 $G" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 $G")
if [ -n "${DUCKDB_ROOT:-}" ]; then ARGS+=(-DDUCKDB_ROOT="$DUCKDB_ROOT"); fi
cmake -S . -B "$BUILD_DIR" "${ARGS[@]}" >/dev/null
if [ $# -gt 0 ]; then
  cmake --build "$BUILD_DIR" -j "$JOBS" --target "$@"
else
  cmake --build "$BUILD_DIR" -j "$JOBS"
fi
