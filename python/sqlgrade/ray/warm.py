"""Batch grading with warm graders: Ray actors that import sqlgrade's native module once and grade
batches in-process through the library (``sqlgrade.spider/bird/spider2/uda.evaluate``), each batch
the databases (UDA: the datasets) of one ``--shard i/n --shard-by db`` shard, merged in-process
(``sqlgrade.runs.merge``, the library's ``sqlgrade merge``) into the record one process writes (docs/ray.md, "Warm graders").

Why actors here, when ``batch.py`` uses tasks: a task per shard pays a Ray worker start and a CLI
process start per shard; a pool of graders pays them once per worker and keeps the imported native
module and the node's page cache of its databases across batches and across runs (a ``GraderPool``
lives as long as the caller keeps it). A batch is a shard by database, so a database's questions are
graded together: the run's gold memo answers every repeat of a gold query in the batch, and each
database is opened by one grader only.

Routing: batch i goes to grader ``(i - 1) mod G`` of the pool (graders sorted by node, then by their
rank on it), so the same databases go to the same grader run after run (affinity); a grader that has
finished its own batches takes the last queued batch of the busiest other grader (the affinity is a
preference, not a wait). Faults: a grader that dies (its worker or its node) has its batch queued
again for the other graders; only a batch's first finished record is kept, so every instance is
graded exactly once (``merge`` refuses a duplicated id).
"""

from __future__ import annotations

import functools
import importlib
import inspect
import os
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..errors import InputError
from ._cluster import ClusterError, alive_nodes, connect, node_label, node_lost, wait_on_nodes
from .batch import _merge, _refuse_both, _remote_error, check_nodes, check_output

__all__ = ["GraderPool", "grade_warm", "command_kwargs", "WARM_BENCHMARKS"]

# Which CLI flags the in-process evaluate() takes, and as which keyword: the flags are the CLI's own
# definitions (sqlgrade._tables.command_flags: names, aliases, value, type, path role); the keyword is
# the first of the flag's names (with underscores) that evaluate() takes — spider2's --pred is its
# official --result_dir — else the Python API's own keyword below, for the three flags where the API
# chose a name none of the flag's names is (Python naming, no rule of the library); a flag is taken when
# evaluate() has that keyword (uda's **options: a field of the library's option struct).
WARM_BENCHMARKS = ("spider", "bird", "spider2", "uda")
_KEYWORDS: Dict[str, Dict[str, str]] = {  # the Python API's keyword where it is none of the flag's names
    "spider": {"db": "db_dir"},
    "bird": {"db": "db_dir", "diff_json_path": "diff_json"},
}
_IGNORED = ("no_progress", "quiet")  # progress and quietness: in-process evaluation never prints
_SET_HERE = ("shard", "shard_by")  # each batch's shard, set by the warm graders
_CAST = {"INT": int, "UINT": int, "FLOAT": float}


@functools.lru_cache(maxsize=None)  # _keyword asks for each of a flag's names, then command_kwargs again
def _taken(benchmark: str, keyword: str) -> bool:
    """Whether sqlgrade.<benchmark>.evaluate() takes ``keyword``."""
    fn = importlib.import_module(f"sqlgrade.{benchmark}").evaluate
    params = inspect.signature(fn).parameters
    if keyword in params and params[keyword].kind is inspect.Parameter.KEYWORD_ONLY:
        return keyword not in _SET_HERE
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):  # uda.run(**options)
        from .. import _tables

        mod = _tables.native()
        return mod is None or hasattr(mod.UdaOptions(), keyword)
    return False


def _keyword(benchmark: str, row: Dict[str, Any]) -> str:
    names = [n.lstrip("-").replace("-", "_") for n in row["names"] if n.startswith("--")] or [row["names"][0]]
    taken = next((n for n in names if _taken(benchmark, n)), None)
    return taken if taken is not None else _KEYWORDS.get(benchmark, {}).get(names[0], names[0])


def _value(row: Dict[str, Any], flag: str, value: str) -> Any:
    if row["path"] != "value":
        return os.path.abspath(value)
    try:
        return _CAST.get(row["type"], str)(value)
    except ValueError:
        raise InputError(f"sqlgrade.ray: {flag}: not a number: {value!r}") from None


def command_kwargs(command: Sequence[str]) -> Tuple[str, Dict[str, Any]]:
    """``spider --gold g --pred p --db d --etype exec`` (the CLI's command) as ("spider", evaluate()'s
    keyword arguments); relative paths made absolute. A flag the in-process evaluation does not take
    is an InputError naming it (grade that run with the shard tasks, ``sqlgrade.ray.grade``)."""
    from .._tables import command_flags, flag_of

    cmd = [str(c) for c in command]
    if not cmd or cmd[0] not in WARM_BENCHMARKS:
        raise InputError(f"sqlgrade.ray: warm graders grade {', '.join(WARM_BENCHMARKS)} (got {cmd[:1]}); "
                         "grade other commands with the shard tasks (without --warm)")
    if cmd[0] == "uda" and cmd[1:2] != ["run"]:
        raise InputError("sqlgrade.ray: only `uda run` grades a set (got `uda " + " ".join(cmd[1:2]) + "`)")
    _refuse_both(cmd)
    head = 2 if cmd[0] == "uda" else 1
    flags, out, i = command_flags(" ".join(cmd[:head])), {}, head
    while i < len(cmd):
        flag, eq, value = cmd[i].partition("=")
        row = flag_of(flags, cmd[i])
        keyword = _keyword(cmd[0], row) if row else ""
        if row is None or not (keyword in _IGNORED or _taken(cmd[0], keyword)):
            raise InputError(f"sqlgrade.ray: {flag} is not taken by the warm graders' in-process "
                             f"sqlgrade.{cmd[0]}.evaluate(); grade this run with the shard tasks (without --warm)")
        if not row["value"]:
            if keyword not in _IGNORED:
                out[keyword] = True
            i += 1
            continue
        if not eq:
            if i + 1 >= len(cmd):
                raise InputError(f"sqlgrade.ray: {flag} needs a value")
            value, i = cmd[i + 1], i + 1
        if keyword not in _IGNORED:
            out[keyword] = _value(row, flag, value)
        i += 1
    return cmd[0], out


class _Grader:
    """One warm grader (a Ray actor): the native module imported once, batches graded in-process."""

    def __init__(self, rank: int) -> None:
        import sqlgrade  # noqa: F401 - the native module loads here, once per grader

        for b in WARM_BENCHMARKS:
            importlib.import_module(f"sqlgrade.{b}")
        self.rank = rank
        self.batches = 0

    def info(self) -> Dict[str, Any]:
        import ray

        ctx = ray.get_runtime_context()
        return {"node": node_label(ctx.get_node_id(), ray.util.get_node_ip_address()), "node_id": ctx.get_node_id(),
                "pid": os.getpid(), "rank": self.rank, "batches": self.batches}

    def grade(self, benchmark: str, kwargs: Dict[str, Any], index: int, count: int) -> Dict[str, Any]:
        """Batch ``index`` of ``count``: the databases of shard index/count by db, its record as text."""
        from ..errors import SqlgradeError

        where = self.info()
        t0 = time.monotonic()
        try:
            run = importlib.import_module(f"sqlgrade.{benchmark}").evaluate(
                **kwargs, shard=f"{index}/{count}", shard_by="db")
        except SqlgradeError as e:  # bad input: not retried, the job stops with the node named
            return {"index": index, "error": f"node {where['node']}: batch {index}/{count}: {e}"}
        self.batches += 1
        return {"index": index, "node": where["node"], "pid": where["pid"], "rank": self.rank,
                "seconds": time.monotonic() - t0, "record": run.json or "", "warm": self.batches > 1}


def _check_cpus(num_cpus: float) -> None:
    if not isinstance(num_cpus, (int, float)) or not 0 <= num_cpus <= 1024:
        raise InputError(f"sqlgrade.ray: num_cpus must be a number within [0, 1024] (a grader's share of Ray's "
                         f"CPUs), got {num_cpus!r}")


class GraderPool:
    """Warm graders on the cluster: ``per_node`` on each alive node (0: one per CPU of the node), each
    a Ray actor holding ``num_cpus`` of Ray's CPUs (default 1) for as long as the pool lives. Keep the
    pool across runs to keep it warm; ``close()`` frees the CPUs.

    A pool kept beside other Ray work (an RL trainer's rollouts, say) holds its CPUs between runs too.
    ``num_cpus=0`` reserves nothing: the graders then share the node's cores with whatever Ray places
    there, unaccounted while they grade (docs/ray.md, "Warm graders": the choice is the user's).
    """

    def __init__(self, ray: Any, per_node: int, start_timeout_s: float, num_cpus: float = 1.0) -> None:
        _check_cpus(num_cpus)
        self.ray, self.per_node, self.start_timeout_s = ray, per_node, start_timeout_s
        self.num_cpus = float(num_cpus)
        self._remote = ray.remote(num_cpus=self.num_cpus, max_restarts=0, max_task_retries=0)(_Grader)
        self.actors: List[Any] = []
        self.infos: List[Dict[str, Any]] = []
        self._next_rank = 0
        self.repair()

    @classmethod
    def start(cls, address: Optional[str] = None, *, per_node: int = 0, connect_timeout_s: float = 30.0,
              start_timeout_s: float = 120.0, paths: Sequence[str] = (), num_cpus: float = 1.0) -> "GraderPool":
        """Connect, check every node (sqlgrade importable, ``paths`` present: else a ClusterError naming
        the node, within ``start_timeout_s``) and start the graders (``num_cpus`` each)."""
        _check_cpus(num_cpus)  # before connecting: a bad value is the caller's, not the cluster's
        ray = connect(address, timeout_s=connect_timeout_s)
        check_nodes(ray, list(paths), start_timeout_s, need_cli=False)
        return cls(ray, per_node, start_timeout_s, num_cpus)

    def repair(self) -> None:
        """Start graders where a node has fewer than it should (at start, and after graders died)."""
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        have: Dict[str, int] = {}
        for info in self.infos:
            have[info["node_id"]] = have.get(info["node_id"], 0) + 1
        new = []
        for n in alive_nodes(self.ray):
            want = self.per_node or int(n.get("Resources", {}).get("CPU", 0))
            for _ in range(want - have.get(n["NodeID"], 0)):
                rank = self._next_rank + len(new)
                new.append((self._remote.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
                    n["NodeID"], soft=False)).remote(rank), node_label(n["NodeID"], n["NodeManagerAddress"]),
                    n["NodeID"]))
        if not new:
            return
        self._next_rank += len(new)
        refs = {a.info.remote(): node_id for a, _, node_id in new}
        # A node that died after it was listed (Ray lists it alive for seconds) gets no grader; the others do.
        _, gone, pending = wait_on_nodes(self.ray, refs, self.start_timeout_s)
        started = []
        for (a, where, _), r in zip(new, refs):
            try:
                if r in gone:
                    continue
                if r in pending:
                    raise ClusterError(f"node {where}: a sqlgrade grader did not start within "
                                       f"{self.start_timeout_s:g} s (its CPUs busy with other work?)")
                try:
                    info = self.ray.get(r)
                except Exception as e:  # noqa: BLE001 - Ray wraps the worker's exception
                    if node_lost(e):
                        continue
                    raise ClusterError(f"node {where}: a sqlgrade grader failed to start: {_remote_error(e)}") from None
            except ClusterError:
                for b, _, _ in new:
                    self.ray.kill(b)
                raise
            started.append((a, info))
        for a, _, _ in new:
            if all(a is not b for b, _ in started):
                try:
                    self.ray.kill(a)
                except Exception:  # noqa: BLE001 - its node is gone
                    pass
        for a, info in started:
            self.actors.append(a)
            self.infos.append(info)
        order = sorted(range(len(self.actors)), key=lambda k: (self.infos[k]["node_id"], self.infos[k]["rank"]))
        self.actors = [self.actors[k] for k in order]
        self.infos = [self.infos[k] for k in order]

    def drop(self, ranks: Sequence[int]) -> None:
        """Forget the graders of these ranks (dead); ``repair()`` replaces them."""
        keep = [k for k, i in enumerate(self.infos) if i["rank"] not in set(ranks)]
        self.actors = [self.actors[k] for k in keep]
        self.infos = [self.infos[k] for k in keep]

    def close(self) -> None:
        for a in self.actors:
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self.actors, self.infos = [], []

    def __enter__(self) -> "GraderPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


_LOST = ("RayActorError", "ActorDiedError", "ActorUnavailableError", "WorkerCrashedError", "NodeDiedError",
         "ActorUnschedulableError", "OwnerDiedError", "ObjectLostError")


def _lost(e: BaseException) -> bool:
    """A grader lost with its batch (its worker or node died), as opposed to a failed batch."""
    return any(c.__name__ in _LOST for c in type(e).__mro__)


class _Schedule:
    """Batches 1..n over the pool's graders: affinity queues, stealing, and re-queueing lost batches."""

    def __init__(self, pool: GraderPool, benchmark: str, kwargs: Dict[str, Any], n: int, retries: int) -> None:
        self.pool, self.benchmark, self.kwargs, self.n, self.retries = pool, benchmark, kwargs, n, retries
        self.graders = list(zip(pool.actors, pool.infos))
        g = len(self.graders)
        self.queues: List[List[int]] = [[i for i in range(1, n + 1) if (i - 1) % g == k] for k in range(g)]
        self.alive = [True] * g
        self.inflight: Dict[Any, Tuple[int, int]] = {}  # ref -> (batch, grader)
        self.attempts: Dict[int, int] = {}
        self.parts: Dict[int, Dict[str, Any]] = {}
        self.lost: List[Dict[str, Any]] = []

    def _busy(self, k: int) -> bool:
        return any(g == k for _, g in self.inflight.values())

    def _next(self, k: int) -> Optional[int]:
        if self.queues[k]:
            return self.queues[k].pop(0)
        donors = [d for d in range(len(self.queues)) if self.queues[d]]
        if not donors:
            return None
        return self.queues[max(donors, key=lambda d: len(self.queues[d]))].pop()  # the donor's last batch

    def dispatch(self) -> None:
        for k, (actor, _) in enumerate(self.graders):
            if self.alive[k] and not self._busy(k):
                i = self._next(k)
                if i is not None:
                    self.inflight[actor.grade.remote(self.benchmark, self.kwargs, i, self.n)] = (i, k)

    def requeue(self, i: int, k: int, e: BaseException) -> None:
        """Grader k died with batch i: the batch (first) and k's queue go to the graders left, the
        batch to one on the same node when there is one (its databases are in that page cache)."""
        self.alive[k] = False
        self.attempts[i] = self.attempts.get(i, 0) + 1
        info = self.graders[k][1]
        self.lost.append({"batch": i, "node": info["node"], "pid": info["pid"], "rank": info["rank"],
                          "error": type(e).__name__})
        if self.attempts[i] > self.retries:
            raise ClusterError(f"batch {i}/{self.n}: its grader died {self.attempts[i]} times "
                               f"(last on node {info['node']}: {type(e).__name__})")
        left = [j for j in range(len(self.graders)) if self.alive[j]]
        if not left:
            raise ClusterError(f"every sqlgrade grader died (last on node {info['node']}); "
                               f"batches {sorted([i, *self.queues[k]])} of {self.n} not graded")
        same = [j for j in left if self.graders[j][1]["node_id"] == info["node_id"]] or left
        self.queues[same[0]].insert(0, i)
        for m, b in enumerate(self.queues[k]):
            self.queues[left[m % len(left)]].append(b)
        self.queues[k] = []

    def run(self, timeout_s: float) -> Dict[int, Dict[str, Any]]:
        ray = self.pool.ray
        deadline = time.monotonic() + timeout_s
        self.dispatch()
        while len(self.parts) < self.n:
            if not self.inflight:  # cannot happen: an idle live grader always gets a queued batch
                raise ClusterError(f"batches {sorted(set(range(1, self.n + 1)) - set(self.parts))} of {self.n}: "
                                   "no grader to send them to")
            ready, _ = ray.wait(list(self.inflight), num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
            if not ready:
                self.cancel()
                raise ClusterError(f"batches {sorted(set(range(1, self.n + 1)) - set(self.parts))} of {self.n} "
                                   f"not graded within {timeout_s:g} s")
            i, k = self.inflight.pop(ready[0])
            try:
                res = ray.get(ready[0])
            except Exception as e:  # noqa: BLE001 - Ray wraps what happened to the grader
                if not _lost(e):
                    self.cancel()
                    raise ClusterError(f"batch {i}/{self.n}: node {self.graders[k][1]['node']}: "
                                       f"{_remote_error(e)}") from None
                self.requeue(i, k, e)
            else:
                if res.get("error"):
                    self.cancel()
                    raise ClusterError(res["error"])
                self.parts.setdefault(i, res)  # one record per batch: its first finished attempt
            self.dispatch()
        return self.parts

    def cancel(self) -> None:
        for r in self.inflight:
            try:
                self.pool.ray.cancel(r)  # an actor task: no force (that would kill the grader)
            except Exception:  # noqa: BLE001 - finished or gone meanwhile
                pass
        self.inflight.clear()

    def dead_ranks(self) -> List[int]:
        return [info["rank"] for (_, info), a in zip(self.graders, self.alive) if not a]


def grade_warm(command: Sequence[str], *, json_out: str, address: Optional[str] = None,
               pool: Optional[GraderPool] = None, batches: int = 0, per_node: int = 0, retries: int = 3,
               timeout_s: float = 3600.0, connect_timeout_s: float = 30.0, num_cpus: float = 1.0) -> Dict[str, Any]:
    """Grade ``sqlgrade <command>`` (spider, bird, spider2 or ``uda run``, the CLI's flags) with warm graders: in
    ``batches`` shards by database (0: two per grader), on ``pool`` (kept: warm across runs) or on a
    pool started for this run (``per_node``, ``num_cpus`` as for :class:`GraderPool`) and closed after it. Writes the merged record to ``json_out`` and returns
    ``{"text", "record", "parts": [{index, node, pid, rank, seconds, warm}], "lost": [...], "graders"}``.
    ``timeout_s`` bounds the batches; a ClusterError names the node on failure."""
    benchmark, kwargs = command_kwargs(command)
    check_output(json_out, "--json", command, 2 if benchmark == "uda" else 1)
    own = pool is None
    if own:
        paths = [v for v in kwargs.values() if isinstance(v, str) and os.path.isabs(v) and os.path.exists(v)]
        pool = GraderPool.start(address, per_node=per_node, connect_timeout_s=connect_timeout_s,
                                start_timeout_s=min(timeout_s, 120.0), paths=paths, num_cpus=num_cpus)
    kwargs.setdefault("jobs", max(1, int(pool.num_cpus)))  # a grader's threads: the CPUs it holds in Ray's count
    try:
        if not own:
            pool.repair()  # graders lost in an earlier run come back where their node still is
        if not pool.actors:
            raise ClusterError("no sqlgrade grader: the cluster has no node with a CPU")
        n = batches or 2 * len(pool.actors)
        sched = _Schedule(pool, benchmark, kwargs, n, retries)
        try:
            parts = sched.run(timeout_s)
        finally:
            pool.drop(sched.dead_ranks())
        empty = [i for i in range(1, n + 1) if not parts[i]["record"]]
        if empty:
            raise ClusterError(f"batches {empty} of {n} hold no {benchmark} instance and {benchmark} writes no "
                               "record for an empty run; grade with fewer batches")
        out = _merge(parts, n, json_out)
        out["lost"], out["graders"] = sched.lost, [dict(i) for i in pool.infos]
        return out
    finally:
        if own:
            pool.close()
