"""Helpers of the host tests (python/tests/hosts/): where the project's venvs and build tree are,
and a bounded subprocess runner. The host tests run the real packages sqlgrade plugs into, installed
by scripts/setup.sh from python/requirements/*.lock; a missing one is a skip naming the command."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Dict, List, Optional, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
PY_ROOT = os.path.dirname(os.path.dirname(HERE))  # python/
REPO = os.path.dirname(PY_ROOT)
# NeMo Gym's venv: .venv-gym (nemo-gym 0.4.0), or SQLGRADE_GYM_VENV (ctest python.hosts.nemo_gym7: .venv-gym7, 0.7.0)
GYM_VENV = os.environ.get("SQLGRADE_GYM_VENV") or os.path.join(REPO, ".venv-gym")


def build_dir() -> str:
    """The CMake tree ctest runs from (SQLGRADE_BUILD_DIR), else build/."""
    return os.environ.get("SQLGRADE_BUILD_DIR") or os.path.join(REPO, "build")


def cmake_cache(key: str) -> Optional[str]:
    try:
        with open(os.path.join(build_dir(), "CMakeCache.txt"), encoding="utf-8") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return None


def clean_env(**extra: str) -> Dict[str, str]:
    """The environment without anything that points into this checkout or its build."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "SQLGRADE_BIN", "SQLGRADE_DUCKDB_LIBRARY", "LD_LIBRARY_PATH", "PYTHONHOME",
                        "VIRTUAL_ENV", "SQLGRADE_SERVER", "SQLGRADE_CONFIG", "SQLGRADE_BACKEND")}
    env.update(extra)
    return env


def run(cmd: List[str], *, timeout: float = 600, check: bool = True, **kw) -> Tuple[subprocess.CompletedProcess, float]:
    """Runs cmd (text mode, captured); returns the result and its wall time. check: assert exit 0."""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    dt = time.perf_counter() - t0
    if check:
        assert r.returncode == 0, f"{' '.join(cmd)} -> {r.returncode}\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r, dt


def report(name: str, **figures) -> None:
    """One measurement line: printed (the ctest log with -V, pytest -s) and appended to
    <build>/hosts/measurements.txt."""
    line = f"[measure] {name}: " + ", ".join(f"{k}={v}" for k, v in figures.items())
    print(line, file=sys.stderr, flush=True)
    os.makedirs(os.path.join(build_dir(), "hosts"), exist_ok=True)
    with open(os.path.join(build_dir(), "hosts", "measurements.txt"), "a", encoding="utf-8") as f:
        f.write(time.strftime("%Y-%m-%d %H:%M:%S ") + line + "\n")
