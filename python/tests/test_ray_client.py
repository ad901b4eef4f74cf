"""sqlgrade.ray without a cluster: the consistent-hash ring, the routed reward client over real
`sqlgrade serve` processes (routing, failover, a missing database named with its node, the
SQLGRADE_SERVER list), an unreachable cluster, and that `import sqlgrade` never imports Ray."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

import sqlgrade
from sqlgrade.errors import InputError, ServerUnavailable
from sqlgrade.ray.client import HashRing, RoutedBackend, parse_urls

from conftest import PY_ROOT


def test_ring_moves_few_keys_when_a_node_joins() -> None:
    keys = [f"spider/db{i}" for i in range(2000)]
    ring = HashRing([f"n{i}" for i in range(8)])
    before = {k: ring.walk(k)[0] for k in keys}
    ring.add("n8")
    after = {k: ring.walk(k)[0] for k in keys}
    moved = [k for k in keys if before[k] != after[k]]
    assert all(after[k] == "n8" for k in moved)  # a key only ever moves to the new node
    assert 0.05 < len(moved) / len(keys) < 0.2  # about 1/9 of the keys, not all of them
    shares = [sum(1 for k in keys if after[k] == f"n{i}") / len(keys) for i in range(9)]
    assert max(shares) < 0.2 and min(shares) > 0.05, shares


def test_ring_walk_lists_every_node_once_owner_first() -> None:
    ring = HashRing(["a", "b", "c"])
    for k in ("spider/x", "bird/y", "spider2/z"):
        order = ring.walk(k)
        assert sorted(order) == ["a", "b", "c"]
        ring.remove(order[0])
        assert ring.walk(k)[0] == order[1]  # the owner's fallback is the next node on the ring
        ring.add(order[0])
        assert ring.walk(k) == order


def _req(db: str, sql: str, gold: str) -> dict:
    return {"benchmark": "spider2", "db_id": db, "db": None, "sql": sql, "gold_sql": gold}


def test_routed_backend_routes_by_database_and_fails_over(start_server, dbs) -> None:
    a = start_server("--db-dir", dbs.spider2_dir)
    b = start_server("--db-dir", dbs.spider2_dir)
    rb = RoutedBackend({"a": a.url, "b": b.url}, down_s=60)
    owner = rb.owner("spider2", "shop")
    r = rb.verdict(_req("shop", "SELECT 1", "SELECT 1"))
    assert r["reward"] == 1.0 and r["node"] == owner
    # The owner dies: the same request is answered by the other node, with no error.
    (a if owner == "a" else b).stop()
    r = rb.verdict(_req("shop", "SELECT 1", "SELECT 2"))
    assert r["reward"] == 0.0 and r["node"] != owner and rb.failovers == 1
    # Both gone: ServerUnavailable within the deadline, naming the database.
    (b if owner == "a" else a).stop()
    rb.deadline_s = 3
    t0 = time.monotonic()
    with pytest.raises(ServerUnavailable, match="database 'shop'"):
        rb.verdict(_req("shop", "SELECT 1", "SELECT 1"))
    assert time.monotonic() - t0 < 10


def test_missing_database_names_node_and_database(start_server, dbs) -> None:
    a = start_server("--db-dir", dbs.spider2_dir)
    rb = RoutedBackend({"node-a": a.url})
    with pytest.raises(InputError, match=r"node node-a \(http://127\.0\.0\.1:\d+\): database 'no_such_db'"):
        rb.verdict(_req("no_such_db", "SELECT 1", "SELECT 1"))


def test_server_list_selects_the_routed_backend(start_server, dbs, settings) -> None:
    a = start_server("--db-dir", dbs.spider2_dir)
    b = start_server("--db-dir", dbs.spider2_dir)
    settings(server=f"{a.url},{b.url}", backend="auto", shaping={}, db_root=None)
    from sqlgrade._backend import get_backend

    assert get_backend(sqlgrade.config()).name == "routed"
    vs = sqlgrade.verdicts([{"output": "SELECT 1", "db": "shop", "gold_sql": g} for g in ("SELECT 1", "SELECT 2")],
                           extract=False, benchmark="spider2")
    assert [v.reward for v in vs] == [1.0, 0.0]
    with pytest.raises(InputError, match="not an http"):
        parse_urls("http://a:1,ftp://b")


def test_import_sqlgrade_never_imports_ray() -> None:
    code = ("import sys, sqlgrade, sqlgrade.ray, sqlgrade.ray.client, sqlgrade.verl; "
            "assert 'ray' not in sys.modules, 'ray imported'; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, PYTHONPATH=PY_ROOT))
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_unreachable_cluster_is_one_error_within_the_deadline() -> None:
    pytest.importorskip("ray")
    from sqlgrade.ray import ClusterError
    from sqlgrade.ray._cluster import connect

    t0 = time.monotonic()
    with pytest.raises(ClusterError, match=r"cannot reach the Ray cluster at 127\.0\.0\.1:9 within 2 s"):
        connect("127.0.0.1:9", timeout_s=2)
    assert time.monotonic() - t0 < 10


def test_cli_refuses_flags_it_sets_itself() -> None:
    from sqlgrade.ray.batch import _check_command

    with pytest.raises(InputError, match="--shard is set for each shard"):
        _check_command(["spider", "--gold", "g", "--shard", "1/2"])
    with pytest.raises(InputError, match="must start with one of"):
        _check_command(["merge", "a.json"])
    assert _check_command(["uda", "run", "--x"]) == ["uda", "run", "--x"]
    # Relative paths that exist here become absolute (a Ray worker runs in another folder); others stay.
    here = os.path.relpath(__file__)
    assert _check_command(["spider", "--gold", here, "--etype", "exec"]) == [
        "spider", "--gold", os.path.abspath(__file__), "--etype", "exec"]


def test_warm_command_becomes_evaluate_keywords() -> None:
    from sqlgrade.ray.batch import _check_command
    from sqlgrade.ray.warm import command_kwargs

    here = os.path.relpath(__file__)
    assert command_kwargs(["spider", "--gold", here, "--pred=/p.txt", "--db", "/d", "--etype", "exec", "-j", "2",
                           "--plug_value", "--no-progress", "--timeout", "5"]) == (
        "spider", {"gold": os.path.abspath(__file__), "pred": "/p.txt", "db_dir": "/d", "etype": "exec", "jobs": 2,
                   "plug_value": True, "timeout": 5.0})
    assert command_kwargs(["bird", "--predicted_sql_path", "/p", "--ground_truth_path", "/g", "--db_root_path", "/d",
                           "--num_cpus", "1", "--meta_time_out", "3"]) == (
        "bird", {"pred": "/p", "gold": "/g", "db_dir": "/d", "jobs": 1, "timeout": 3.0})
    # spider2's keywords are its flags' official names (--pred is --result_dir): read from the flag table
    assert command_kwargs(["spider2", "--pred", "/r", "--gold_dir", "/g", "--db", "/d", "--mode", "sql"]) == (
        "spider2", {"result_dir": "/r", "gold_dir": "/g", "db_dir": "/d", "mode": "sql"})
    with pytest.raises(InputError, match="--json-dir is not taken by the warm graders' in-process "
                                         r"sqlgrade.spider.evaluate\(\)"):
        command_kwargs(["spider", "--gold", "g", "--json-dir", "x"])
    assert command_kwargs(["uda", "run", "--dataset-dir", "/q", "--results=/r", "--name", "s", "--list-errors",
                           "--gold-timeout", "9", "-j", "1", "--judge", "rules"]) == (
        "uda", {"dataset_dir": "/q", "results": "/r", "name": "s", "list_errors": True, "gold_timeout": 9.0,
                "jobs": 1, "judge": "rules"})
    with pytest.raises(InputError, match="only `uda run` grades a set"):
        command_kwargs(["uda", "eval", "--dataset-dir", "x"])
    with pytest.raises(InputError, match="--require-all is not taken by the warm graders' in-process "
                                         r"sqlgrade.uda.evaluate\(\)"):
        command_kwargs(["uda", "run", "--require-all"])
    with pytest.raises(InputError, match="warm graders grade spider, bird, spider2, uda"):
        command_kwargs(["merge", "a.json"])
    for cmd in (["spider", "--compat", "both"], ["spider", "--compat=both"]):
        with pytest.raises(InputError, match="--compat both writes two run records"):
            command_kwargs(cmd)
        with pytest.raises(InputError, match="--compat both writes two run records"):
            _check_command(cmd)
    with pytest.raises(InputError, match="--jobs needs a value"):
        command_kwargs(["spider", "--jobs"])
    with pytest.raises(InputError, match="--jobs: not a number: 'x'"):
        command_kwargs(["spider", "--jobs", "x"])


@pytest.mark.parametrize("args,line", [
    (["--warm", "--", "uda", "eval"], "sqlgrade.ray: only `uda run` grades a set (got `uda eval`)"),
    (["--warm", "--grader-cpus", "-1", "--", "spider"],
     "sqlgrade.ray: num_cpus must be a number within [0, 1024] (a grader's share of Ray's CPUs), got -1.0"),
])
def test_cli_bad_input_is_one_line_naming_sqlgrade_ray_once(tmp_path, args, line) -> None:
    """Refused before any cluster is reached (the address is a closed port): exit 2, one line."""
    out_json = tmp_path / "run.json"
    p = subprocess.run([sys.executable, "-m", "sqlgrade.ray", "grade", "--address", "127.0.0.1:9", "--connect-timeout",
                        "1", "--json", str(out_json), *args], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=PY_ROOT))
    assert p.returncode == 2 and p.stderr.strip().splitlines() == [line]
    assert not out_json.exists()


@pytest.mark.parametrize("warm", [[], ["--warm"]])
def test_cli_unreachable_cluster_exits_2_with_one_line(tmp_path, warm) -> None:
    pytest.importorskip("ray")
    out_json = tmp_path / "run.json"
    p = subprocess.run([sys.executable, "-m", "sqlgrade.ray", "grade", *warm, "--address", "127.0.0.1:9",
                        "--connect-timeout", "1", "--json", str(out_json), "--", "spider", "--gold", "g", "--pred", "p",
                        "--db", "d"],
                       capture_output=True, text=True, timeout=120, env=dict(os.environ, PYTHONPATH=PY_ROOT))
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        "sqlgrade.ray: cannot reach the Ray cluster at 127.0.0.1:9 within 1 s (ConnectionRefusedError: "
        "[Errno 111] Connection refused); is `ray start --head` running there?"]
    assert not out_json.exists()


class _FakeRay:
    """A stand-in for the ray module whose init fails as given, then joins."""

    def __init__(self, failures: list) -> None:
        self.failures, self.calls, self.joined = list(failures), 0, False

    def is_initialized(self) -> bool:
        return self.joined

    def init(self, **kwargs) -> None:
        self.calls += 1
        if self.failures:
            raise self.failures.pop(0)
        self.joined = True


def test_a_client_server_start_that_ray_loses_is_joined_again(monkeypatch) -> None:
    """Ray's proxy reporting that the per-client server it started died (a zombie when it reads it:
    seen in a full run under load) is tried again, at most 3 times in all; any other failure at once."""
    from sqlgrade.ray import _cluster

    monkeypatch.setattr(_cluster, "_host_port", lambda address: None)  # no socket probe
    monkeypatch.setattr(_cluster.time, "sleep", lambda s: None)
    zombie = ConnectionError("Initialization failure from server: psutil.ZombieProcess: PID still exists but it's a zombie")
    fake = _FakeRay([zombie, zombie])
    monkeypatch.setattr(_cluster, "import_ray", lambda: fake)
    assert _cluster.connect("ray://127.0.0.1:1") is fake
    assert fake.calls == 3 and fake.joined

    fake = _FakeRay([zombie, zombie, zombie])
    monkeypatch.setattr(_cluster, "import_ray", lambda: fake)
    with pytest.raises(_cluster.ClusterError, match="ZombieProcess"):
        _cluster.connect("ray://127.0.0.1:1")
    assert fake.calls == 3

    fake = _FakeRay([ConnectionError("Ray Client requires the same Python version"), zombie])
    monkeypatch.setattr(_cluster, "import_ray", lambda: fake)
    with pytest.raises(_cluster.ClusterError, match="same Python version"):
        _cluster.connect("ray://127.0.0.1:1")
    assert fake.calls == 1


def test_paths_are_the_cli_definitions_not_the_files_here(tmp_path, monkeypatch) -> None:
    """Which arguments are paths is each flag's path role in the CLI (sqlgrade._tables, generated from
    src/cli): a file named `all` in the working folder leaves `--etype all` a value (it used to become
    /cwd/all), and a path that does not exist yet is made absolute all the same."""
    from sqlgrade.ray.batch import _check_command, _paths, command_inputs
    from sqlgrade.ray.warm import command_kwargs

    monkeypatch.chdir(tmp_path)
    (tmp_path / "all").write_text("not a flag value\n")
    (tmp_path / "gold.sql").write_text("SELECT 1\tdb\n")
    cmd = ["spider", "--gold", "gold.sql", "--etype", "all", "--pred=p.sql", "--db", "dbs", "--compat", "all"]
    assert _check_command(cmd) == ["spider", "--gold", str(tmp_path / "gold.sql"), "--etype", "all",
                                   f"--pred={tmp_path / 'p.sql'}", "--db", str(tmp_path / "dbs"), "--compat", "all"]
    assert command_inputs(cmd, 1) == [(str(tmp_path / "gold.sql"), "--gold")]
    assert _paths(_check_command(cmd)) == [str(tmp_path / "gold.sql")]
    assert command_kwargs(cmd[:5])[1] == {"gold": str(tmp_path / "gold.sql"), "etype": "all"}
    # bird's official spellings reach the same definitions (--db_root_path is --db, a folder read)
    assert _check_command(["bird", "--db_root_path", "all", "--sql_dialect", "all"]) == [
        "bird", "--db_root_path", str(tmp_path / "all"), "--sql_dialect", "all"]
