#!/usr/bin/env bash
# The project's Python environments (called by scripts/setup.sh; safe to run again):
#   .venv/      Python 3.11: python/requirements/dev.lock — the build backend, pybind11, the test
#               tools and the host packages tested for real (inspect-ai, lm-eval, skyrl-gym) — and
#               nodeps.lock, installed without dependencies (openrlhf: its reward client only)
#   .venv-gym/  Python 3.12: python/requirements/gym.lock — nemo-gym==0.4.0 (it needs >= 3.12)
#   .venv-gym7/ Python 3.13: python/requirements/gym7.lock — nemo-gym==0.7.0 (declares >= 3.13.14; see below)
# Every package is pinned to an exact version with its hashes (--require-hashes). The installer is uv
# (uv.lock, installed into .venv by pip with hashes): it downloads in parallel (inspect-ai and its 80
# dependencies: 6.6 min with pip, 19 s with uv here). A venv whose lock hash is the one recorded
# after its last install (.venv/.dev.lock.sha256) is left alone, so a re-run costs a few hashes.
# Options (environment): PYTHON311, PYTHON312, PYTHON313 (interpreters), SQLGRADE_SKIP_GYM=1 (both Gym venvs).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
REQ="$ROOT/python/requirements"
export UV_PYTHON_DOWNLOADS=never  # only this machine's interpreters; uv must never fetch one

. scripts/find_python.sh  # find_python, lock_is_installed

install_lock() {  # VENV LOCK
  "$ROOT/.venv/bin/uv" pip install --quiet --python "$1/bin/python" --require-hashes -r "$2"
  sha256sum < "$2" > "$1/.$(basename "$2").sha256"
}

# Compiled bytecode for a Gym venv: Ray's agents, Gym's servers and Ray's workers import ray, nemo_gym
# and their dependencies at every start, and the tests run with PYTHONDONTWRITEBYTECODE=1; without
# .pyc files Ray's raylet, which gives its Python agents a fixed time to start, failed its node start
# on a loaded 2-core machine (docs/python.md, "NeMo Gym").
gym_bytecode() {
  "$1/bin/python" -m compileall -q -j 0 "$("$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
      >/dev/null 2>&1 || true
}

t0=$(date +%s)
PY311=${PYTHON311:-$(find_python 3.11 || true)}
if [ -z "$PY311" ]; then
  echo "setup: Python 3.11 not found (set PYTHON311=/path/to/python3.11)" >&2
  exit 2
fi
if ! lock_is_installed .venv "$REQ/dev.lock"; then
  [ -x .venv/bin/python ] || "$PY311" -m venv .venv
  if [ "$(.venv/bin/uv --version 2>/dev/null)" != "uv $(sed -n 's/^uv==\([^ ]*\).*/\1/p' "$REQ/uv.lock")" ]; then
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r "$REQ/uv.lock"
  fi
  echo "setup: installing python/requirements/dev.lock into .venv ($("$PY311" --version))"
  install_lock .venv "$REQ/dev.lock"
  # Ray's workers import ray (and requests, chardet) at every start; the tests run with
  # PYTHONDONTWRITEBYTECODE=1, so without compiled bytecode each import takes 10-25 s on a loaded 2-core
  # machine instead of about 1 s (python/tests/ray, docs/ray.md).
  .venv/bin/python -m compileall -q -j 0 "$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"/{ray,requests,chardet} >/dev/null || true
fi
if ! lock_is_installed .venv "$REQ/nodeps.lock"; then
  "$ROOT/.venv/bin/uv" pip install --quiet --python .venv/bin/python --require-hashes --no-deps -r "$REQ/nodeps.lock"
  sha256sum < "$REQ/nodeps.lock" > .venv/.nodeps.lock.sha256
fi

if [ "${SQLGRADE_SKIP_GYM:-0}" != 1 ] && ! lock_is_installed .venv-gym "$REQ/gym.lock"; then
  PY312=${PYTHON312:-$(find_python 3.12 || true)}
  if [ -z "$PY312" ]; then
    echo "setup: warning: Python 3.12 not found (PYTHON312=...): no .venv-gym, the NeMo Gym test is skipped" >&2
  else
    echo "setup: installing python/requirements/gym.lock into .venv-gym ($("$PY312" --version))"
    [ -x .venv-gym/bin/python ] || .venv/bin/uv venv --quiet --python "$PY312" .venv-gym
    install_lock .venv-gym "$REQ/gym.lock"
    gym_bytecode .venv-gym
  fi
fi
# NeMo Gym 0.7.0 (.venv-gym7): it declares Requires-Python >= 3.13.14, the newest CPython here is
# pyenv's 3.13.0; uv installs the lock resolved for 3.13.14 (--python-version: pip's
# --ignore-requires-python). Why and what runs: docs/python.md, "NeMo Gym".
if [ "${SQLGRADE_SKIP_GYM:-0}" != 1 ] && ! lock_is_installed .venv-gym7 "$REQ/gym7.lock"; then
  PY313=${PYTHON313:-$(find_python 3.13 || true)}
  if [ -z "$PY313" ]; then
    echo "setup: warning: Python 3.13 not found (PYTHON313=...): no .venv-gym7, the NeMo Gym 0.7.0 test is skipped" >&2
  else
    echo "setup: installing python/requirements/gym7.lock into .venv-gym7 ($("$PY313" --version))"
    [ -x .venv-gym7/bin/python ] || .venv/bin/uv venv --quiet --python "$PY313" .venv-gym7
    "$ROOT/.venv/bin/uv" pip install --quiet --python .venv-gym7/bin/python --python-version 3.13.14 \
        --require-hashes -r "$REQ/gym7.lock"
    gym_bytecode .venv-gym7
    sha256sum < "$REQ/gym7.lock" > .venv-gym7/.gym7.lock.sha256
  fi
fi
echo "setup: Python environments ready in $(( $(date +%s) - t0 )) s (.venv$([ -x .venv-gym/bin/python ] && echo ', .venv-gym')$([ -x .venv-gym7/bin/python ] && echo ', .venv-gym7'))"
