"""Server mode under stress: 503 with Retry-After, unreachable / stopped / silent / broken servers,
keep-alive connections the server closed, /health."""

from __future__ import annotations

import http.server
import json
import socket
import threading
import time

import pytest

import sqlgrade
from conftest import Dbs, wait_until
from sqlgrade._server import ServerBackend

RUNAWAY = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def busy_server(start_server, dbs: Dbs):
    """One worker, no queue, 1.5 s deadline: a second request while a runaway query runs gets 503."""
    return start_server("--db-dir", dbs.spider2_dir, "--max-concurrency", "1", "--max-queue", "0", "--timeout", "1.5")


def occupy(url: str, db: str) -> threading.Thread:
    """Start a runaway query (1.5 s) in a thread and wait until the server runs it."""
    b = ServerBackend(url)

    def run() -> None:
        b.verdict({"benchmark": "spider2", "db_id": "shop", "db": db, "sql": RUNAWAY, "gold_sql": "SELECT 1"})

    t = threading.Thread(target=run)
    t.start()
    assert wait_until(lambda: ServerBackend(url).health()["pending"] >= 1, 5), "the runaway query never started"
    return t


def test_503_is_retried_after_retry_after_then_succeeds(busy_server, dbs: Dbs, settings):
    settings(server=busy_server.url, backend="server")
    t = occupy(busy_server.url, dbs.shop)
    t0 = time.monotonic()
    v = sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False)
    waited = time.monotonic() - t0
    t.join()
    assert v.reward == 1.0
    assert waited >= 0.5, waited  # it had to wait for the runaway query (Retry-After: 1)
    assert ServerBackend(busy_server.url).health()["rejected_busy"] >= 1


def test_503_without_retries_raises_server_busy(busy_server, dbs: Dbs, settings):
    settings(server=busy_server.url, backend="server", retries=0)
    t = occupy(busy_server.url, dbs.shop)
    try:
        with pytest.raises(sqlgrade.ServerBusy, match="busy"):
            sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False)
    finally:
        t.join()
    settings(retries=30, retry_budget=0.3)  # a budget shorter than Retry-After gives up at once
    t = occupy(busy_server.url, dbs.shop)
    try:
        t0 = time.monotonic()
        with pytest.raises(sqlgrade.ServerBusy):
            sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False)
        assert time.monotonic() - t0 < 1.0
    finally:
        t.join()


def test_unreachable_server(dbs: Dbs, settings):
    url = f"http://127.0.0.1:{free_port()}"
    settings(server=url, backend="server", connect_retries=1)
    t0 = time.monotonic()
    with pytest.raises(sqlgrade.ServerUnavailable, match="cannot reach sqlgrade serve at " + url) as e:
        sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1")
    assert isinstance(e.value, ConnectionError) and isinstance(e.value, sqlgrade.ServerError)
    assert time.monotonic() - t0 < 3
    with pytest.raises(sqlgrade.ServerUnavailable):
        sqlgrade.verdicts([{"output": "SELECT 1"}] * 3, db=dbs.shop, gold_sql="SELECT 1")


def test_server_that_stops_mid_session(start_server, dbs: Dbs, settings):
    s = start_server("--db-dir", dbs.spider2_dir)
    settings(server=s.url, backend="server", connect_retries=1)
    assert sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False).reward == 1.0
    assert s.stop() == 0  # SIGTERM: graceful exit
    with pytest.raises(sqlgrade.ServerUnavailable):
        sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False)


def test_idle_keep_alive_connection_closed_by_the_server_is_reopened(srv, dbs: Dbs, settings):
    settings(connect_retries=0)  # so only the immediate resend on a fresh connection can save the 2nd call
    assert sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False).reward == 1.0
    time.sleep(2.5)  # the server closes keep-alive connections idle for 2 s
    assert sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False).reward == 1.0


def test_silent_server_times_out(dbs: Dbs, settings):
    with socket.socket() as s:  # accepts connections (kernel backlog) and never answers
        s.bind(("127.0.0.1", 0))
        s.listen(8)
        settings(server=f"http://127.0.0.1:{s.getsockname()[1]}", backend="server", http_timeout=0.5)
        t0 = time.monotonic()
        with pytest.raises(sqlgrade.ServerTimeout, match="no reply within 0.5 s") as e:
            sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1")
        assert isinstance(e.value, TimeoutError)
        assert time.monotonic() - t0 < 3


class _Broken(http.server.BaseHTTPRequestHandler):
    replies = {"/verify": (500, b'{"error": "internal error: boom"}'), "/health": (200, b"not json")}

    def do_POST(self):  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self._reply()

    def do_GET(self):  # noqa: N802
        self._reply()

    def _reply(self):
        status, body = self.replies.get(self.path, (404, b"{}"))
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_unexpected_status_and_unreadable_bodies_raise_server_error(dbs: Dbs, settings):
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Broken)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{httpd.server_address[1]}"
        settings(server=url, backend="server")
        with pytest.raises(sqlgrade.ServerError, match="HTTP 500: internal error: boom"):
            sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1")
        with pytest.raises(sqlgrade.ServerError, match="not a JSON object"):
            ServerBackend(url).health()
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_health_and_bad_urls(srv):
    h = ServerBackend(srv.url).health()
    assert h["status"] == "ok" and h["benchmarks"] == {"spider2": True, "spider": True, "bird": True}
    for bad in ("localhost:8000", "ftp://x", ""):
        with pytest.raises(sqlgrade.InputError):
            sqlgrade.Config(server=bad)
    json.dumps(h)
