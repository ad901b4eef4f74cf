"""The server backend: HTTP/JSON to a running ``sqlgrade serve`` (stdlib ``http.client`` only).

* One keep-alive connection per thread (and per process: a forked child opens its own).
  The server closes idle connections after 2 s; a request on a connection the server already
  closed is resent once on a fresh connection (every endpoint used here is idempotent).
* 503 (queue full) is retried after the server's ``Retry-After`` (at most ``retries`` times and
  ``retry_budget`` seconds in all), then :class:`ServerBusy`.
* A refused or reset connection is retried ``connect_retries`` times (0.2 s, 0.4 s, ...), then
  :class:`ServerUnavailable`. No reply within ``http_timeout``: :class:`ServerTimeout`.
* 400 / 413 are bad requests: :class:`InputError` with the server's one-line message.

Requests follow the backend protocol (``_backend.py``); this module maps them onto the
``/verify`` body of docs/serve.md. The server resolves ``db_id`` in its own folders.
"""

from __future__ import annotations

import concurrent.futures
import http.client
import json
import os
import socket
import threading
import time
import urllib.parse
from typing import Any, Dict, List, Optional, Tuple

from .errors import BackendUnsupported, InputError, ServerBusy, ServerError, ServerTimeout, ServerUnavailable

__all__ = ["ServerBackend", "verify_body"]

# Errors that mean "this connection is gone" (refused, reset, closed, unreachable host, a reply cut
# short): reconnect, and resend once at once if it was a reused keep-alive connection.
_CONN_ERRORS = (OSError, http.client.HTTPException)


def verify_body(req: Dict[str, Any]) -> Dict[str, Any]:
    """The /verify JSON body for a protocol request (docs/serve.md): the same fields, with the
    database as ``db_id`` (the server resolves it in its own folders; it never takes a path)."""
    body: Dict[str, Any] = {"db_id": req["db_id"], "benchmark": req["benchmark"]}
    if req.get("sql") is not None:
        body["sql"] = req["sql"]  # verbatim: no extraction
    else:
        body["model_output"] = req.get("model_output") or ""
    for k in ("gold_sql", "gold_result", "ignore_order", "condition_cols", "instance_id", "gold_single_file",
              "extract", "timeout", "verify", "order", "shaping", "now", "dialect"):
        if req.get(k) is not None:
            body[k] = req[k]
    for k in ("plug_value", "keep_distinct"):
        if req.get(k):
            body[k] = True
    return body


def _cell(v: Any) -> Any:
    """A /execute cell: JSON has no bytes, so the server sends a BLOB as {"blob_hex": "..."}."""
    if isinstance(v, dict) and "blob_hex" in v:
        return bytes.fromhex(v["blob_hex"])
    return v


class ServerBackend:
    name = "server"

    def __init__(self, url: str, *, http_timeout: float = 120.0, retries: int = 30, retry_budget: float = 120.0,
                 connect_retries: int = 2) -> None:
        u = urllib.parse.urlsplit(url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise InputError(f"{url}: not an http(s)://host:port URL")
        self.url = url.rstrip("/")
        self._https = u.scheme == "https"
        self._host = u.hostname
        self._port = u.port or (443 if self._https else 80)
        self._prefix = u.path.rstrip("/")
        self.http_timeout = http_timeout
        self.retries = retries
        self.retry_budget = retry_budget
        self.connect_retries = connect_retries
        self._local = threading.local()
        self._health: Optional[Dict[str, Any]] = None

    # ---- connections -------------------------------------------------------------------------
    def _conn(self) -> Tuple[http.client.HTTPConnection, bool]:
        """This thread's connection and whether it was used before."""
        c = getattr(self._local, "conn", None)
        if c is not None and self._local.pid == os.getpid():
            return c, True
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        c = cls(self._host, self._port, timeout=self.http_timeout)
        self._local.conn, self._local.pid = c, os.getpid()
        return c, False

    def _drop(self) -> None:
        c = getattr(self._local, "conn", None)
        self._local.conn = None
        if c is not None and self._local.pid == os.getpid():
            c.close()

    def _once(self, method: str, path: str, body: Optional[bytes]) -> Tuple[int, Dict[str, str], bytes]:
        for attempt in (0, 1):
            conn, reused = self._conn()
            try:
                headers = {"Content-Type": "application/json"} if body is not None else {}
                conn.request(method, self._prefix + path, body=body, headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                if resp.getheader("Connection", "").lower() == "close":
                    self._drop()
                return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
            except socket.timeout:
                self._drop()
                raise ServerTimeout(f"sqlgrade serve at {self.url}: no reply within {self.http_timeout:g} s") from None
            except _CONN_ERRORS:
                self._drop()
                if reused and attempt == 0:
                    continue  # the server closed an idle keep-alive connection: resend on a new one
                raise
        raise AssertionError("unreachable")

    def request(self, method: str, path: str, payload: Any = None) -> Tuple[int, Dict[str, Any]]:
        """Send with retries; returns (status, JSON body) for 200/404 and raises for the rest."""
        body = None if payload is None else _json_bytes(payload)
        deadline = time.monotonic() + self.retry_budget
        busy = refused = 0
        while True:
            try:
                status, headers, data = self._once(method, path, body)
            except ServerError:
                raise
            except _CONN_ERRORS as e:
                refused += 1
                if refused > self.connect_retries:
                    raise ServerUnavailable(
                        f"cannot reach sqlgrade serve at {self.url} ({type(e).__name__}: {e}); is it running? "
                        f"(SQLGRADE_SERVER={self.url})") from None
                time.sleep(0.2 * 2 ** (refused - 1))
                continue
            if status == 503:
                busy += 1
                wait = _retry_after(headers.get("retry-after"))
                if busy > self.retries or time.monotonic() + wait > deadline:
                    raise ServerBusy(f"sqlgrade serve at {self.url} is busy (503, queue full) after {busy} "
                                     f"attempt(s) in {self.retry_budget:g} s; raise --max-queue or lower the load")
                time.sleep(wait)
                continue
            return status, self._decode(status, data)

    def _decode(self, status: int, data: bytes) -> Dict[str, Any]:
        try:
            obj = json.loads(data.decode("utf-8", errors="replace")) if data else {}
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            raise ServerError(f"sqlgrade serve at {self.url}: HTTP {status} with a body that is not a JSON object")
        if status in (400, 413):
            msg = obj.get("error") or ("request too large" if status == 413 else "bad request")
            raise InputError(str(msg))
        if status not in (200, 404):
            raise ServerError(f"sqlgrade serve at {self.url}: HTTP {status}: {obj.get('error', '')}".rstrip(": "))
        return obj

    # ---- protocol ----------------------------------------------------------------------------
    def health(self) -> Dict[str, Any]:
        status, obj = self.request("GET", "/health")
        if status != 200:
            raise ServerError(f"sqlgrade serve at {self.url}: /health answered {status}")
        self._health = obj
        return obj

    def verdict(self, request: Dict[str, Any]) -> Dict[str, Any]:
        t0 = time.perf_counter()
        status, reply = self.request("POST", "/verify", verify_body(request))
        if status != 200:
            raise ServerError(f"sqlgrade serve at {self.url}: /verify answered {status}")
        reply.setdefault("timings", {})["request_s"] = time.perf_counter() - t0
        return reply

    def _threads(self, n: int, threads: int) -> int:
        if threads > 0:
            return min(threads, n)
        try:  # enough requests in flight to keep the server's workers busy, not to fill its queue
            workers = int((self._health or self.health()).get("max_concurrency") or 2)
        except ServerError:
            workers = 2
        return max(1, min(n, 2 * workers))

    def verdicts(self, requests: List[Dict[str, Any]], threads: int) -> List[Dict[str, Any]]:
        bodies = [verify_body(r) for r in requests]  # refuse unsupported requests before sending any
        if not requests:
            return []
        if len(requests) == 1:
            return [self._indexed(0, requests[0])]
        with concurrent.futures.ThreadPoolExecutor(self._threads(len(bodies), threads),
                                                   thread_name_prefix="sqlgrade-http") as pool:
            return list(pool.map(self._indexed, range(len(requests)), requests))

    def _indexed(self, i: int, request: Dict[str, Any]) -> Dict[str, Any]:
        return indexed_verdict(self.verdict, i, request)

    def execute(self, request: Dict[str, Any]) -> Dict[str, Any]:
        body = {k: request[k] for k in ("db_id", "benchmark", "sql", "timeout", "max_rows", "max_bytes")}
        if request.get("now") is not None:
            body["now"] = request["now"]
        if request.get("dialect"):
            body["dialect"] = request["dialect"]  # the server's own --dsn database of that dialect
        t0 = time.perf_counter()
        status, reply = self.request("POST", "/execute", body)
        if status == 404:
            raise BackendUnsupported(
                f"sqlgrade serve at {self.url} has no POST /execute (a server older than sqlgrade 0.1 with "
                "issue 14); execute() needs the native backend or a newer server")
        reply["rows"] = [[_cell(c) for c in row] for row in reply.get("rows") or []]
        reply.setdefault("timings", {})["request_s"] = time.perf_counter() - t0
        return reply


def indexed_verdict(verdict: Any, i: int, request: Dict[str, Any]) -> Dict[str, Any]:
    """``verdict(request)`` for item ``i`` of a batch: a bad request's message names its index."""
    try:
        return verdict(request)
    except InputError as e:
        raise InputError(f"request {i}: {e}") from None


def _json_bytes(payload: Any) -> bytes:
    """The request body as UTF-8 JSON. A model output holding a lone surrogate (issue 19) cannot be
    UTF-8: then every non-ASCII character is escaped, the lone surrogate as "\\ud83d", which the server
    reads for model output (src/sqlgrade/serve/surrogates.hpp) and refuses elsewhere."""
    text = json.dumps(payload, ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(payload).encode("ascii")


def _retry_after(value: Optional[str]) -> float:
    try:
        return min(max(float(value or 1), 0.05), 30.0)
    except ValueError:
        return 1.0
