#!/usr/bin/env bash
# Runs the whole test suite (after scripts/setup.sh has built build/). Brings the build up to date
# first. The Python package's pytest suite is one ctest test, python.pytest (python/CMakeLists.txt). Benchmark-data tests read SQLGRADE_DATA (default: ../shared/data beside the project) and are
# skipped with a message when it is absent. Extra arguments go to ctest (e.g. -R uda).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
if [ -z "${SQLGRADE_DATA:-}" ] && [ -d ../shared/data ]; then
  SQLGRADE_DATA=$(cd ../shared/data && pwd)
fi
export SQLGRADE_DATA=${SQLGRADE_DATA:-}
cmake --build "$BUILD_DIR" -j "$(nproc)"
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@"
