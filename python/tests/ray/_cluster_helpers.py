"""The workloads and probes of the cluster tests (test_cluster.py): the other benchmarks' commands, the
reward stream and its rows, the run-record comparison, and what the tests read of the processes (the
Ray workers grading a shard, a process's CPU time, Ray's free CPUs). No test here; Ray is imported by
test_cluster.py first (its token must be in the environment before that).
"""

from __future__ import annotations

import concurrent.futures
import json
import os
import shutil
import subprocess
import threading
import time
from typing import Any, Dict, List

from conftest import data_dir, sqlgrade_bin
from _local_cluster import parent

SPIDER = os.path.join(data_dir(), "spider")


def _timeless(x: Any) -> Any:
    """A record part without its timings (the only fields two gradings of one input may differ in)."""
    if isinstance(x, dict):
        return {k: _timeless(v) for k, v in x.items() if not (k.endswith("_s") or k.endswith("seconds"))}
    if isinstance(x, list):
        return [_timeless(v) for v in x]
    return x


def _assert_same_run(rec: Dict[str, Any], ref: Dict[str, Any]) -> None:
    ids = [i["id"] for i in rec["instances"]]
    assert len(ids) == len(set(ids)) == len(ref["instances"])  # every instance exactly once
    assert rec["summary"] == ref["summary"]
    assert rec["summary_text"] == ref["summary_text"]
    assert _timeless(rec["instances"]) == _timeless(ref["instances"])


def _shard_worker_pids() -> List[int]:
    """Ray workers running a shard's CLI right now (the parent of each `sqlgrade spider ... --shard`)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if b"--shard" in argv and b"spider" in argv and b"merge" not in argv:
                pp = parent(int(d))
                if pp:
                    out.append(pp)
    return out


def _other_benchmark(name: str, tmp: str) -> List[str]:
    """BIRD Mini-Dev (EX, the gpt-4o baseline), Spider 2.0-Lite (sql mode, the 24 public gold SQLs as
    predictions) and UDA-Bench (six datasets, gold as results): the commands of bench/bird.sh,
    bench/spider2.sh and bench/uda_run.sh."""
    d = data_dir()
    if name == "bird":
        return ["bird", "--predicted_sql_path", os.path.join(d, "preds", "bird_minidev", "official_baselines_TA_output",
                                                             "predict_mini_dev_gpt-4-o_cot_SQLite.json"),
                "--ground_truth_path", os.path.join(d, "bird", "minidev", "mini_dev_sqlite_gold.sql"),
                "--db_root_path", os.path.join(d, "bird", "dev_databases"),
                "--diff_json_path", os.path.join(d, "expected", "bird", "inputs", "minidev.mini_dev_sqlite.jsonl"),
                "--num_cpus", "1", "--no-progress"]
    if name == "uda":  # the gold results fed back as the system's (bench/uda_run.sh)
        q, res = os.path.join(d, "uda-bench", "Query"), os.path.join(tmp, "results")
        if os.path.isdir(q):
            subprocess.run([sqlgrade_bin(), "uda", "gold", "--dataset-dir", q, "--out", res, "--as-result"],
                           check=True, capture_output=True, timeout=600)
        return ["uda", "run", "--dataset-dir", q, "--results", res, "--jobs", "1"]
    gold = os.path.join(d, "spider2lite", "gold")
    sq = os.path.join(tmp, "sq")
    os.makedirs(sq, exist_ok=True)
    for f in os.listdir(os.path.join(gold, "sql")):
        shutil.copy(os.path.join(gold, "sql", f), sq)
    return ["spider2", "--mode", "sql", "--result_dir", sq, "--gold_dir", gold,
            "--db_dir", os.path.join(d, "spider2lite", "databases"), "--no-progress"]


def _stream(backend: Any, rows: List[Dict[str, Any]], on_progress) -> List[Any]:
    """Send every row as a verify request, 6 in flight; on_progress(n_done) after each reply."""
    done = [0]
    lock = threading.Lock()

    def one(row: Dict[str, Any]) -> Any:
        req = {"benchmark": "spider", "db_id": row["db_id"], "db": None, "sql": row["sql"], "gold_sql": row["gold_sql"]}
        try:
            r = backend.verdict(req)
        except Exception as e:  # noqa: BLE001 - a lost request is counted, not raised
            r = e
        with lock:
            done[0] += 1
            n = done[0]
        on_progress(n)
        return r

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        return list(pool.map(one, rows))


WRONG = "SELECT 'not the answer', 42"  # no Spider dev gold returns this row


def _rows(n: int) -> List[Dict[str, Any]]:
    with open(os.path.join(SPIDER, "dev.json"), encoding="utf-8") as f:
        dev = json.load(f)
    out = []
    for i in range(n):
        r = dev[i % len(dev)]
        right = i % 3 != 0  # two thirds: the gold itself (reward 1); one third a query no gold matches (0)
        out.append({"db_id": r["db_id"], "gold_sql": r["query"], "sql": r["query"] if right else WRONG,
                    "expect": 1.0 if right else 0.0})
    return out


def _cpu_ticks(pid: int) -> int:
    """utime + stime of a process (clock ticks), -1 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            v = f.read().rsplit(")", 1)[1].split()
        return int(v[11]) + int(v[12])
    except (OSError, IndexError, ValueError):
        return -1


def _available_cpus(expect: float) -> float:
    """Ray's count of free CPUs, once it settles at `expect` (it lags actor starts and exits), or after 20 s."""
    import ray  # already imported (and configured) by test_cluster.py

    deadline, free = time.monotonic() + 20, -1.0
    while time.monotonic() < deadline:
        free = ray.available_resources().get("CPU", 0.0)
        if free == expect:
            break
        time.sleep(0.2)
    return free
