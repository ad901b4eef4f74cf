"""Throwaway PostgreSQL and MariaDB servers for the Python roads (ctest `python.servers`, label server).

Each is a `sqlgrade_test_server` child (tests/server/test_server_main.cpp; SQLGRADE_TEST_SERVER, which
ctest sets): it starts the server in a temporary folder (unix socket only), loads the Mini-Dev dump with
`sqlgrade db load` (as bird_fixture / BIRD_fixture: the documented commands create bird / BIRD
themselves), prints the read-only login's URI, and stops the server when its standard input
closes — at the end of the session, or when this process dies. Tests skip when the server binaries or
the data are missing.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Dict, Iterator

import pytest

from conftest import data_dir, sqlgrade_bin


def _server(kind: str, dump: str, name: str) -> Iterator[Dict[str, str]]:
    exe = os.environ.get("SQLGRADE_TEST_SERVER") or os.path.join(os.path.dirname(sqlgrade_bin()), "tests",
                                                                 "sqlgrade_test_server")
    path = os.path.join(data_dir(), dump)
    if not os.path.isfile(path):
        pytest.skip(f"benchmark data not found: {path}")
    if not os.access(exe, os.X_OK):
        pytest.fail(f"{exe}: not built (cmake --build build --target sqlgrade_test_server)")
    proc = subprocess.Popen([exe, "--kind", kind, "--load", f"{name}={path}"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    if not line:
        err = proc.stderr.read() if proc.stderr else ""
        proc.wait()
        if proc.returncode == 77:
            pytest.skip(err.strip())
        pytest.fail(f"sqlgrade_test_server {kind} did not start: {err}")
    info = json.loads(line)
    yield {"reader": info["readers"][name], "admin": info["admin_dsn"], "dir": info["dir"]}
    if proc.stdin:
        proc.stdin.close()  # the server stops, its folder goes
    proc.wait(timeout=60)


@pytest.fixture(scope="session")
def pg() -> Iterator[Dict[str, str]]:
    yield from _server("postgresql", "bird/minidev_postgresql/BIRD_dev.sql", "bird_fixture")


@pytest.fixture(scope="session")
def my() -> Iterator[Dict[str, str]]:
    yield from _server("mariadb", "bird/minidev_mysql/BIRD_dev.sql", "BIRD_fixture")
