#!/usr/bin/env bash
# Sets up a Debian 12 machine and builds sqlgrade into build/ (CLI: build/sqlgrade). The one set-up
# command; re-running it is fast (every step below is skipped when already done).
#   - installs the Debian packages sqlgrade needs (idempotent; apt-get update first), among them the
#     PostgreSQL 15 and MariaDB servers, whose system services it stops and disables (the tests start
#     throwaway servers of their own), and their client libraries (libpq, MariaDB Connector/C)
#   - provisions DuckDB 1.4.x from the npm registry into .deps/duckdb (git-ignored):
#       libduckdb.so  from @duckdb/node-bindings-linux-x64@$DUCKDB_NPM_BINDINGS
#       duckdb.h      from duckdb@$DUCKDB_VERSION (same DuckDB version)
#     Set DUCKDB_ROOT to a folder holding duckdb.h and libduckdb.so (e.g. an unpacked official
#     release zip) to skip the download.
#   - creates the project venv .venv/ (Python 3.11, git-ignored) and installs the pinned Python
#     dependencies into it from python/requirements/dev.lock (exact versions and hashes; pytest,
#     jsonschema, scikit-build-core, pybind11, and the hosts tested for real: inspect-ai, lm-eval,
#     skyrl-gym), with uv (pinned in uv.lock, bootstrapped by pip with hashes). Skipped when the
#     lock's hash is the one installed last time (.venv/.dev.lock.sha256).
#   - creates NeMo Gym's venv .venv-gym/ (Python 3.12, nemo-gym==0.4.0 from gym.lock) the same way;
#     SQLGRADE_SKIP_GYM=1 skips it (the NeMo Gym test then says so and is skipped).
#   - configures and builds with CMake (Release), the native module included, for .venv's Python;
#   - installs the sqlgrade package (the wheel, scikit-build-core, from the same build tree: nothing is
#     compiled twice) into .venv: `.venv/bin/python -c "import sqlgrade"` and `.venv/bin/sqlgrade`
#     work. SQLGRADE_SKIP_PIP=1 skips it.
# Options (environment): SQLGRADE_SKIP_APT=1, BUILD_DIR=build, BUILD_TYPE=Release, JOBS=N,
# PYTHON311=/path/to/python3.11, PYTHON312=/path/to/python3.12.
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
      python3-dev python3-venv chromium chromium-driver wrk
      postgresql-15 mariadb-server libpq-dev libmariadb-dev"
# The PostgreSQL and MariaDB servers are only binaries to sqlgrade: the tests start their own throwaway
# servers (tests/server/test_servers.hpp). Their Debian packages enable (and, where a service manager
# runs, start) a system-wide service; setup.sh leaves none running or enabled (stop_system_services).

# The postinst scripts of postgresql-15 and mariadb-server enable their services and start them when a
# service manager runs (a container's policy-rc.d may have refused the start): stop and disable both, so
# that no database server of the machine's own runs for sqlgrade's sake.
stop_system_services() {
  local SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  for svc in postgresql mariadb; do
    if command -v systemctl >/dev/null 2>&1; then
      $SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || $SUDO systemctl disable "$svc" >/dev/null 2>&1 || true
    fi
    if command -v service >/dev/null 2>&1; then $SUDO service "$svc" stop >/dev/null 2>&1 || true; fi
  done
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    for v in /etc/postgresql/*/main; do
      [ -d "$v" ] && $SUDO pg_ctlcluster "$(basename "$(dirname "$v")")" main stop >/dev/null 2>&1 || true
    done
  fi
  echo "setup: the postgresql and mariadb system services are stopped and disabled (the tests start their own)"
}

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
    case " $missing " in
      *" postgresql-15 "*|*" mariadb-server "*) stop_system_services ;;
    esac
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

scripts/setup_python.sh
VENV_PY="$ROOT/.venv/bin/python"
PYBIND11_DIR=$("$VENV_PY" -m pybind11 --cmakedir)

UNITY=ON; [ "${SQLGRADE_UNITY:-1}" = 0 ] && UNITY=OFF  # unity sources: half the CPU of a clean build
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DDUCKDB_ROOT="$DUCKDB_ROOT" \
      -DSQLGRADE_PYTHON="$VENV_PY" -Dpybind11_DIR="$PYBIND11_DIR" -DSQLGRADE_UNITY="$UNITY" >/dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
echo "setup: built $BUILD_DIR/sqlgrade"

if [ "${SQLGRADE_SKIP_PIP:-0}" != 1 ]; then
  BUILD_DIR="$BUILD_DIR" scripts/install_package.sh
  (cd / && "$VENV_PY" -c "import sqlgrade, sqlgrade._native as n, sys; print('setup: Python package sqlgrade', sqlgrade.__version__, 'in', sys.prefix, '(native protocol', n.PROTOCOL_VERSION, ')')")
fi
