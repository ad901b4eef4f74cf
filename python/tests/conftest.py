"""Shared fixtures: fixture databases built from .sql, real `sqlgrade serve` processes, settings.

The package is imported from this source tree (python/), never from an installed copy; child
processes get the same through PYTHONPATH. `sqlgrade serve` is build/sqlgrade (or SQLGRADE_BIN,
which ctest sets), started on a free loopback port (--port 0).
"""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import Dict, Iterator, List

import pytest

PY_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
REPO = os.path.dirname(PY_ROOT)
FIXTURES = os.path.join(PY_ROOT, "tests", "fixtures")
sys.path.insert(0, PY_ROOT)
os.environ["PYTHONPATH"] = PY_ROOT + (os.pathsep + os.environ["PYTHONPATH"] if os.environ.get("PYTHONPATH") else "")
import sqlgrade  # noqa: E402
from sqlgrade._backend import native_available  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "tools"))
import data_rule  # noqa: E402  (the data rule shared with tests/tools/ and, in C++, test_support.hpp)

needs_native = pytest.mark.skipif(not native_available(),
                                  reason="needs the native module sqlgrade._native (cmake --build build --target sqlgrade_native)")


def sqlgrade_bin() -> str:
    return os.environ.get("SQLGRADE_BIN") or os.path.join(REPO, "build", "sqlgrade")


def data_dir() -> str:
    """SQLGRADE_DATA, else the build's default (ctest passes SQLGRADE_DEFAULT_DATA), else ../shared/data."""
    return data_rule.root()


def require_data(*subs: str) -> str:
    """Inside a test: the data root when every path (relative to it) exists; else the test skips, or
    fails when SQLGRADE_DATA is set (tests/tools/data_rule.py)."""
    return data_rule.require(*subs)


def pytest_configure(config) -> None:
    config.addinivalue_line("markers", "needs_data(*paths): the test reads these paths of the benchmark data; "
                            "skipped when absent, failed when SQLGRADE_DATA is set (tests/tools/data_rule.py)")


@pytest.hookimpl(tryfirst=True)  # before the test's fixtures start servers on data that is not there
def pytest_runtest_setup(item) -> None:
    for mark in item.iter_markers(name="needs_data"):
        data_rule.require(*mark.args)


def file_hashes(paths: List[str]) -> Dict[str, str]:
    out = {}
    for p in paths:
        with open(p, "rb") as f:
            out[p] = hashlib.sha256(f.read()).hexdigest()
    return out


def read_text(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def build_db(sql_file: str, dst: str) -> str:
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    con = sqlite3.connect(dst)
    with open(os.path.join(FIXTURES, sql_file), encoding="utf-8") as f:
        con.executescript(f.read())
    con.commit()
    con.close()
    return dst


@dataclass
class Dbs:
    root: str
    spider2_dir: str  # <dir>/shop.sqlite
    spider_dir: str  # <dir>/school/{school,school_variant}.sqlite
    bird_dir: str  # <dir>/shop/shop.sqlite
    shop: str  # spider2 layout file
    bird_shop: str
    school: str
    school_variant: str

    def all_files(self) -> List[str]:
        return [self.shop, self.bird_shop, self.school, self.school_variant]


@pytest.fixture(scope="session", autouse=True)
def clean_settings() -> None:
    """The tests choose their settings (not at import: worker processes import this module too)."""
    for var in ("SQLGRADE_SERVER", "SQLGRADE_BACKEND", "SQLGRADE_DB_ROOT", "SQLGRADE_CONFIG"):
        os.environ.pop(var, None)
    sqlgrade.reload()


@pytest.fixture(scope="session")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> Dbs:
    root = str(tmp_path_factory.mktemp("dbs"))
    d = Dbs(root, os.path.join(root, "spider2"), os.path.join(root, "spider"), os.path.join(root, "bird"),
            "", "", "", "")
    d.shop = build_db("shop.sql", os.path.join(d.spider2_dir, "shop.sqlite"))
    d.bird_shop = build_db("shop.sql", os.path.join(d.bird_dir, "shop", "shop.sqlite"))
    d.school = build_db("school.sql", os.path.join(d.spider_dir, "school", "school.sqlite"))
    d.school_variant = build_db("school_variant.sql", os.path.join(d.spider_dir, "school", "school_variant.sqlite"))
    return d


class Server:
    """A `sqlgrade serve` child process on a free loopback port."""

    def __init__(self, args: List[str]) -> None:
        exe = sqlgrade_bin()
        if not os.access(exe, os.X_OK):
            raise RuntimeError(f"{exe}: not built (run scripts/setup.sh, or set SQLGRADE_BIN)")
        self.proc = subprocess.Popen([exe, "serve", "--port", "0", *args], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if "listening on " not in line:
            err = self.proc.stderr.read() if self.proc.stderr else ""
            self.proc.kill()
            raise RuntimeError(f"sqlgrade serve did not start: {line!r} {err!r}")
        self.url = line.split("listening on ", 1)[1].split()[0]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


@pytest.fixture(scope="session")
def start_server() -> Iterator:
    """Factory: start_server(*args) -> Server; every server is stopped at the end of the session."""
    servers: List[Server] = []

    def start(*args: str) -> Server:
        s = Server(list(args))
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture(scope="session")
def fixture_server(start_server, dbs: Dbs) -> Server:
    return start_server("--db-dir", dbs.spider2_dir, "--spider-db-dir", dbs.spider_dir, "--bird-db-dir", dbs.bird_dir,
                        "--max-concurrency", "2", "--timeout", "2")


@pytest.fixture
def settings() -> Iterator:
    """Restores the environment and sqlgrade's settings after a test that changes them."""
    saved = dict(os.environ)
    yield sqlgrade.configure
    os.environ.clear()
    os.environ.update(saved)
    sqlgrade.reload()


@pytest.fixture
def srv(fixture_server: Server, settings) -> Server:
    """sqlgrade configured for the fixture server (server backend, default shaping)."""
    settings(server=fixture_server.url, backend="server", shaping={}, db_root=None, benchmark="spider2")
    return fixture_server


def wait_until(cond, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.02)
    return False
