"""Reward serving on a Ray cluster: one ``sqlgrade serve`` per node, each owned by a Ray actor pinned
to its node, health-checked and restarted; a :class:`~sqlgrade.ray.client.RoutedBackend` routes
requests to them by database (docs/ray.md, "Reward serving" — and why actors, not Ray Serve).

    fleet = Fleet.start(["--spider-db-dir", "/data/spider/database"], address="10.0.0.1:6379")
    backend = fleet.backend()            # or: SQLGRADE_SERVER=",".join(fleet.urls().values())
    fleet.supervise(interval_s=2.0)      # background thread: restart dead servers, follow node changes
    ...
    fleet.stop()

Restarts: the server process dying is seen by the actor's health check, which starts a new one (same
node, new port); the actor's worker dying makes Ray restart the actor (``max_restarts=-1``) on the
same node, where it starts a new server (the old one got SIGTERM with its parent, PR_SET_PDEATHSIG);
a node dying takes its actor with it: the supervisor drops it from the ring (the client has already
failed its requests over) and starts an actor on any node that joins.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import threading
import time
import urllib.request
from typing import Any, Dict, List, Optional, Sequence

from .._cli import binary
from ._cluster import ClusterError, alive_nodes, connect, die_with_parent, node_label
from .client import RoutedBackend

__all__ = ["Fleet", "ServeNode"]

_LISTENING = re.compile(r"listening on (http://\S+)")


def _last_line(e: BaseException) -> str:
    """A Ray error as one line: the worker's own exception message (a ClusterError names its node)."""
    if "No module named 'sqlgrade" in str(e):
        return "sqlgrade is not installed in the Python of this node's Ray workers (No module named 'sqlgrade')"
    lines = [x for x in str(getattr(e, "cause", None) or e).strip().splitlines() if x.strip()]
    last = lines[-1] if lines else type(e).__name__
    return last.split("ClusterError: ", 1)[-1]


class ServeNode:
    """The actor body (made a Ray actor by :class:`Fleet`): owns one ``sqlgrade serve`` on its node."""

    def __init__(self, serve_args: List[str], start_timeout_s: float = 60.0) -> None:
        import ray

        self.args = list(serve_args)
        self.start_timeout_s = start_timeout_s
        self.node = node_label(ray.get_runtime_context().get_node_id(), ray.util.get_node_ip_address())
        self.host = ray.util.get_node_ip_address()
        self.starts = 0
        self.proc: Optional[subprocess.Popen] = None
        self.url = ""
        self._start()

    def _start(self) -> None:
        cmd = [binary(), "serve", "--host", self.host, "--port", "0", *self.args]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
        deadline = time.monotonic() + self.start_timeout_s
        seen: List[str] = []
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            r, _, _ = select.select([self.proc.stdout], [], [], max(0.0, deadline - time.monotonic()))
            line = self.proc.stdout.readline().decode("utf-8", "replace") if r else ""
            if line:
                seen.append(line.strip())
                m = _LISTENING.search(line)
                if m:
                    self.url = m.group(1).rstrip("/")
                    self.starts += 1
                    threading.Thread(target=self._drain, daemon=True).start()
                    return
            elif self.proc.poll() is not None:
                break
        why = (f"exited {self.proc.returncode}" if self.proc.poll() is not None
               else f"did not start within {self.start_timeout_s:g} s")
        self.proc.kill()
        raise ClusterError(f"node {self.node}: `sqlgrade serve` {why}: " + (seen[-1] if seen else "(no output)"))

    def _drain(self) -> None:  # keep reading the server's log so it never blocks on a full pipe
        p = self.proc
        if p is not None and p.stdout is not None:
            for _ in p.stdout:
                pass

    def info(self) -> Dict[str, Any]:
        """Health-check the server (restart it when it died or does not answer) and describe it."""
        assert self.proc is not None
        ok = self.proc.poll() is None
        if ok:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=10) as r:
                    ok = r.status == 200
            except OSError:
                ok = False
        if not ok:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait(timeout=10)
            self._start()
        return {"node": self.node, "url": self.url, "starts": self.starts, "actor_pid": os.getpid(),
                "server_pid": self.proc.pid}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class Fleet:
    """The per-node servers of one cluster and their supervisor (runs in the driver)."""

    def __init__(self, ray: Any, serve_args: Sequence[str], *, check_timeout_s: float = 20.0) -> None:
        self.ray = ray
        self.serve_args = list(serve_args)
        self.check_timeout_s = check_timeout_s
        self._actors: Dict[str, Any] = {}  # Ray node id -> actor handle
        self._urls: Dict[str, str] = {}  # node label -> URL (what the client routes on)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._backend: Optional[RoutedBackend] = None
        self.restarts = 0
        self.errors: List[str] = []

    @classmethod
    def start(cls, serve_args: Sequence[str], *, address: Optional[str] = None, connect_timeout_s: float = 30.0,
              check_timeout_s: float = 60.0) -> "Fleet":
        """Connect, start one server on every alive node and wait (``check_timeout_s``) until each answers."""
        fleet = cls(connect(address, timeout_s=connect_timeout_s), serve_args, check_timeout_s=check_timeout_s)
        fleet.check()
        if not fleet._urls:
            raise ClusterError("no node of the cluster started `sqlgrade serve`: " + "; ".join(fleet.errors))
        fleet.check_timeout_s = min(check_timeout_s, 20.0)
        return fleet

    def _spawn(self, node_id: str) -> Any:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        actor = self.ray.remote(num_cpus=0, max_restarts=-1, max_task_retries=0, max_concurrency=1)(ServeNode)
        return actor.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False)).remote(
            self.serve_args)

    def check(self) -> Dict[str, str]:
        """One supervision round: actors for new nodes, none for dead ones, every server health-checked
        (restarted by its actor when dead) within ``check_timeout_s``. Returns {node: URL}."""
        nodes = {n["NodeID"]: n for n in alive_nodes(self.ray)}
        with self._lock:
            for nid in list(self._actors):
                if nid not in nodes:
                    self.ray.kill(self._actors.pop(nid), no_restart=True)
            for nid in nodes:
                if nid not in self._actors:
                    self._actors[nid] = self._spawn(nid)
            actors = dict(self._actors)
        refs = {a.info.remote(): nid for nid, a in actors.items()}
        ready, pending = self.ray.wait(list(refs), num_returns=len(refs), timeout=self.check_timeout_s)
        urls: Dict[str, str] = {}
        errors = [f"node {node_label(refs[r], nodes[refs[r]].get('NodeManagerAddress', ''))}: no health answer within "
                  f"{self.check_timeout_s:g} s" for r in pending]
        for r in ready:
            try:
                info = self.ray.get(r)
            except Exception as e:  # noqa: BLE001 - actor died mid-call: Ray restarts it, next round sees it
                n = nodes.get(refs[r], {})
                msg = _last_line(e)  # the actor's own errors already name their node
                errors.append(msg if msg.startswith("node ") else
                              f"node {node_label(refs[r], n.get('NodeManagerAddress', ''))}: {msg}")
                continue
            urls[info["node"]] = info["url"]
            if info["node"] in self._urls and self._urls[info["node"]] != info["url"]:
                self.restarts += 1  # a new server (new port) on a node we knew
        with self._lock:
            self._urls = urls
            self.errors = errors
        if self._backend is not None:
            self._backend.set_nodes(urls)
        return dict(urls)

    def urls(self) -> Dict[str, str]:
        with self._lock:
            return dict(self._urls)

    def backend(self, **kwargs: Any) -> RoutedBackend:
        """The routed client of these servers, kept up to date by :meth:`check` / :meth:`supervise`."""
        if self._backend is None:
            self._backend = RoutedBackend(self.urls(), refresh=self.urls, **kwargs)
        return self._backend

    def supervise(self, interval_s: float = 2.0) -> None:
        """Run :meth:`check` every ``interval_s`` seconds in a daemon thread until :meth:`stop`."""
        def loop() -> None:
            while not self._stop.wait(interval_s):
                try:
                    self.check()
                except Exception:  # noqa: BLE001 - a round that failed (GCS busy): the next one retries
                    pass

        self._thread = threading.Thread(target=loop, name="sqlgrade-ray-supervisor", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 20.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
        with self._lock:
            actors = list(self._actors.values())
            self._actors.clear()
        refs = [a.stop.remote() for a in actors]
        self.ray.wait(refs, num_returns=len(refs), timeout=timeout_s)
        for a in actors:
            self.ray.kill(a, no_restart=True)
