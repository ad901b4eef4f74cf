"""Batch grading on a Ray cluster: the shards of one run (``--shard i/n``) as Ray tasks, merged (the
library's ``sqlgrade merge``, in-process) into the record one process would have written (docs/ray.md).

Each task runs the CLI's own command on its node (``sqlgrade spider ... --shard i/n --json part``) and
returns the part's run record as text; the driver writes the n parts and merges them in-process
(``sqlgrade.runs.merge``, the library's ``sqlgrade merge``), which checks that every id is in the
shard ``shard_of`` assigns it and appears once, and
recomputes the summary with the benchmark's summarizer. A task lost with its worker or node is
retried by Ray (``max_retries``) on another node; only the record of the attempt that finished is
kept, so each instance appears exactly once in the merged record.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

from .._cli import binary
from .._evaluate import check_outputs
from .._tables import path_arguments
from ..errors import InputError
from ._cluster import ClusterError, alive_nodes, connect, die_with_parent, import_ray, node_label, node_lost, wait_on_nodes

__all__ = ["grade", "preflight", "BENCHMARKS", "command_inputs", "check_output"]

BENCHMARKS = {"spider": 1, "bird": 1, "spider2": 1, "uda": 2}  # words of the subcommand ("uda run")
_OWN_FLAGS = ("--shard", "--json", "--json-dir")  # set by sqlgrade.ray for each shard


def _check_command(command: Sequence[str]) -> List[str]:
    cmd = [str(c) for c in command]
    if not cmd or cmd[0] not in BENCHMARKS:
        raise InputError(f"sqlgrade.ray: the command must start with one of {', '.join(BENCHMARKS)}, got {cmd[:1]}")
    if cmd[0] == "uda" and cmd[1:2] != ["run"]:
        raise InputError("sqlgrade.ray: only `uda run` grades a set (got `uda " + " ".join(cmd[1:2]) + "`)")
    _refuse_both(cmd)
    for c in cmd:
        if c.split("=", 1)[0] in _OWN_FLAGS:
            raise InputError(f"sqlgrade.ray: {c.split('=', 1)[0]} is set for each shard by sqlgrade.ray; "
                             "give the output with --json to `python -m sqlgrade.ray grade`")
    # A worker runs in its own folder: every relative path argument becomes absolute. Which arguments
    # are paths is the CLI's own definition of each flag (its path role, sqlgrade._tables), never a
    # guess from the files here: `--etype all` stays a value beside a file named `all`.
    head = BENCHMARKS[cmd[0]]
    for j, flag, value, _ in path_arguments(cmd, head):
        if value and not os.path.isabs(value):
            cmd[j] = f"{flag}={os.path.abspath(value)}" if cmd[j].startswith(flag + "=") else os.path.abspath(value)
    return cmd


_READS = ("reads_file", "reads_folder", "reads_path")


def command_inputs(command: Sequence[str], head: int = 0) -> List[Tuple[str, str]]:
    """Every file and folder the command reads (its first ``head`` words the subcommand: ``spider``,
    ``uda run``, ``serve``), databases included, by the CLI's path role of each flag, with the flag that
    names it: (path, flag). A folder protects every file under it."""
    cmd = [str(c) for c in command]
    return [(os.path.abspath(value), flag) for _, flag, value, role in path_arguments(cmd, head)
            if role in _READS and value and os.path.exists(value)]


def check_output(output: str, role: str, command: Sequence[str], head: int = 0) -> None:
    """Before any work: ``output`` must not replace a path the command reads (the library's one check,
    core/fs.hpp, as every CLI command makes it; issue 31: `grade --json pred.txt -- spider ... --pred
    pred.txt` graded, then replaced the prediction with the merged record)."""
    check_outputs([(output, role, False)], command_inputs(command, head))


def _refuse_both(cmd: Sequence[str]) -> None:
    """`spider --compat both` writes two records (run.spider.json, run.test-suite.json): a cluster run
    grades one mode; run it once per mode."""
    for i, c in enumerate(cmd):
        flag, eq, value = c.partition("=")
        if flag == "--compat" and (value if eq else (cmd[i + 1] if i + 1 < len(cmd) else "")) == "both":
            raise InputError("sqlgrade.ray: --compat both writes two run records; grade on the cluster once per "
                             "mode (--compat spider, --compat test-suite)")


def _paths(cmd: Sequence[str]) -> List[str]:
    """The files and folders the command reads on the driver (by the CLI's path roles): every node must
    have them too."""
    return [p for p, _ in command_inputs(cmd, BENCHMARKS[cmd[0]]) if os.path.isabs(p)]


def _where() -> str:
    import ray

    ctx = ray.get_runtime_context()
    return node_label(ctx.get_node_id(), ray.util.get_node_ip_address())


def _node_check(paths: List[str], need_cli: bool = True) -> Dict[str, Any]:
    """Runs on one node: sqlgrade (imported by unpickling this function), its CLI when the node runs
    it (shard tasks) and every input path must be there."""
    exe = ""
    if need_cli:
        try:
            exe = binary()
        except FileNotFoundError as e:
            return {"node": _where(), "error": f"sqlgrade is installed without its CLI ({e})"}
    missing = [p for p in paths if not os.path.exists(p)]
    if missing:
        return {"node": _where(), "error": f"missing on this node: {', '.join(missing)}"}
    return {"node": _where(), "error": None, "binary": exe}


def _grade_shard(cmd: List[str], index: int, count: int, timeout_s: float) -> Dict[str, Any]:
    """Runs on a worker: one shard with the CLI, its run record back as text."""
    where = _where()
    d = tempfile.mkdtemp(prefix="sqlgrade-ray-")
    try:
        out = os.path.join(d, f"part-{index}-of-{count}.json")
        args = [binary(), *cmd, "--shard", f"{index}/{count}", "--json", out]
        t0 = time.monotonic()
        try:
            p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout_s,
                               preexec_fn=die_with_parent, check=False)
        except subprocess.TimeoutExpired:
            raise ClusterError(f"node {where}: shard {index}/{count} took more than {timeout_s:g} s") from None
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        if p.returncode != 0 or not os.path.exists(out):
            raise ClusterError(f"node {where}: shard {index}/{count}: `sqlgrade {' '.join(cmd[:BENCHMARKS[cmd[0]]])}` "
                               f"exited {p.returncode}: {err[-1] if err else '(no message)'}")
        with open(out, encoding="utf-8") as f:
            record = f.read()
        return {"index": index, "node": where, "pid": os.getpid(), "seconds": time.monotonic() - t0, "record": record}
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _remote_error(e: BaseException) -> str:
    """A task's exception as one line: the ClusterError's own message, or a missing sqlgrade."""
    cause = getattr(e, "cause", None) or e
    text = str(cause).strip().splitlines()
    if "No module named 'sqlgrade" in str(e):
        return "sqlgrade is not installed in the Python of this node's Ray workers (No module named 'sqlgrade')"
    return text[-1] if text else type(cause).__name__


def preflight(ray: Any, cmd: List[str], timeout_s: float) -> List[Dict[str, Any]]:
    """One task on each alive node: refuse the job, naming the node, when one lacks sqlgrade or an input."""
    return check_nodes(ray, _paths(cmd), timeout_s)


def check_nodes(ray: Any, paths: List[str], timeout_s: float, need_cli: bool = True) -> List[Dict[str, Any]]:
    """The preflight: a task pinned to each alive node checks sqlgrade, (need_cli) its CLI and ``paths``;
    a ClusterError names the node that fails or does not answer within ``timeout_s``. A node that dies
    meanwhile — or died just before and is still listed alive: its pinned task is unschedulable — is left
    out (issue 31: the job failed in the preflight instead of grading on the nodes alive); the job
    needs one node that passes."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    check = ray.remote(num_cpus=0, max_retries=0)(_node_check)
    nodes = {n["NodeID"]: n for n in alive_nodes(ray)}
    refs = {check.options(scheduling_strategy=NodeAffinitySchedulingStrategy(i, soft=False)).remote(paths, need_cli): i
            for i in nodes}
    ready, gone, pending = wait_on_nodes(ray, refs, timeout_s)
    if pending:
        names = ", ".join(node_label(refs[r], nodes[refs[r]]["NodeManagerAddress"]) for r in pending)
        raise ClusterError(f"node(s) {names}: no answer to the sqlgrade check within {timeout_s:g} s")
    out = []
    for r in ready:
        n = nodes[refs[r]]
        try:
            res = ray.get(r)
        except Exception as e:  # noqa: BLE001 - Ray wraps the worker's exception
            if node_lost(e):
                gone.append(r)
                continue
            raise ClusterError(f"node {node_label(n['NodeID'], n['NodeManagerAddress'])}: {_remote_error(e)}") from None
        if res["error"]:
            raise ClusterError(f"node {res['node']}: {res['error']}")
        out.append(res)
    if not out:
        names = ", ".join(node_label(refs[r], nodes[refs[r]]["NodeManagerAddress"]) for r in gone) or "none listed"
        raise ClusterError(f"no Ray node alive to grade on (gone: {names})")
    return out


def grade(command: Sequence[str], *, json_out: str, address: Optional[str] = None, shards: int = 0,
          retries: int = 3, timeout_s: float = 3600.0, connect_timeout_s: float = 30.0,
          check_nodes: bool = True) -> Dict[str, Any]:
    """Grade ``sqlgrade <command>`` on the cluster at ``address`` in ``shards`` parts (0: one per CPU
    of the cluster), write the merged run record to ``json_out`` and return
    ``{"text": merge's table, "record": the record, "parts": [{index, node, pid, seconds}]}``.
    ``timeout_s`` bounds the whole job. Raises :class:`ClusterError` naming the node on failure."""
    cmd = _check_command(command)
    check_output(json_out, "--json", cmd, BENCHMARKS[cmd[0]])
    ray = connect(address, timeout_s=connect_timeout_s)
    if check_nodes:
        preflight(ray, cmd, min(timeout_s, 120.0))
    # One shard per CPU by default: each shard's CLI reads and checks the whole gold and prediction files
    # (about 0.9 s of CPU for 10 x Spider dev), so more, smaller shards cost more in all (docs/ray.md).
    n = shards or max(1, int(ray.cluster_resources().get("CPU", 1)))
    task = ray.remote(num_cpus=1, max_retries=retries, retry_exceptions=False)(_grade_shard)
    refs = {task.options(scheduling_strategy="SPREAD").remote(cmd, i, n, timeout_s): i for i in range(1, n + 1)}
    deadline = time.monotonic() + timeout_s
    parts: Dict[int, Dict[str, Any]] = {}
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1, timeout=max(0.0, deadline - time.monotonic()))
        if not ready:
            for r in pending:
                ray.cancel(r, force=True)
            raise ClusterError(f"shards {sorted(refs[r] for r in pending)} of {n} not graded within {timeout_s:g} s")
        for r in ready:
            try:
                res = ray.get(r)
            except Exception as e:  # noqa: BLE001
                for p in pending:
                    ray.cancel(p, force=True)
                raise ClusterError(f"shard {refs[r]}/{n}: {_remote_error(e)}") from None
            parts[res["index"]] = res
    return _merge(parts, n, json_out)


def _merge(parts: Dict[int, Dict[str, Any]], n: int, json_out: str) -> Dict[str, Any]:
    """The n parts' records merged in-process (``sqlgrade.runs.merge``: the library's merge, no CLI
    start) and written atomically to ``json_out``; a refused merge is a ClusterError with its message."""
    from ..runs import merge

    d = tempfile.mkdtemp(prefix="sqlgrade-ray-merge-")
    try:
        paths = []
        for i in range(1, n + 1):
            paths.append(os.path.join(d, f"part-{i}-of-{n}.json"))
            with open(paths[-1], "w", encoding="utf-8") as f:
                f.write(parts[i]["record"])
        try:
            m = merge(paths, json_out, command=["sqlgrade.ray", "merge", *paths])
        except InputError as e:
            raise ClusterError(f"sqlgrade merge refused the shards: {e}") from None
        meta = [{k: v for k, v in parts[i].items() if k != "record"} for i in range(1, n + 1)]
        return {"text": m.text or "", "record": m.record, "parts": meta}
    finally:
        shutil.rmtree(d, ignore_errors=True)
