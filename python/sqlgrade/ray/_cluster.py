"""Connecting to a Ray cluster under a deadline, and naming its nodes in errors.

``ray.init(address=...)`` on an address nobody answers waits for Ray's own GCS timeouts (a minute
and more, and a ``ray://`` client retries longer): sqlgrade first opens a TCP connection to the
address with the caller's deadline, so an unreachable cluster is one clear error within it.
"""

from __future__ import annotations

import ctypes
import importlib
import os
import signal
import socket
import time
from typing import Any, Dict, List, Optional, Tuple

from ..errors import SqlgradeError

__all__ = ["ClusterError", "connect", "alive_nodes", "node_label", "import_ray", "die_with_parent", "node_lost",
           "wait_on_nodes"]


class ClusterError(SqlgradeError, RuntimeError):
    """The cluster cannot do the job: unreachable, a node without sqlgrade, a shard that failed
    (the message names the node and the database or path)."""


def import_ray() -> Any:
    try:
        return importlib.import_module("ray")
    except ImportError as e:
        raise ClusterError(f"sqlgrade.ray needs Ray ({e}); install it with `pip install 'ray[client]==2.60.0'` "
                           "(the version sqlgrade is tested with, python/requirements/dev.in)") from None


def _host_port(address: str) -> Optional[Tuple[str, int]]:
    a = address[len("ray://"):] if address.startswith("ray://") else address
    host, sep, port = a.rpartition(":")
    if not sep or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def connect(address: Optional[str], *, timeout_s: float = 30.0) -> Any:
    """``ray.init`` on ``address`` (``host:port`` of a GCS, ``ray://host:port``, ``auto``, or None for
    ``RAY_ADDRESS``/a local cluster), after checking within ``timeout_s`` that it answers."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    address = address or os.environ.get("RAY_ADDRESS") or "auto"
    hp = _host_port(address)
    if hp is not None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                socket.create_connection(hp, timeout=max(0.1, min(5.0, deadline - time.monotonic()))).close()
                break
            except OSError as e:
                if time.monotonic() >= deadline:
                    raise ClusterError(f"cannot reach the Ray cluster at {address} within {timeout_s:g} s "
                                       f"({type(e).__name__}: {e}); is `ray start --head` running there?") from None
                time.sleep(0.25)
    for attempt in range(_CLIENT_START_ATTEMPTS):
        try:
            ray.init(address=address, logging_level="ERROR", log_to_driver=False,
                     runtime_env={"env_vars": _forwarded_env()} if not address.startswith("ray://") else None)
            return ray
        except (ConnectionError, RuntimeError, ValueError) as e:
            # A Ray Client server starts one server process per client; on a loaded machine that start can
            # fail inside Ray (the process exits while the proxy reads it: a zombie; or it never answers).
            # Nothing was joined, so joining again is safe: at most _CLIENT_START_ATTEMPTS times in all.
            transient = address.startswith("ray://") and any(m in str(e) for m in _CLIENT_START_FAILURES)
            if not transient or attempt + 1 == _CLIENT_START_ATTEMPTS:
                raise ClusterError(f"cannot join the Ray cluster at {address}: {e}") from None
            time.sleep(1.0 + attempt)
    return ray


# What Ray's client proxy says when the per-client server it starts for this driver dies or does not
# answer (docs/ray.md "Addresses"); any other failure to join is reported at once.
_CLIENT_START_FAILURES = ("Starting Ray client server failed", "Proxy failed to Connect to backend", "ZombieProcess")
_CLIENT_START_ATTEMPTS = 3


def _forwarded_env() -> Dict[str, str]:
    """What a worker needs to find the same data and binary as this driver."""
    return {k: os.environ[k] for k in ("SQLGRADE_BIN", "SQLGRADE_DATA") if os.environ.get(k)}


def alive_nodes(ray: Any) -> List[Dict[str, Any]]:
    return [n for n in ray.nodes() if n.get("Alive")]


# What Ray raises for work placed on a node that is gone: a task pinned to it (NodeAffinity, soft=False)
# is "unschedulable" ("The node specified via NodeAffinitySchedulingStrategy doesn't exist any more or
# is infeasible"; sqlgrade's pinned work asks for no resource, so only a dead node makes it so), an
# actor on it cannot be placed, or its worker dies with it.
_NODE_LOST = ("TaskUnschedulableError", "ActorUnschedulableError", "NodeDiedError", "WorkerCrashedError",
              "RayActorError", "ActorDiedError", "ActorUnavailableError", "OwnerDiedError", "ObjectLostError")


def node_lost(e: BaseException) -> bool:
    """True when ``e`` (from ``ray.get`` of work pinned to one node) says the node is gone."""
    return any(c.__name__ in _NODE_LOST for c in type(e).__mro__)


def wait_on_nodes(ray: Any, refs: Dict[Any, str], timeout_s: float) -> Tuple[List[Any], List[Any], List[Any]]:
    """Waits for ``refs`` (each the work pinned to the node id it maps to) until all are ready or
    ``timeout_s`` passes, and gives up on the work of a node that Ray no longer lists as alive (killed
    after the caller listed it: Ray's list lags a node's death by seconds). Returns (ready, gone,
    pending): gone = refs whose node died, pending = refs still waited for at the deadline."""
    deadline = time.monotonic() + timeout_s
    ready: List[Any] = []
    gone: List[Any] = []
    pending = list(refs)
    while pending:
        r, pending = ray.wait(pending, num_returns=len(pending), timeout=max(0.0, min(1.0, deadline - time.monotonic())))
        ready += r
        if pending:
            alive = {n["NodeID"] for n in alive_nodes(ray)}
            dead = [p for p in pending if refs[p] not in alive]
            for p in dead:
                try:
                    ray.cancel(p, force=True)
                except Exception:  # noqa: BLE001 - an actor call, or already gone
                    pass
            gone += dead
            pending = [p for p in pending if refs[p] in alive]
        if pending and time.monotonic() >= deadline:
            break
    return ready, gone, pending


def node_label(node_id: str, ip: str = "") -> str:
    """How errors name a node: its id's first 12 hex digits and its IP (``ray list nodes`` shows both)."""
    return f"{node_id[:12]}" + (f" ({ip})" if ip else "")


def die_with_parent() -> None:
    """preexec_fn: the child gets SIGTERM when the Ray worker that started it dies (Linux
    PR_SET_PDEATHSIG), so a killed worker never leaves an orphaned grader or server behind."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG = 1
    except OSError:
        pass
