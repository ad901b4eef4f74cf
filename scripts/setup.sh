#!/usr/bin/env bash
# Sets up a Debian 12 machine and builds sqlgrade into build/ (CLI: build/sqlgrade).
#   - installs the Debian packages sqlgrade needs (idempotent; apt-get update first)
#   - provisions DuckDB 1.4.x from the npm registry into .deps/duckdb (git-ignored):
#       libduckdb.so  from @duckdb/node-bindings-linux-x64@$DUCKDB_NPM_BINDINGS
#       duckdb.h      from duckdb@$DUCKDB_VERSION (same DuckDB version)
#     Set DUCKDB_ROOT to a folder holding duckdb.h and libduckdb.so (e.g. an unpacked official
#     release zip) to skip the download.
#   - configures and builds with CMake (Release), including the Python module sqlgrade._native for
#     the python3 on PATH;
#   - installs the Python package into that python3 (`pip install --no-build-isolation --no-index
#     ./python`: offline, no PyPI), so that `python3 -c "import sqlgrade"` works. SQLGRADE_SKIP_PIP=1
#     skips it.
# Options (environment): SQLGRADE_SKIP_APT=1, BUILD_DIR=build, BUILD_TYPE=Release, JOBS=N.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
DUCKDB_VERSION=${DUCKDB_VERSION:-1.4.4}
DUCKDB_NPM_BINDINGS=${DUCKDB_NPM_BINDINGS:-1.4.4-r.4}
BUILD_DIR=${BUILD_DIR:-build}
BUILD_TYPE=${BUILD_TYPE:-Release}
JOBS=${JOBS:-$(nproc)}

PKGS="build-essential cmake pkg-config git libsqlite3-dev sqlite3 nlohmann-json3-dev libcli11-dev
      libfmt-dev libcurl4-openssl-dev libcpp-httplib-dev libgtest-dev libgmock-dev libbenchmark-dev
      clang libclang-rt-14-dev ca-certificates libutf8proc-dev libssl-dev libboost-dev zlib1g-dev
      python3-jsonschema python3-pytest python3-dev pybind11-dev chromium chromium-driver"

if [ "${SQLGRADE_SKIP_APT:-0}" != 1 ]; then
  missing=""
  for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
  done
  # npm is only needed to fetch DuckDB; a machine that already has an npm (e.g. Node.js from
  # another source) must not have Debian's npm forced onto it (the two conflict).
  if [ -z "${DUCKDB_ROOT:-}" ] && ! command -v npm >/dev/null 2>&1; then
    missing="$missing nodejs npm"
  fi
  if [ -n "$missing" ]; then
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
    echo "setup: installing Debian packages:$missing"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing
  fi
fi

if [ -z "${DUCKDB_ROOT:-}" ]; then
  DUCKDB_ROOT="$ROOT/.deps/duckdb-$DUCKDB_VERSION"
  if [ ! -f "$DUCKDB_ROOT/lib/libduckdb.so" ] || [ ! -f "$DUCKDB_ROOT/include/duckdb.h" ]; then
    echo "setup: fetching DuckDB $DUCKDB_VERSION from the npm registry"
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    (cd "$tmp" && npm pack --silent "@duckdb/node-bindings-linux-x64@$DUCKDB_NPM_BINDINGS" "duckdb@$DUCKDB_VERSION" >/dev/null)
    mkdir -p "$tmp/b" "$tmp/h"
    tar -xzf "$tmp"/duckdb-node-bindings-linux-x64-*.tgz -C "$tmp/b" package/libduckdb.so
    tar -xzf "$tmp"/duckdb-"$DUCKDB_VERSION".tgz -C "$tmp/h" package/src/duckdb/src/include/duckdb.h
    mkdir -p "$DUCKDB_ROOT.partial/lib" "$DUCKDB_ROOT.partial/include"
    cp "$tmp/b/package/libduckdb.so" "$DUCKDB_ROOT.partial/lib/"
    cp "$tmp/h/package/src/duckdb/src/include/duckdb.h" "$DUCKDB_ROOT.partial/include/"
    rm -rf "$DUCKDB_ROOT"; mv "$DUCKDB_ROOT.partial" "$DUCKDB_ROOT"
  fi
fi
echo "setup: DuckDB from $DUCKDB_ROOT"

cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DDUCKDB_ROOT="$DUCKDB_ROOT" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
echo "setup: built $BUILD_DIR/sqlgrade"

if [ "${SQLGRADE_SKIP_PIP:-0}" != 1 ]; then
  if python3 -m pip --version >/dev/null 2>&1; then
    python3 -m pip install --quiet --no-build-isolation --no-index --force-reinstall ./python
    python3 -c "import sqlgrade, sqlgrade._native as n; print('setup: Python package sqlgrade', sqlgrade.__version__, 'for', __import__('sys').executable, '(native protocol', n.PROTOCOL_VERSION, ')')"
  else
    echo "setup: $(command -v python3) has no pip; install the Python package with: <python> -m pip install --no-build-isolation ./python" >&2
  fi
fi
