"""BIRD on PostgreSQL and MySQL through every road (issue 33): sqlgrade.verdict / execute in-process,
the reward server (`serve --dsn`, a request's `dialect`), an RL adapter, sqlgrade.bird.evaluate, and
the CLI's refusal of --verify. The expected tables come from expected/bird_minidev_dialects/ (the
official scripts' outputs)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.request

import pytest

import sqlgrade
from _servers import my, pg  # noqa: F401 (session fixtures: the throwaway servers)
from conftest import data_dir, needs_native, sqlgrade_bin

pytestmark = needs_native

GOLD = "SELECT COUNT(*) FROM account"


def _post(url: str, path: str, body: dict):
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


@pytest.mark.parametrize("which", ["pg", "my"])
def test_verdict_in_process_with_python_values(which, request, settings):
    db = request.getfixturevalue(which)["reader"]
    settings(backend="native", shaping={}, db_root=None, benchmark="bird")
    ok = sqlgrade.verdict("SELECT COUNT(*) FROM account", db=db, gold_sql=GOLD, extract=False)
    assert ok.reward == 1.0 and ok.execution_match
    # Decimal('0.5') == 0.5, but a 4-decimal DECIMAL never equals the gold's double (MySQL division).
    half = sqlgrade.verdict("SELECT 1.0/2", db=db, gold_sql="SELECT CAST(0.5 AS DOUBLE PRECISION)" if which == "pg"
                            else "SELECT CAST(0.5 AS DOUBLE)", extract=False)
    assert half.reward == 1.0
    third = sqlgrade.verdict("SELECT 1/3" if which == "my" else "SELECT 1.0/3", db=db,
                             gold_sql="SELECT CAST(1 AS DOUBLE PRECISION)/3" if which == "pg" else "SELECT 1e0/3",
                             extract=False)
    assert third.reward == 0.0 and third.stage == "different"
    bad = sqlgrade.verdict("DROP TABLE account", db=db, gold_sql=GOLD, extract=False)
    assert bad.reward == 0.0 and "not a query" in bad.failure_detail
    with pytest.raises(sqlgrade.InputError, match="verify"):
        sqlgrade.verdict(GOLD, db=db, gold_sql=GOLD, extract=False, verify=True)
    with pytest.raises(sqlgrade.InputError, match="benchmark bird"):
        sqlgrade.verdict(GOLD, db=db, gold_sql=GOLD, extract=False, benchmark="spider2")


def test_postgres_array_makes_the_official_set_raise(pg, settings):
    settings(backend="native", shaping={}, db_root=None, benchmark="bird")
    v = sqlgrade.verdict("SELECT array_agg(1)", db=pg["reader"], gold_sql="SELECT array_agg(1)", extract=False)
    assert v.reward == 0.0 and "unhashable type: 'list'" in v.failure_detail


@pytest.mark.parametrize("which", ["pg", "my"])
def test_execute_in_process(which, request, settings):
    db = request.getfixturevalue(which)["reader"]
    settings(backend="native", db_root=None)
    r = sqlgrade.execute(db, "SELECT 1.5, DATE '2020-01-02', 7", max_rows=5)
    assert r.status == "ok"
    assert list(r.rows) == [("1.5", "2020-01-02", 7)]  # Decimal and date as their str(), ints as ints
    slow = sqlgrade.execute(db, "SELECT pg_sleep(30)" if which == "pg" else "SELECT SLEEP(30)", timeout=1)
    assert slow.status == "timeout"


def test_reward_server_picks_its_dsn_by_dialect(pg, my, start_server):
    srv = start_server("--benchmark", "bird", "--dsn", pg["reader"], "--dsn", my["reader"], "--dialect", "postgresql",
                       "--timeout", "5")
    for dialect, gold in (("postgresql", "SELECT 10/4"), ("mysql", "SELECT 10/4"), (None, "SELECT 10/4")):
        body = {"sql": "SELECT 10/4", "gold_sql": gold}
        if dialect:
            body["dialect"] = dialect
        status, reply = _post(srv.url, "/verify", body)
        assert status == 200 and reply["reward"] == 1.0, reply
    # MySQL's 10/4 is Decimal('2.5000'), which equals 2.5; PostgreSQL's is the integer 2.
    status, reply = _post(srv.url, "/verify", {"sql": "SELECT 2.5", "gold_sql": "SELECT 10/4", "dialect": "mysql"})
    assert reply["reward"] == 1.0
    status, reply = _post(srv.url, "/verify", {"sql": "SELECT 2.5", "gold_sql": "SELECT 10/4", "dialect": "postgresql"})
    assert reply["reward"] == 0.0
    status, reply = _post(srv.url, "/verify", {"sql": "SELECT 1", "gold_sql": "SELECT 1", "db": pg["reader"]})
    assert status == 400  # a request never names a database URI
    status, reply = _post(srv.url, "/verify", {"sql": "SELECT 1", "gold_sql": "SELECT 1", "dialect": "oracle"})
    assert status == 400 and "dialect" in reply.get("error", json.dumps(reply))
    status, reply = _post(srv.url, "/execute", {"sql": "SELECT COUNT(*) FROM account", "dialect": "mysql"})
    assert status == 200 and reply["status"] == "ok" and len(reply["rows"]) == 1


def test_reward_server_without_that_dialect_says_so(pg, start_server):
    srv = start_server("--benchmark", "bird", "--dsn", pg["reader"])
    status, reply = _post(srv.url, "/verify", {"sql": "SELECT 1", "gold_sql": "SELECT 1", "dialect": "mysql"})
    assert status == 400 and "no MySQL database" in json.dumps(reply)


def test_serve_refuses_a_login_that_may_write(pg):
    p = subprocess.run([sqlgrade_bin(), "serve", "--port", "0", "--dsn", pg["admin"].replace("/postgres?", "/bird_fixture?")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "is a superuser" in p.stderr


def test_rl_adapter_grades_on_a_server(pg, settings):
    from sqlgrade import verl
    settings(backend="native", shaping={}, db_root=None)
    out = verl.compute_score("bird", "```sql\nSELECT COUNT(*) FROM account\n```", GOLD,
                             extra_info={"db_path": pg["reader"], "benchmark": "bird"})
    assert out["acc"] == 1.0


def test_bird_evaluate_in_process_matches_the_official_table(pg):
    d = data_dir()
    run = sqlgrade.bird.evaluate(
        pred=os.path.join(d, "preds/bird_minidev/official_baselines_sql_output_kg/predict_mini_dev_gpt-4_postgresql.json"),
        gold=os.path.join(d, "bird/minidev/mini_dev_postgresql_gold.sql"),
        diff_json=os.path.join(d, "bird/minidev/mini_dev_postgresql.json"), sql_dialect="PostgreSQL", dsn=pg["reader"],
        jobs=2)
    with open(os.path.join(d, "expected/bird_minidev_dialects/ex/official_baselines_sql_output_kg__"
                              "predict_mini_dev_gpt-4_postgresql.txt"), encoding="utf-8") as f:
        assert run.text == f.read()


def test_cli_refuses_verify_on_a_server(pg):
    d = data_dir()
    p = subprocess.run([sqlgrade_bin(), "bird", "--sql_dialect", "PostgreSQL", "--dsn", pg["reader"], "--verify",
                        "--pred", os.path.join(d, "preds/bird_minidev/official_baselines_sql_output_kg/"
                                                  "predict_mini_dev_gpt-4_postgresql.json"),
                        "--gold", os.path.join(d, "bird/minidev/mini_dev_postgresql_gold.sql")],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 2
    assert "--verify: the counterexample search builds SQLite databases" in p.stderr


_BLOCK = re.compile(r"<!-- server-test: (\w+) -->\n```sh\n(.*?)\n```", re.S)


def _doc_blocks():
    with open(os.path.join(os.path.dirname(sqlgrade.__file__), "..", "..", "docs", "bird.md"), encoding="utf-8") as f:
        return dict(_BLOCK.findall(f.read()))


@pytest.mark.parametrize("which", ["postgresql", "mysql"])
def test_documented_commands_run_verbatim(which, request):
    """docs/bird.md's two blocks as written (db load creates the database and the login, then grades),
    with $ADMIN the throwaway server's superuser and sqlgrade on PATH."""
    block = _doc_blocks()[which]
    srv = request.getfixturevalue("pg" if which == "postgresql" else "my")
    env = dict(os.environ, ADMIN=srv["admin"], SQLGRADE_DATA=os.path.abspath(data_dir()),
               PATH=os.path.dirname(os.path.abspath(sqlgrade_bin())) + os.pathsep + os.environ.get("PATH", ""))
    p = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", block], env=env, capture_output=True, text=True,
                       timeout=600)
    assert p.returncode == 0, p.stderr
    with open(os.path.join(data_dir(), "expected/bird_minidev_dialects/ex/official_baselines_sql_output_kg__"
                                       f"predict_mini_dev_gpt-4_{which}.txt"), encoding="utf-8") as f:
        assert p.stdout == f.read()
