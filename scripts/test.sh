#!/usr/bin/env bash
# Runs the whole test suite (after scripts/setup.sh has built build/ and the project venvs). Brings the
# build up to date first, and the sqlgrade package installed in .venv (scripts/install_package.sh: the
# wheel of this tree, from this build; about 15 s). Every Python test runs under .venv's interpreter
# (python/CMakeLists.txt): the package's pytest suite is ctest python.pytest, the tests against the
# real host packages python.hosts.* (label `hosts`; `scripts/test.sh -LE hosts` leaves them out).
# Benchmark-data tests read SQLGRADE_DATA (default: ../shared/data beside the project, exported when it
# is there) and are skipped with a message when it is absent — but fail when SQLGRADE_DATA is set and
# their files are missing (SQLGRADE_REQUIRE_DATA=0 allows the skip: tests/tools/data_rule.py).
# Extra arguments go to ctest (e.g. -R uda).
#
#   scripts/test.sh --fast [ctest args]   # the fast tier only (ctest label `fast`: unit tests, no
#                                         # subprocess, server or real data); builds only its binaries
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
if [ -z "${SQLGRADE_DATA:-}" ] && [ -d ../shared/data ]; then
  SQLGRADE_DATA=$(cd ../shared/data && pwd)
fi
export SQLGRADE_DATA=${SQLGRADE_DATA:-}
if [ "${1:-}" = "--fast" ]; then
  shift
  cmake --build "$BUILD_DIR" -j "$(nproc)" --target sqlgrade_fast_tests
  exec ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" -L '^fast$' "$@"
fi
cmake --build "$BUILD_DIR" -j "$(nproc)"
if [ ! -x .venv/bin/python ]; then
  echo "test: no project venv (.venv): run scripts/setup.sh first" >&2
  exit 2
fi
BUILD_DIR="$BUILD_DIR" scripts/install_package.sh
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@"
