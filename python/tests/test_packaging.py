"""Packaging, the fast part (the wheel itself is built and installed by hosts/test_wheel.py): the
build declaration at the repository root and the `sqlgrade` launcher (console command and
`python -m sqlgrade`) over the C++ CLI."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import PY_ROOT, REPO, sqlgrade_bin

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

import sqlgrade
from sqlgrade import _cli


@pytest.mark.skipif(tomllib is None, reason="tomllib needs Python 3.11")
def test_pyproject_builds_from_the_root_with_pinned_backend():
    with open(os.path.join(REPO, "pyproject.toml"), "rb") as f:
        p = tomllib.load(f)
    bs = p["build-system"]
    assert bs["build-backend"] == "scikit_build_core.build"
    assert sorted(bs["requires"]) == ["pybind11==3.1.0", "scikit-build-core==1.1.2"]  # exact pins
    assert p["project"]["scripts"] == {"sqlgrade": "sqlgrade._cli:main"}
    assert p["project"]["entry-points"]["inspect_ai"] == {"sqlgrade": "sqlgrade.inspect_ai._registry"}
    sk = p["tool"]["scikit-build"]
    assert sk["wheel"]["packages"] == ["python/sqlgrade"] and sk["install"]["components"] == ["python"]
    # the CLI, the module and the library's tables as data: bounds (python/native/bounds_table.cpp, issue
    # 20), the registry and the CLI's flags (registry_table.cpp, src/cli/flag_table_main.cpp, issue 32)
    assert set(sk["build"]["targets"]) == {"sqlgrade", "sqlgrade_native", "sqlgrade_bounds_json", "sqlgrade_registry_json",
                                          "sqlgrade_flags_json"}
    assert not os.path.exists(os.path.join(PY_ROOT, "_build")) and not os.path.exists(os.path.join(PY_ROOT, "pyproject.toml"))
    # the same pins in the lock the project venv is installed from
    with open(os.path.join(PY_ROOT, "requirements", "dev.lock"), encoding="utf-8") as f:
        lock = f.read()
    for pin in bs["requires"]:
        assert pin + " \\" in lock, pin


def test_version_is_the_cmake_projects():
    with open(os.path.join(REPO, "CMakeLists.txt"), encoding="utf-8") as f:
        assert f"project(sqlgrade VERSION {sqlgrade.__version__} " in f.read()


def _launch(args, env, **kw):
    return subprocess.run([sys.executable, "-m", "sqlgrade", *args], capture_output=True, text=True, env=env,
                          timeout=60, **kw)


def test_python_m_sqlgrade_runs_the_cli(tmp_path):
    env = dict(os.environ, SQLGRADE_BIN=sqlgrade_bin())
    r = _launch(["extract-sql"], env, input="<think>SELECT 1</think>```sql\nSELECT 2\n```", cwd=str(tmp_path))
    assert (r.returncode, r.stdout) == (0, "SELECT 2\n"), r.stderr
    r = _launch(["extract-sql"], env, input="nothing here", cwd=str(tmp_path))
    assert r.returncode == 1 and "no SQL found" in r.stderr  # the CLI's exit code and message
    r = _launch(["spider", "--etype", "nope"], env, cwd=str(tmp_path))
    assert r.returncode == 2


def test_launcher_without_a_cli_says_so(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "SQLGRADE_BIN"}
    r = _launch(["--help"], env, cwd=str(tmp_path))
    assert r.returncode == 2 and "SQLGRADE_BIN" in r.stderr and "bin/sqlgrade" in r.stderr
    assert not os.path.exists(os.path.join(os.path.dirname(_cli.__file__), "bin"))  # a source checkout
