"""A reward client over several ``sqlgrade serve`` (one per node): requests routed by database with
consistent hashing, failover when a node is gone. Plain HTTP (``_server.ServerBackend`` per node): it
never imports Ray, so a trainer process uses it with only the URLs.

Why route by database: a node's gold cache (``/health`` ``gold_cache``) and its OS page cache hold the
databases it has graded; GRPO sends the same prompt (same database, same gold) n times per step, so
sending every request of a database to one node turns n gold executions into one (verl routes a
group to one replica; OpenRLHF shards a batch over a list of reward URLs but by position, which loses
that). Why consistent hashing: adding or losing one node of N moves about 1/N of the databases, not
all of them, so the other nodes keep their warm caches.

Used by the Python adapters when ``SQLGRADE_SERVER`` (or ``sqlgrade.configure(server=...)``) holds
several URLs separated by commas (``_backend.get_backend``), or directly::

    from sqlgrade.ray.client import RoutedBackend
    b = RoutedBackend({"node-a": "http://10.0.0.1:8000", "node-b": "http://10.0.0.2:8000"})
"""

from __future__ import annotations

import bisect
import concurrent.futures
import hashlib
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple

from .._server import ServerBackend, indexed_verdict
from ..errors import InputError, ServerError, ServerUnavailable

__all__ = ["HashRing", "RoutedBackend", "parse_urls"]

VNODES = 64  # points per node on the ring: with 64, each of 8 nodes holds 12.5% +- ~4% of the keys


def _point(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big")


class HashRing:
    """Consistent hashing of keys (``benchmark/db_id``) onto node names, ``VNODES`` points a node."""

    def __init__(self, nodes: Iterator[str] = iter(()), vnodes: int = VNODES) -> None:
        self.vnodes = vnodes
        self._points: List[Tuple[int, str]] = []
        for n in nodes:
            self.add(n)

    def add(self, node: str) -> None:
        if node in self.nodes():
            return
        for i in range(self.vnodes):
            bisect.insort(self._points, (_point(f"{node}#{i}"), node))

    def remove(self, node: str) -> None:
        self._points = [p for p in self._points if p[1] != node]

    def nodes(self) -> List[str]:
        return sorted({n for _, n in self._points})

    def walk(self, key: str) -> List[str]:
        """The distinct nodes in ring order from the key's point: the owner first, then its fallbacks."""
        if not self._points:
            return []
        start = bisect.bisect(self._points, (_point(key), ""))
        seen: List[str] = []
        for k in range(len(self._points)):
            node = self._points[(start + k) % len(self._points)][1]
            if node not in seen:
                seen.append(node)
        return seen


def parse_urls(server: str) -> Dict[str, str]:
    """``"http://a:1,http://b:2"`` -> {url: url} (a static list names each node by its URL)."""
    urls = [u.strip().rstrip("/") for u in server.split(",") if u.strip()]
    if not urls:
        raise InputError(f"server: no URL in {server!r}")
    for u in urls:
        if not u.startswith(("http://", "https://")):
            raise InputError(f"server: {u!r} is not an http:// or https:// URL")
    return {u: u for u in urls}


class RoutedBackend:
    """The backend protocol (``_backend.Backend``) over several servers.

    ``nodes``: {node name: URL}. ``refresh``: optional callable returning a fresh {name: URL} (a Ray
    fleet's supervisor: a restarted server has a new port); called when a node fails. A request whose
    node is unreachable, or does not answer within ``http_timeout``, is sent to the next node on the
    ring (every endpoint is idempotent); a node that failed is left out for ``down_s`` seconds. A 400
    (bad request, missing database) is not retried elsewhere: it raises :class:`InputError` naming
    the node, its URL and the database."""

    name = "routed"

    def __init__(self, nodes: Mapping[str, str], *, refresh: Optional[Callable[[], Mapping[str, str]]] = None,
                 http_timeout: float = 120.0, retries: int = 30, retry_budget: float = 120.0,
                 down_s: float = 5.0, deadline_s: float = 300.0) -> None:
        self._opts = dict(http_timeout=http_timeout, retries=retries, retry_budget=retry_budget, connect_retries=0)
        self._refresh_fn = refresh
        self.down_s = down_s
        self.deadline_s = deadline_s  # one request, over every failover and refresh
        self._lock = threading.Lock()
        self._ring = HashRing()
        self._backends: Dict[str, ServerBackend] = {}
        self._down: Dict[str, float] = {}
        self.failovers = 0  # requests sent again to another node (a count for tests and logs)
        self.set_nodes(nodes)

    # ---- membership --------------------------------------------------------------------------
    def set_nodes(self, nodes: Mapping[str, str]) -> None:
        """Replace the node set: new names join the ring, missing ones leave, changed URLs reconnect."""
        with self._lock:
            for name in list(self._backends):
                if name not in nodes:
                    self._ring.remove(name)
                    del self._backends[name]
            for name, url in nodes.items():
                b = self._backends.get(name)
                if b is None or b.url != url.rstrip("/"):
                    self._backends[name] = ServerBackend(url, **self._opts)
                    self._down.pop(name, None)
                self._ring.add(name)

    def nodes(self) -> Dict[str, str]:
        with self._lock:
            return {n: b.url for n, b in self._backends.items()}

    def owner(self, benchmark: str, db_id: str) -> Optional[str]:
        with self._lock:
            order = self._ring.walk(f"{benchmark}/{db_id}")
        return order[0] if order else None

    def _candidates(self, key: str) -> List[Tuple[str, ServerBackend]]:
        now = time.monotonic()
        with self._lock:
            order = [(n, self._backends[n]) for n in self._ring.walk(key)]
            up = [c for c in order if self._down.get(c[0], 0.0) <= now]
        return up or order  # all marked down: try them all again rather than fail at once

    def _mark_down(self, name: str) -> None:
        with self._lock:
            self._down[name] = time.monotonic() + self.down_s

    def _refresh(self) -> None:
        if self._refresh_fn is not None:
            try:
                self.set_nodes(self._refresh_fn())
            except Exception:  # a supervisor that cannot answer now: keep the nodes we have
                pass

    # ---- routing -----------------------------------------------------------------------------
    def _call(self, request: Dict[str, Any], fn: Callable[[ServerBackend], Dict[str, Any]]) -> Dict[str, Any]:
        key = f"{request.get('benchmark')}/{request.get('db_id')}"
        deadline = time.monotonic() + self.deadline_s
        failed: List[str] = []
        rounds = 0
        while True:
            for name, backend in self._candidates(key):
                try:
                    reply = fn(backend)
                except InputError as e:
                    raise InputError(f"node {name} ({backend.url}): database {request.get('db_id')!r} "
                                     f"({request.get('benchmark')}): {e}") from None
                except ServerError as e:  # unreachable, timed out, 5xx: the request goes to the next node
                    failed.append(f"{name}: {e}")
                    self._mark_down(name)
                    with self._lock:
                        self.failovers += 1
                    if time.monotonic() > deadline:
                        break
                    continue
                reply.setdefault("node", name)
                return reply
            rounds += 1
            if time.monotonic() > deadline or rounds > 3:
                raise ServerUnavailable(f"no sqlgrade serve node answered for database {request.get('db_id')!r} "
                                        f"within {self.deadline_s:g} s: " + "; ".join(failed[-4:]))
            self._refresh()  # a supervisor may have restarted a server on a new port
            time.sleep(min(0.5 * rounds, max(0.0, deadline - time.monotonic())))

    def verdict(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return self._call(request, lambda b: b.verdict(request))

    def execute(self, request: Dict[str, Any]) -> Dict[str, Any]:
        return self._call(request, lambda b: b.execute(request))

    def health(self) -> Dict[str, Dict[str, Any]]:
        """{node: its /health} for the nodes that answer (the others are left out)."""
        out: Dict[str, Dict[str, Any]] = {}
        for name, url in self.nodes().items():
            try:
                out[name] = self._backends[name].health()
            except (ServerError, KeyError):
                pass
        return out

    def verdicts(self, requests: List[Dict[str, Any]], threads: int) -> List[Dict[str, Any]]:
        if not requests:
            return []
        n = min(len(requests), threads if threads > 0 else 4 * max(1, len(self._backends)))
        with concurrent.futures.ThreadPoolExecutor(n, thread_name_prefix="sqlgrade-routed") as pool:
            return list(pool.map(self._indexed, range(len(requests)), requests))

    def _indexed(self, i: int, request: Dict[str, Any]) -> Dict[str, Any]:
        return indexed_verdict(self.verdict, i, request)
