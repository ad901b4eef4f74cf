"""sqlgrade.ray on a real two-node Ray cluster of this machine (_local_cluster.py): batch grading equal
to one process (shard tasks, and warm graders over batches by database), reward serving with routing
and failover, and faults — a worker process, a warm grader and a whole node killed in the middle of a
batch and of a reward stream, and a third node without sqlgrade. ctest python.ray (label `ray`).

Data: Spider dev (SQLGRADE_DATA) and one of its shipped prediction files; skipped without them.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from typing import Any, Dict, Iterator, List

import pytest

# Ray reads the authentication settings once, when it is imported: the cluster's token must be in the
# environment before that.
TOKEN = secrets.token_hex(32)
os.environ.update(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=TOKEN)
ray = pytest.importorskip("ray")

from conftest import data_dir, require_data, sqlgrade_bin  # noqa: E402
from _local_cluster import VENV_BIN, LocalCluster  # noqa: E402
from _cluster_helpers import (SPIDER, _assert_same_run, _available_cpus, _cpu_ticks, _other_benchmark,  # noqa: E402
                              _rows, _shard_worker_pids, _stream)

PRED = os.path.join(data_dir(), "preds", "spider_dev", "dail-sql_gpt4", "pred.txt")
pytestmark = pytest.mark.needs_data("preds/spider_dev/dail-sql_gpt4/pred.txt", "spider")


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    os.environ["SQLGRADE_BIN"] = sqlgrade_bin()  # the nodes' workers inherit it
    c = LocalCluster(workers=1, token=TOKEN)
    saved = {k: os.environ.get(k) for k in c.driver_env()}
    os.environ.update(c.driver_env())
    try:
        yield c
    finally:
        if ray.is_initialized():
            ray.shutdown()
        c.stop()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        if c.retries:
            print(f"\nray cluster: {c.retries} node start(s) retried")


@pytest.fixture(scope="module")
def big_set(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Any]:
    """Spider dev × 4 (4,136 questions) and the one-process run record of it (the reference)."""
    d = tmp_path_factory.mktemp("big")
    gold, pred = str(d / "gold.sql"), str(d / "pred.txt")
    with open(os.path.join(SPIDER, "dev_gold.sql"), encoding="utf-8") as f:
        g = f.read().rstrip("\n") + "\n"
    with open(PRED, encoding="utf-8") as f:
        p = f.read().rstrip("\n") + "\n"
    with open(gold, "w", encoding="utf-8") as f:
        f.write(g * 4)
    with open(pred, "w", encoding="utf-8") as f:
        f.write(p * 4)
    cmd = ["spider", "--gold", gold, "--pred", pred, "--db", os.path.join(SPIDER, "database"), "--etype", "exec",
           "--jobs", "1"]
    ref = str(d / "ref.json")
    subprocess.run([sqlgrade_bin(), *cmd, "--json", ref], check=True, capture_output=True, timeout=600)
    with open(ref, encoding="utf-8") as f:
        return {"cmd": cmd, "ref": json.load(f), "dir": str(d)}


def test_batch_equals_one_process_and_survives_a_killed_worker(cluster: LocalCluster, big_set) -> None:
    from sqlgrade.ray import grade

    out_json = os.path.join(big_set["dir"], "cluster.json")
    result: Dict[str, Any] = {}

    def run() -> None:
        try:
            result["out"] = grade(big_set["cmd"], json_out=out_json, address=cluster.address, shards=6, timeout_s=600)
        except BaseException as e:  # noqa: BLE001 - reported by the assertion below
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    killed = None
    deadline = time.monotonic() + 300
    while killed is None and t.is_alive() and time.monotonic() < deadline:
        pids = _shard_worker_pids()
        if pids:
            killed = pids[0]
            os.kill(killed, signal.SIGKILL)  # the Ray worker process grading a shard
        time.sleep(0.05)
    t.join(600)
    assert "error" not in result, result.get("error")
    assert killed is not None, "no shard was seen running (nothing was killed)"
    out = result["out"]
    _assert_same_run(out["record"], big_set["ref"])
    assert sorted(m["shard"]["index"] for m in out["record"]["merged_from"]) == list(range(1, 7))
    assert all(p["pid"] != killed for p in out["parts"])  # the killed attempt's record was not used
    assert len({p["node"] for p in out["parts"]}) == 2  # SPREAD: both nodes graded shards
    with open(out_json, encoding="utf-8") as f:
        assert json.load(f)["summary"] == big_set["ref"]["summary"]


@pytest.mark.parametrize("name,warm", [("bird", False), ("spider2", False), ("uda", False), ("bird", True),
                                       ("spider2", True), ("uda", True)])
def test_other_benchmarks_merge_like_one_process(cluster: LocalCluster, name: str, warm: bool, tmp_path) -> None:
    """Shard tasks (2 shards by id) and warm graders (2 batches by database; UDA: by dataset)."""
    from sqlgrade.ray import grade, grade_warm

    cmd = _other_benchmark(name, str(tmp_path))
    missing = [c for c in cmd if c.startswith("/") and not os.path.exists(c)]
    if missing:
        require_data(os.path.relpath(missing[0], data_dir()))  # skips, or fails when SQLGRADE_DATA is set
    ref = str(tmp_path / "ref.json")
    subprocess.run([sqlgrade_bin(), *cmd, "--json", ref], check=True, capture_output=True, timeout=600)
    if warm:
        out = grade_warm(cmd, json_out=str(tmp_path / "warm.json"), address=cluster.address, batches=2, timeout_s=600)
    else:
        out = grade(cmd, json_out=str(tmp_path / "ray.json"), address=cluster.address, shards=2, timeout_s=600)
    with open(ref, encoding="utf-8") as f:
        _assert_same_run(out["record"], json.load(f))


@pytest.fixture(scope="module")
def fleet(cluster: LocalCluster) -> Iterator[Any]:
    from sqlgrade.ray import Fleet

    db = os.path.join(SPIDER, "database")
    f = Fleet.start(["--db-dir", db, "--spider-db-dir", db, "--max-concurrency", "1"],
                    address=cluster.address, check_timeout_s=120)
    f.supervise(interval_s=1.0)
    yield f
    f.stop()


def test_reward_stream_survives_killed_server_and_worker(fleet) -> None:
    backend = fleet.backend(http_timeout=60, down_s=2)
    assert len(fleet.urls()) == 2
    infos = {i["node"]: i for i in fleet.ray.get([a.info.remote() for a in fleet._actors.values()])}
    (node_a, a), (node_b, b) = sorted(infos.items())
    rows = _rows(600)
    kills: List[str] = []

    def on_progress(n: int) -> None:
        if n == 150:
            os.kill(a["server_pid"], signal.SIGKILL)  # the server process dies: its actor restarts it
            kills.append("server")
        if n == 300:
            os.kill(b["actor_pid"], signal.SIGKILL)  # the actor's worker dies: Ray restarts the actor
            kills.append("worker")

    replies = _stream(backend, rows, on_progress)
    lost = [r for r in replies if isinstance(r, Exception)]
    assert not lost, f"{len(lost)} lost, e.g. {lost[0]!r}"
    assert [r["reward"] for r in replies] == [row["expect"] for row in rows]
    assert kills == ["server", "worker"] and backend.failovers > 0
    # Both nodes serve again, each from a new server process.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            now = {i["node"]: i for i in fleet.ray.get([x.info.remote() for x in fleet._actors.values()], timeout=60)}
        except ray.exceptions.RayError:  # an actor still restarting ("temporarily unavailable")
            now = {}
        if (len(now) == 2 and now[node_a]["server_pid"] != a["server_pid"] and now[node_b]["actor_pid"] != b["actor_pid"]
                and set(fleet.urls()) == {node_a, node_b}):  # and the supervisor routes to both again
            break
        time.sleep(1)
    else:
        pytest.fail(f"servers not restarted: {now}, routed: {fleet.urls()}")


def test_missing_database_names_the_node(fleet) -> None:
    from sqlgrade.errors import InputError

    backend = fleet.backend()
    with pytest.raises(InputError, match=r"node [0-9a-f]{12} \(127\.0\.0\.[23]\) \(http://127\.0\.0\.[23]:\d+\): "
                                         r"database 'no_such_db' \(spider\)"):
        backend.verdict({"benchmark": "spider", "db_id": "no_such_db", "db": None, "sql": "SELECT 1",
                         "gold_sql": "SELECT 1"})


def test_warm_graders_equal_one_process_survive_a_killed_grader_and_stay_warm(cluster: LocalCluster, big_set) -> None:
    """One grader per node; the grader seen grading a batch (its CPU time up 0.5 s since the run
    began: Spider dev's batches by database are uneven, the longest takes seconds) is SIGKILLed; its
    batch goes to the other grader; the record equals one process. Then the pool is repaired and a
    second run on the same graders (warm: no grader starts) gives the same record again."""
    from sqlgrade.ray import GraderPool, grade_warm

    with GraderPool.start(cluster.address, per_node=1) as pool:
        assert len({i["node"] for i in pool.infos}) == 2
        pids = [i["pid"] for i in pool.infos]
        result: Dict[str, Any] = {}

        def run() -> None:
            try:
                result["out"] = grade_warm(big_set["cmd"], json_out=os.path.join(big_set["dir"], "warm.json"),
                                           pool=pool, batches=6, timeout_s=600)
            except BaseException as e:  # noqa: BLE001 - reported by the assertion below
                result["error"] = e

        start = {p: _cpu_ticks(p) for p in pids}
        t = threading.Thread(target=run)
        t.start()
        victim, deadline = None, time.monotonic() + 300
        while victim is None and t.is_alive() and time.monotonic() < deadline:
            victim = next((p for p in pids if _cpu_ticks(p) >= start[p] + 50), None)
            time.sleep(0.02)
        assert victim is not None, "no grader was seen grading"
        os.kill(victim, signal.SIGKILL)
        t.join(600)
        assert "error" not in result, result.get("error")
        out = result["out"]
        _assert_same_run(out["record"], big_set["ref"])
        assert [(x["pid"], x["batch"]) for x in out["lost"]] == [(victim, out["lost"][0]["batch"])]
        regraded = next(p for p in out["parts"] if p["index"] == out["lost"][0]["batch"])
        assert regraded["pid"] != victim  # the lost batch was graded again, by the grader left
        assert any(p["warm"] for p in out["parts"])  # a grader graded several batches in one process
        assert victim not in {i["pid"] for i in pool.infos}
        pool.repair()  # a new grader on the node that lost its own
        assert len({i["node"] for i in pool.infos}) == 2
        pids = {i["pid"] for i in pool.infos}
        again = grade_warm(big_set["cmd"], json_out=os.path.join(big_set["dir"], "warm2.json"), pool=pool,
                           batches=4, timeout_s=600)
        _assert_same_run(again["record"], big_set["ref"])
        assert {p["pid"] for p in again["parts"]} <= pids and not again["lost"]
        # Affinity: batch i went to grader (i - 1) mod 2 unless the other grader took it when idle.
        ranks = [i["rank"] for i in pool.infos]
        assert sum(p["rank"] == ranks[(p["index"] - 1) % 2] for p in again["parts"]) >= 2


def test_a_ray_client_address_grades_like_one_process(cluster: LocalCluster, tmp_path) -> None:
    """`python -m sqlgrade.ray grade --warm --address ray://HEAD:PORT` (Ray Client, the driver outside
    the cluster, a fresh process): Spider dev graded by warm graders, the record equal to one
    process's. (The shard tasks join the same way, through the same connect(); checked by hand, 35 s
    more, docs/ray.md "Addresses".)"""
    warm = ["--warm"]
    gold = os.path.join(SPIDER, "dev_gold.sql")
    cmd = ["spider", "--gold", gold, "--pred", PRED, "--db", os.path.join(SPIDER, "database"), "--etype", "exec",
           "--jobs", "1"]
    ref = str(tmp_path / "ref.json")
    subprocess.run([sqlgrade_bin(), *cmd, "--json", ref], check=True, capture_output=True, timeout=600)
    out = tmp_path / "client.json"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    address = cluster.client_server()  # on free ports (_local_cluster.py)
    # Ray's proxy starts a server per client; on a loaded machine that start can fail inside Ray ("Starting
    # Ray client server failed", "Proxy failed to Connect to backend", the server process a zombie when
    # the proxy reads it): connect() joins again (3 attempts); a run that still fails so is started
    # again, at most twice, and reported. Any other failure fails the test.
    for attempt in range(3):
        p = subprocess.run([sys.executable, "-m", "sqlgrade.ray", "grade", *warm, "--address", address,
                            "--json", str(out), "--timeout", "600", "--", *cmd],
                           capture_output=True, text=True, timeout=900, env=env)
        if p.returncode == 0 or not any(m in p.stderr for m in ("Starting Ray client server failed",
                                                                 "Proxy failed to Connect to backend",
                                                                 "ZombieProcess")):
            break
        print(f"\nray client: attempt {attempt + 1} defeated by Ray's client server start, retried: "
              f"{p.stderr.strip().splitlines()[-1][:300]}")
    assert p.returncode == 0, p.stderr[-3000:]
    assert "node" in p.stderr  # the summary line naming the nodes that graded
    with open(out, encoding="utf-8") as f, open(ref, encoding="utf-8") as g:
        _assert_same_run(json.load(f), json.load(g))


def test_grader_cpus_are_held_only_as_asked(cluster: LocalCluster) -> None:
    """A pool holds num_cpus of Ray's CPUs per grader while it lives (1 by default; 0 holds none) and
    gives them back on close()."""
    from sqlgrade.ray import GraderPool

    with GraderPool.start(cluster.address, per_node=1) as pool:  # connects the driver
        total = ray.cluster_resources()["CPU"]
        assert len(pool.actors) == 2
        assert _available_cpus(total - 2) == total - 2
    assert _available_cpus(total) == total
    with GraderPool.start(cluster.address, per_node=1, num_cpus=0) as pool:
        assert len(pool.actors) == 2 and pool.num_cpus == 0
        assert _available_cpus(total) == total
        infos = ray.get([a.info.remote() for a in pool.actors], timeout=60)  # alive and answering
        assert sorted(i["rank"] for i in infos) == sorted(i["rank"] for i in pool.infos)


def test_a_node_without_sqlgrade_is_named(cluster: LocalCluster, big_set, tmp_path) -> None:
    """A third node whose workers run a venv with Ray but without sqlgrade: both batch paths refuse the
    job with one error naming that node, within their deadlines (no hang), before grading anything."""
    from sqlgrade.ray import ClusterError, grade, grade_warm

    bare = str(tmp_path / "bare")
    uv = os.path.join(VENV_BIN, "uv")
    uv = uv if os.path.exists(uv) else shutil.which("uv") or "uv"
    lock = os.path.join(os.path.dirname(__file__), "..", "..", "requirements", "dev.lock")
    try:  # from uv's cache (setup filled it): ~2 s, no network
        subprocess.run([uv, "venv", "-q", bare, "--python", sys.executable], check=True, capture_output=True,
                       timeout=120)
        subprocess.run([uv, "pip", "install", "-q", "--python", os.path.join(bare, "bin", "python"), "--offline",
                        "-c", lock, f"ray=={ray.__version__}"], check=True, capture_output=True, timeout=300)
    except (OSError, subprocess.SubprocessError) as e:
        pytest.skip(f"cannot make a venv with Ray only ({e})")
    cluster.add_node("node3", "127.0.0.4", {"node_c": 1}, ray=os.path.join(bare, "bin", "ray"))
    try:
        msg = r"node [0-9a-f]{12} \(127\.0\.0\.4\): sqlgrade is not installed in the Python of this node's Ray workers"
        for attempt in (lambda: grade_warm(big_set["cmd"], json_out=str(tmp_path / "w.json"), address=cluster.address,
                                           timeout_s=300),
                        lambda: grade(big_set["cmd"], json_out=str(tmp_path / "s.json"), address=cluster.address,
                                      timeout_s=300)):
            t0 = time.monotonic()
            with pytest.raises(ClusterError, match=msg):
                attempt()
            assert time.monotonic() - t0 < 150  # the preflight's deadline is 120 s
        assert not os.path.exists(tmp_path / "w.json") and not os.path.exists(tmp_path / "s.json")
    finally:
        cluster.kill("node3", signal.SIGTERM)  # a raylet that stops cleanly leaves the cluster at once
        deadline = time.monotonic() + 120
        while cluster.alive_nodes() != 2 and time.monotonic() < deadline:
            time.sleep(2)
    assert cluster.alive_nodes() == 2


def test_batch_and_reward_stream_survive_a_killed_node(cluster: LocalCluster, big_set, fleet) -> None:
    """Last (it leaves one node): node 2 dies while a batch and a reward stream are both running."""
    from sqlgrade.ray import grade

    backend = fleet.backend(http_timeout=60, down_s=2)
    out_json = os.path.join(big_set["dir"], "cluster2.json")
    result: Dict[str, Any] = {}

    def run() -> None:
        try:
            result["out"] = grade(big_set["cmd"], json_out=out_json, address=cluster.address, shards=6, timeout_s=600)
        except BaseException as e:  # noqa: BLE001
            result["error"] = e

    t = threading.Thread(target=run)
    t.start()
    rows = _rows(400)
    state = {"killed": False}

    def on_progress(n: int) -> None:
        # Kill when node 2 is grading a shard (a worker of its session runs one) and the stream is under way.
        if not state["killed"] and n >= 100 and set(_shard_worker_pids()) & cluster.node_pids("node2"):
            cluster.kill("node2")
            state["killed"] = True

    replies = _stream(backend, rows, on_progress)
    if not state["killed"]:  # the stream ended first: kill during the batch alone
        deadline = time.monotonic() + 300
        while t.is_alive() and time.monotonic() < deadline and not state["killed"]:
            if set(_shard_worker_pids()) & cluster.node_pids("node2"):
                cluster.kill("node2")
                state["killed"] = True
            time.sleep(0.05)
    t.join(600)
    assert state["killed"], "node 2 never ran a shard while the test watched"
    lost = [r for r in replies if isinstance(r, Exception)]
    assert not lost, f"{len(lost)} lost, e.g. {lost[0]!r}"
    assert [r["reward"] for r in replies] == [row["expect"] for row in rows]
    assert "error" not in result, result.get("error")
    _assert_same_run(result["out"]["record"], big_set["ref"])
    after = [r["node"] for r in _stream(backend, rows[:20], lambda n: None)]
    assert len(set(after)) == 1  # every database is now served by the node left


def test_a_job_started_right_after_a_node_died_grades_on_the_nodes_alive(cluster: LocalCluster, tmp_path) -> None:
    """Issue 31: a node's processes are killed and a job starts at once — `python -m sqlgrade.ray grade`
    (shard tasks, a fresh driver) and, beside it, warm graders in this process. Ray still lists the
    dead node as alive for seconds; its pinned preflight task was "unschedulable" ("The node specified
    via NodeAffinitySchedulingStrategy doesn't exist any more or is infeasible") and failed the job.
    Now the dead node is left out and both jobs grade on the nodes alive, each record equal to one
    process's. (Last: the cluster keeps a dead node in its list.)"""
    from sqlgrade.ray import grade_warm

    gold, pred = str(tmp_path / "gold.sql"), str(tmp_path / "pred.txt")
    with open(os.path.join(SPIDER, "dev_gold.sql"), encoding="utf-8") as f, open(gold, "w", encoding="utf-8") as g:
        g.writelines(f.readlines()[:300])
    with open(PRED, encoding="utf-8") as f, open(pred, "w", encoding="utf-8") as g:
        g.writelines(f.readlines()[:300])
    cmd = ["spider", "--gold", gold, "--pred", pred, "--db", os.path.join(SPIDER, "database"), "--etype", "exec",
           "--jobs", "1"]
    ref = str(tmp_path / "ref.json")
    subprocess.run([sqlgrade_bin(), *cmd, "--json", ref], check=True, capture_output=True, timeout=600)
    with open(ref, encoding="utf-8") as f:
        reference = json.load(f)
    from sqlgrade.ray._cluster import connect

    connect(cluster.address)
    cluster.add_node("node4", "127.0.0.5", {"node_d": 1})
    deadline = time.monotonic() + 120
    while not any(n["Alive"] and n["NodeManagerAddress"] == "127.0.0.5" for n in ray.nodes()):
        assert time.monotonic() < deadline, "node4 never joined"
        time.sleep(0.5)
    cluster.kill("node4")  # SIGKILL: its raylet, workers and agents
    assert any(n["Alive"] and n["NodeManagerAddress"] == "127.0.0.5" for n in ray.nodes())  # still listed alive
    env = {k: v for k, v in os.environ.items()}
    driver = subprocess.Popen([sys.executable, "-m", "sqlgrade.ray", "grade", "--address", cluster.address,
                               "--json", str(tmp_path / "shards.json"), "--shards", "2", "--timeout", "600", "--",
                               *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        warm = grade_warm(cmd, json_out=str(tmp_path / "warm.json"), address=cluster.address, batches=2,
                          timeout_s=600)
        out, err = driver.communicate(timeout=900)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert driver.returncode == 0, err[-3000:]
    with open(tmp_path / "shards.json", encoding="utf-8") as f:
        _assert_same_run(json.load(f), reference)
    _assert_same_run(warm["record"], reference)
    assert all("127.0.0.5" not in g["node"] for g in warm["graders"])  # no grader on the dead node
