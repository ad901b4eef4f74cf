"""Installing the package: `pip install --no-build-isolation ./python` offline, and the wheel's contents."""

from __future__ import annotations

import base64
import hashlib
import os
import subprocess
import sys
import tarfile
import zipfile

import pytest

from conftest import PY_ROOT

sys.path.insert(0, os.path.join(PY_ROOT, "_build"))
import sqlgrade_build  # noqa: E402

import sqlgrade  # noqa: E402


def _has_pip() -> bool:
    return subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode == 0


def test_wheel_contents_and_record(tmp_path):
    assert sqlgrade_build.get_requires_for_build_wheel() == []  # nothing to download
    name = sqlgrade_build.build_wheel(str(tmp_path))
    native = sqlgrade_build._native(None)
    tag = "py3-none-any" if native is None else sqlgrade_build._tag(native)[0]
    assert name == f"sqlgrade-{sqlgrade.__version__}-{tag}.whl"  # platform-tagged when it carries the module
    with zipfile.ZipFile(tmp_path / name) as z:
        names = set(z.namelist())
        for required in ("sqlgrade/__init__.py", "sqlgrade/py.typed", "sqlgrade/_native.pyi", "sqlgrade/verl.py",
                         "sqlgrade/trl.py", "sqlgrade/openrlhf.py", "sqlgrade/skyrl.py", "sqlgrade/areal.py",
                         "sqlgrade/compat.py", "sqlgrade/spider.py", "sqlgrade/bird.py", "sqlgrade/spider2.py",
                         "sqlgrade/uda.py", "sqlgrade/_evaluate.py"):
            assert required in names
        if native is not None:
            assert f"sqlgrade/{os.path.basename(native)}" in names
        assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
        dist = f"sqlgrade-{sqlgrade.__version__}.dist-info"
        meta = z.read(f"{dist}/METADATA").decode()
        assert f"Version: {sqlgrade.__version__}" in meta and "Name: sqlgrade" in meta
        assert f"Tag: {tag}" in z.read(f"{dist}/WHEEL").decode()
        record = z.read(f"{dist}/RECORD").decode().splitlines()
        listed = {line.split(",")[0] for line in record}
        assert listed == names
        for line in record:
            path, digest, size = line.split(",")
            if not digest:
                continue
            data = z.read(path)
            want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert (digest, int(size)) == (want, len(data)), path


def test_sdist(tmp_path):
    name = sqlgrade_build.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / name) as t:
        names = set(t.getnames())
    base = f"sqlgrade-{sqlgrade.__version__}"
    assert {f"{base}/pyproject.toml", f"{base}/_build/sqlgrade_build.py", f"{base}/PKG-INFO",
            f"{base}/sqlgrade/api.py"} <= names


@pytest.mark.skipif(not _has_pip(), reason=f"{sys.executable} has no pip")
def test_pip_install_offline_without_build_isolation(tmp_path):
    target = tmp_path / "site"
    r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                        "--no-deps", "--target", str(target), PY_ROOT], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    code = ("import sqlgrade, sqlgrade.verl, sqlgrade.trl, sqlgrade.openrlhf, sqlgrade.skyrl, sqlgrade.areal, "
            "sqlgrade.compat, sqlgrade.spider, sqlgrade.bird, sqlgrade.spider2, sqlgrade.uda, os; print(os.path.dirname(sqlgrade.__file__)); print(sqlgrade.__version__)")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert out.returncode == 0, out.stderr
    where, version = out.stdout.split()
    assert where == str(target / "sqlgrade") and version == sqlgrade.__version__
    assert (target / "sqlgrade" / "py.typed").exists() and (target / "sqlgrade" / "_native.pyi").exists()
