#!/usr/bin/env bash
# Installs the sqlgrade wheel of this tree into the project venv (.venv), built by scikit-build-core from
# the CMake tree $BUILD_DIR itself (build-dir = that tree: CMake finds everything built and only
# installs the `python` component into the wheel; nothing is compiled twice). Called by scripts/setup.sh
# and scripts/test.sh (the host tests use the installed package: its console command, its inspect_ai
# entry point). Offline: the backend and pybind11 are in .venv (--no-build-isolation --no-index).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
VENV_PY="$(pwd)/.venv/bin/python"
cache() { sed -n "s/^$1:[A-Z]*=//p" "$BUILD_DIR/CMakeCache.txt"; }
[ -f "$BUILD_DIR/CMakeCache.txt" ] || { echo "install_package: $BUILD_DIR is not configured (scripts/setup.sh)" >&2; exit 2; }
# WHEEL_OUT=<dir>: build the wheel into <dir> instead (nothing installed, no stamp).
# Skipped when the package sources, pyproject.toml and the built CLI/module are those installed last.
stamp=$( (find python/sqlgrade -type f ! -name '*.so' ! -path '*__pycache__*' -print0 | sort -z | xargs -0 sha256sum;
          sha256sum pyproject.toml; stat -c '%n %Y %s' "$BUILD_DIR/sqlgrade" python/sqlgrade/_native*.so 2>/dev/null) | sha256sum)
if [ -z "${WHEEL_OUT:-}" ] && [ "$(cat .venv/.sqlgrade-install.sha256 2>/dev/null)" = "$stamp" ]; then exit 0; fi
flags=(--no-build-isolation --no-index --no-deps -Cbuild-dir="$BUILD_DIR" -Ccmake.build-type="$(cache CMAKE_BUILD_TYPE)"
       -Ccmake.define.SQLGRADE_TESTS=ON -Ccmake.define.SQLGRADE_BENCH="$(cache SQLGRADE_BENCH)"
       -Ccmake.define.DUCKDB_ROOT="$(cache DUCKDB_ROOT)" -Ccmake.define.pybind11_DIR="$("$VENV_PY" -m pybind11 --cmakedir)"
       -Ccmake.define.SQLGRADE_PYTHON="$VENV_PY")
export CMAKE_GENERATOR="$(cache CMAKE_GENERATOR)"
if [ -n "${WHEEL_OUT:-}" ]; then  # only build the wheel into $WHEEL_OUT (python/tests/hosts/test_wheel.py)
  exec "$VENV_PY" -m pip wheel --quiet "${flags[@]}" -w "$WHEEL_OUT" .
fi
"$VENV_PY" -m pip install --quiet --force-reinstall "${flags[@]}" .
echo "$stamp" > .venv/.sqlgrade-install.sha256
