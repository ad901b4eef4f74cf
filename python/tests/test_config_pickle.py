"""Settings (environment, configure, reload), backend selection, and pickling for process pools."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import os
import pickle

import pytest

import sqlgrade
import sqlgrade.areal
import sqlgrade.compat
import sqlgrade.openrlhf
import sqlgrade.trl
import sqlgrade.verl
from conftest import Dbs, needs_native
from sqlgrade._backend import native_available


def test_environment_and_configure(settings, monkeypatch):
    monkeypatch.setenv("SQLGRADE_SERVER", "http://127.0.0.1:9/")
    monkeypatch.setenv("SQLGRADE_DB_ROOT", "/data/dbs")
    c = sqlgrade.reload()
    assert (c.server, c.backend, c.db_root) == ("http://127.0.0.1:9", "auto", "/data/dbs")
    c = sqlgrade.configure(wrong_result_score=0.1, no_sql_score=-1, benchmark="BIRD", threads=4)
    assert (c.shaping.wrong_result, c.shaping.no_sql, c.benchmark, c.threads) == (0.1, -1.0, "bird", 4)
    exported = json.loads(os.environ["SQLGRADE_CONFIG"])  # what worker processes will read
    assert exported["shaping"]["wrong_result"] == 0.1 and exported["server"] == "http://127.0.0.1:9"
    assert sqlgrade.reload() == c  # a fresh process reads the same settings
    sqlgrade.configure(server=None)
    assert "SQLGRADE_SERVER" not in os.environ and sqlgrade.reload().server is None
    for bad in (dict(backend="gpu"), dict(benchmark="wikisql"), dict(retries=-1), dict(http_timeout=0),
                dict(extract={"raw": True}), dict(colour="red"), dict(no_sql_score="low")):
        with pytest.raises((sqlgrade.InputError, TypeError)):
            sqlgrade.configure(**bad)
    monkeypatch.setenv("SQLGRADE_CONFIG", "{not json")
    with pytest.raises(sqlgrade.InputError, match="SQLGRADE_CONFIG: not valid JSON"):
        sqlgrade.reload()


@pytest.mark.skipif(native_available(), reason="the native module is built: this checks the message when it is not")
def test_no_backend_says_how_to_get_one(settings, dbs: Dbs):
    settings(server=None, backend="auto")
    with pytest.raises(sqlgrade.BackendUnavailable) as e:
        sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1")
    assert isinstance(e.value, ImportError)
    msg = str(e.value)
    assert "sqlgrade._native is not built" in msg and "SQLGRADE_SERVER" in msg and "docs/python.md" in msg
    settings(backend="server")
    with pytest.raises(sqlgrade.BackendUnavailable, match="no server URL"):
        sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1")


@needs_native
def test_native_is_the_default_without_a_server(settings, dbs: Dbs):
    settings(server=None, backend="auto")
    assert sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False).reward == 1.0


FUNCTIONS = [sqlgrade.verdict, sqlgrade.verdicts, sqlgrade.averdict, sqlgrade.execute, sqlgrade.verl.compute_score,
             sqlgrade.verl.compute_score_async, sqlgrade.verl.compute_score_batch, sqlgrade.trl.reward_func,
             sqlgrade.openrlhf.reward_func, sqlgrade.areal.reward_fn, sqlgrade.compat.eval_exec_match]


def test_module_level_functions_and_results_pickle(srv, dbs: Dbs):
    for f in FUNCTIONS:
        assert pickle.loads(pickle.dumps(f)) is f
    rf = sqlgrade.trl.RewardFunc(wrong_result_score=0.1, name="sql")
    rf2 = pickle.loads(pickle.dumps(rf))
    assert rf2.__name__ == "sql" and rf2.shaping == {"wrong_result_score": 0.1}
    v = sqlgrade.verdict("SELECT name FROM item", db=dbs.shop, gold_sql="SELECT 1", extract=False)
    assert pickle.loads(pickle.dumps(v)) == v
    for exc in (sqlgrade.InputError("x.sqlite: no such database file"), sqlgrade.ServerBusy("busy"),
                sqlgrade.ServerUnavailable("down"), sqlgrade.ServerTimeout("slow"), sqlgrade.GoldError("gold"),
                sqlgrade.BackendUnavailable("none"), sqlgrade.BackendUnsupported("no")):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and str(back) == str(exc)
    assert pickle.loads(pickle.dumps(sqlgrade.config())) == sqlgrade.config()


def _areal_in_worker(args):
    prompt, completion, data = args
    return sqlgrade.areal.reward_fn(prompt, completion, [1, 2], [3], **data), os.getpid()


def test_spawned_worker_processes_inherit_the_settings(srv, dbs: Dbs, settings):
    """configure() before the pool starts; spawn children import sqlgrade afresh and read the
    exported environment (AReaL's ProcessPoolExecutor, Ray workers started from this process)."""
    settings(wrong_result_score=0.1)
    data = {"gold_sql": "SELECT name FROM item WHERE qty > 1", "db_path": dbs.shop, "messages": []}
    jobs = [("q", "```sql\nSELECT name FROM item WHERE qty > 1\n```", data),
            ("q", "```sql\nSELECT name FROM item\n```", data)] * 3
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(2, mp_context=ctx) as pool:
        results = list(pool.map(_areal_in_worker, jobs))
    assert [r for r, _ in results] == [1.0, 0.1] * 3
    assert os.getpid() not in {pid for _, pid in results}


@needs_native
def test_extract_presets_from_python(settings, dbs: Dbs):
    """extract={"preset": ...} (issue 34): NeMo Gym bird_sql's extraction of one version, its codes."""
    settings(server=None, backend="auto")
    old = sqlgrade.verdict("I cannot answer.", db=dbs.shop, gold_sql="SELECT 1", benchmark="bird",
                           extract={"preset": "gym-bird-0.4"})
    assert (old.reward, old.extracted_sql) == (1.0, "SELECT 1")  # Gym 0.4's filler runs, and matches this gold
    new = sqlgrade.verdict("I cannot answer.", db=dbs.shop, gold_sql="SELECT 1", benchmark="bird",
                           extract={"preset": "gym-bird-0.7"})
    assert (new.reward, new.extracted_sql, new.failure_reason) == (0.0, None, "no_sql_extracted")
    with pytest.raises(sqlgrade.InputError, match="preset"):
        sqlgrade.verdict("x", db=dbs.shop, gold_sql="SELECT 1", extract={"preset": "gym-bird-0.5"})
    assert sqlgrade.configure(extract={"preset": "gym-bird-0.7"}).extract == {"preset": "gym-bird-0.7"}
    sqlgrade.configure(extract=None)
