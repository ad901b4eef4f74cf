"""A real two-node Ray cluster on this machine for the cluster tests: `ray start --head` and a second
`ray start --address` (separate raylets), each on its own loopback address (127.0.0.2 and 127.0.0.3:
Ray replaces 127.0.0.1 by the machine's network address, and the tests must stay on loopback), its own
custom resource (node_a / node_b), one CPU, token authentication with a token of this run only, and
its own temp folder. Each node runs in its own session (`ray start --block`), so a test "kills a node"
by killing its process group, and teardown ends exactly the processes started here (no `ray stop`,
which would end every Ray of the machine).

Ray's node start has fixed internal limits (agents must register within a time that a loaded 2-core
machine can exceed): a node that is not up within its deadline is stopped and started again, at most
twice (bounded retries, reported).

The Ray Client server (``ray://``) is started by ``client_server()``, on free ports (issue 31): `ray start
--ray-client-server-port` starts Ray's proxy, which starts one "specific server" per client on the
first free port from 23000 — a port every Ray of the machine (other test runs included) starts from,
so that two clients at once could both pick it, and the second one's server failed ("Starting Ray
client server failed", ray_client_server_23000). Here the head's proxy (on a free port: `ray start`
cannot start without one) is left unused, and this module starts Ray's own proxy
(ray.util.client.server --mode proxy, the code `ray start` runs) with its specific-server ports moved
to a block that was free, waiting up to 120 s (not 30) for a specific server to answer on a loaded
machine; a proxy not up within its deadline is started again (at most twice, reported).
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional

VENV_BIN = os.path.dirname(sys.executable)
RAY = os.path.join(VENV_BIN, "ray")


def free_port(host: str = "127.0.0.2") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


class LocalCluster:
    def __init__(self, *, workers: int = 1, token: Optional[str] = None, start_timeout_s: float = 150.0) -> None:
        self.tmp = tempfile.mkdtemp(prefix="sr", dir="/tmp")  # short: Ray's socket paths must fit 107 bytes
        self.port = free_port()
        self.address = f"127.0.0.2:{self.port}"
        self.client_port = 0  # the Ray Client server (client_server()): drivers elsewhere join as ray://
        self.client_address = ""
        self.token = token or secrets.token_hex(32)  # a driver must have it in its environment before `import ray`
        self.start_timeout_s = start_timeout_s
        self.procs: Dict[str, subprocess.Popen] = {}
        self.logs: Dict[str, str] = {}
        self.retries = 0
        self.env = self._env()
        self._start("head", ["--head", "--port", str(self.port), "--node-ip-address", "127.0.0.2",
                             "--ray-client-server-port", str(free_port()),  # its own proxy, left unused
                             "--include-dashboard", "false", "--temp-dir", os.path.join(self.tmp, "t"),
                             "--resources", '{"node_a": 1}'], expect_nodes=1)
        for i in range(workers):
            self.add_node(f"node{i + 2}", f"127.0.0.{3 + i}", {"node_b" if i == 0 else f"node_{i + 2}": 1})

    def _env(self) -> Dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_") and k != "PYTHONDONTWRITEBYTECODE"}
        env.update(RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=self.token,
                   RAY_TMPDIR=os.path.join(self.tmp, "t"), RAY_agent_register_timeout_ms="180000",
                   PYTHONUNBUFFERED="1")
        return env

    def driver_env(self) -> Dict[str, str]:
        """What a driver process (or this test process) needs to join: the token and the address."""
        return {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": self.token, "RAY_ADDRESS": self.address,
                "RAY_USAGE_STATS_ENABLED": "0"}

    def add_node(self, name: str, ip: str, resources: Dict[str, int], ray: str = RAY) -> None:
        """Another node; ``ray``: the `ray` of another venv (its workers run that venv's Python)."""
        import json

        env = None
        if ray != RAY:  # nothing of this checkout on the node's Python path
            env = {k: v for k, v in self.env.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
        self._start(name, ["--address", self.address, "--node-ip-address", ip, "--resources", json.dumps(resources)],
                    expect_nodes=len([n for n in self.procs if n != "client"]) + 1, ray=ray, env=env)

    def _start(self, name: str, args: List[str], expect_nodes: int, ray: str = RAY,
               env: Optional[Dict[str, str]] = None) -> None:
        for attempt in range(3):
            log = os.path.join(self.tmp, f"{name}.{attempt}.log")
            self.logs[name] = log
            with open(log, "w") as f:
                self.procs[name] = subprocess.Popen([ray, "start", "--block", "--num-cpus", "1", *args],
                                                    env=env or self.env, stdout=f, stderr=subprocess.STDOUT,
                                                    start_new_session=True)
            if self._wait_nodes(expect_nodes, self.start_timeout_s, self.procs[name]):
                return
            self.kill(name)
            self.retries += 1
        raise RuntimeError(f"ray start {name}: not up after 3 attempts; log {self.logs[name]}:\n" + self.tail(name))

    def client_server(self, start_timeout_s: float = 120.0) -> str:
        """The ``ray://`` address of a Ray Client server for this cluster, started on first use (free
        ports; at most three starts)."""
        if self.client_address and self.procs.get("client") and self.procs["client"].poll() is None:
            return self.client_address
        patch = ("import runpy, sys; import ray.util.client.server.proxier as p; "
                 "p.MIN_SPECIFIC_SERVER_PORT, p.MAX_SPECIFIC_SERVER_PORT = int(sys.argv[1]), int(sys.argv[2]); "
                 "sys.argv = sys.argv[:1] + sys.argv[3:]; "
                 "runpy.run_module('ray.util.client.server', run_name='__main__', alter_sys=True)")
        env = dict(self.env, RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S="120")
        for attempt in range(3):
            port, base = free_port(), free_port("127.0.0.1")
            log = os.path.join(self.tmp, f"client.{attempt}.log")
            self.logs["client"] = log
            with open(log, "w") as f:
                self.procs["client"] = subprocess.Popen(
                    [sys.executable, "-c", patch, str(base), str(base + 16), f"--address={self.address}",
                     "--host=127.0.0.2", f"--port={port}", "--mode=proxy"],
                    env=env, stdout=f, stderr=subprocess.STDOUT, start_new_session=True)
            deadline = time.monotonic() + start_timeout_s
            while time.monotonic() < deadline and self.procs["client"].poll() is None:
                try:
                    socket.create_connection(("127.0.0.2", port), timeout=2).close()
                    self.client_port, self.client_address = port, f"ray://127.0.0.2:{port}"
                    return self.client_address
                except OSError:
                    time.sleep(0.5)
            self.kill("client")
            self.retries += 1
        raise RuntimeError(f"Ray Client server: not up after 3 attempts; log {self.logs['client']}:\n" + self.tail("client"))

    def tail(self, name: str, n: int = 4000) -> str:
        with open(self.logs[name], encoding="utf-8", errors="replace") as f:
            return f.read()[-n:]

    def _wait_nodes(self, n: int, timeout_s: float, proc: subprocess.Popen) -> bool:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline and proc.poll() is None:
            if self.alive_nodes(timeout_s=30) >= n:
                return True
            time.sleep(2)
        return False

    def alive_nodes(self, timeout_s: float = 60) -> int:
        """Alive nodes as `ray status` (the GCS's autoscaler view; `ray list` needs the dashboard) counts them."""
        try:
            out = subprocess.run([RAY, "status", "--address", self.address], env=self.env, capture_output=True,
                                 text=True, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return 0
        active = out.stdout.split("Active:", 1)[-1].split("Pending:", 1)[0]
        return sum(1 for line in active.splitlines() if " node_" in line) if out.returncode == 0 else 0

    def kill(self, name: str, sig: int = signal.SIGKILL) -> None:
        """End one node: every process of its session (raylet, workers, agents, and on the head the GCS)."""
        p = self.procs.pop(name, None)
        if p is None:
            return
        tree = descendants(p.pid)  # the raylet's workers are its children but not in its process group
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
        for pid in tree:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        try:
            p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait(timeout=20)
        _reap_group(p.pid)

    def node_pids(self, name: str) -> set:
        """The processes of one node: its `ray start`, and everything below it (raylet, workers, agents)."""
        p = self.procs.get(name)
        return set() if p is None else {p.pid, *descendants(p.pid)}

    def stop(self) -> None:
        for name in [n for n in self.procs if n != "head"] + (["head"] if "head" in self.procs else []):
            self.kill(name, signal.SIGTERM)
        shutil.rmtree(self.tmp, ignore_errors=True)


def _reap_group(pgid: int, timeout_s: float = 20.0) -> None:
    """Wait until no process of the group is left (SIGKILL what remains after the deadline)."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = _group_pids(pgid)
        if not left:
            return
        if time.monotonic() > deadline:
            for pid in left:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            return
        if time.monotonic() > deadline - timeout_s / 2:
            try:
                os.killpg(pgid, signal.SIGKILL)
            except ProcessLookupError:
                return
        time.sleep(0.5)


def _procs() -> List[List[str]]:
    """[pid, state, ppid, pgid] of every process (from /proc/<pid>/stat)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    out.append([d, *f.read().rsplit(")", 1)[1].split()[:3]])
            except (OSError, IndexError):
                pass
    return out


def _group_pids(pgid: int) -> List[int]:
    return [int(p[0]) for p in _procs() if p[3] == str(pgid) and p[1] != "Z"]


def descendants(pid: int) -> List[int]:
    """Every process below ``pid`` (children, their children, ...)."""
    kids: Dict[str, List[str]] = {}
    for p in _procs():
        kids.setdefault(p[2], []).append(p[0])
    out, todo = [], [str(pid)]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.append(int(c))
            todo.append(c)
    return out


def parent(pid: int) -> Optional[int]:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None
