"""Verdict outcomes that say what happened (issue 30, items 6 and 11), on every Python road: the stage
and failure_reason of a refuted match and of a query that returned other rows; gold alternatives
verified against each gold they match; the one table of label keys read by the adapters and by
`sqlgrade serve`'s /get_reward; a cut search rewarded by a policy; a database replaced at its path.
Each check runs on both backends (the server and the native module) where both exist."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import sqlite3
import urllib.parse

import pytest

import sqlgrade
from conftest import Dbs, needs_native
from sqlgrade import openrlhf, verl
from sqlgrade._backend import native_available
from sqlgrade._rows import LABEL_KEYS
from sqlgrade.results import STAGE_FAILURE_REASON, STAGES

FILTERED = "SELECT name FROM item WHERE price > 1"  # every price is above 1: the next query matches it here
UNFILTERED = "SELECT name FROM item"
EQUIV_GOLD = "SELECT name FROM item WHERE qty >= 0 AND price > 1"
EQUIV_PRED = "SELECT name FROM item WHERE price > 1 AND qty >= 0"


@pytest.fixture(params=["server", "native"])
def backend(request, fixture_server, settings):
    if request.param == "native" and not native_available():
        pytest.skip("needs the native module sqlgrade._native")
    settings(server=fixture_server.url if request.param == "server" else None, backend=request.param, shaping={},
             db_root=None, benchmark="spider2")
    return request.param


def post(url: str, path: str, payload) -> dict:
    u = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    try:
        conn.request("POST", path, body=json.dumps(payload), headers={"Content-Type": "application/json"})
        r = conn.getresponse()
        body = json.loads(r.read())
        assert r.status == 200, body
        return body
    finally:
        conn.close()


def test_stage_and_failure_reason(backend, dbs: Dbs):
    assert set(STAGE_FAILURE_REASON) == set(STAGES)
    wrong = sqlgrade.verdict(UNFILTERED, db=dbs.shop, gold_sql="SELECT name FROM item WHERE qty > 1", extract=False)
    assert (wrong.stage, wrong.failure_reason, wrong.executed) == ("different", "result_mismatch", True)
    broken = sqlgrade.verdict("SELECT nme FROM item", db=dbs.shop, gold_sql=FILTERED, extract=False)
    assert (broken.stage, broken.failure_reason, broken.executed) == ("pred_failed", "execution_error", False)
    refuted = sqlgrade.verdict(UNFILTERED, db=dbs.shop, gold_sql=FILTERED, extract=False, verify=True)
    assert refuted.execution_match is True and refuted.reward == 0.0
    assert (refuted.stage, refuted.failure_reason, refuted.outcome) == ("refuted", "refuted", "wrong_result")
    assert refuted.to_dict()["verify"]["status"] == "refuted"
    for v in (wrong, broken, refuted):
        assert v.failure_reason == STAGE_FAILURE_REASON[v.stage]


def test_gold_alternatives_are_verified_against_each_gold_they_match(backend, dbs: Dbs):
    # g1 matches on the database and is refuted; the prediction is g2 itself: any gold it is equivalent to counts
    for db, bench in ((dbs.shop, "spider2"), (dbs.bird_shop, "bird")):
        v = sqlgrade.verdict(UNFILTERED, db=db, benchmark=bench, gold_sql=[FILTERED, UNFILTERED], extract=False,
                             verify=True)
        assert (v.reward, v.stage, v.raw["gold_index"]) == (1.0, "equal", 1), v
        alone = sqlgrade.verdict(UNFILTERED, db=db, benchmark=bench, gold_sql=[UNFILTERED], extract=False, verify=True)
        assert alone.reward == 1.0
        refuted = sqlgrade.verdict(UNFILTERED, db=db, benchmark=bench, extract=False, verify=True,
                                   gold_sql=[FILTERED, "SELECT name FROM item WHERE price >= 1.5"])
        assert (refuted.reward, refuted.stage, refuted.raw["gold_index"]) == (0.0, "refuted", 0)


def test_a_cut_search_is_unverified_and_rewarded_by_the_policy(backend, dbs: Dbs):
    cut = {"budget": 0.05, "candidates": 10_000_000}  # an equivalent pair: only the time cap ends the search
    kept = sqlgrade.verdict(EQUIV_PRED, db=dbs.shop, gold_sql=EQUIV_GOLD, extract=False, verify=cut)
    assert (kept.verify["status"], kept.verify["time_capped"], kept.reward, kept.stage) == ("unverified", True, 1.0, "equal")
    zero = sqlgrade.verdict(EQUIV_PRED, db=dbs.shop, gold_sql=EQUIV_GOLD, extract=False,
                            verify={**cut, "on_unverified": "zero"})
    assert (zero.verify["status"], zero.reward, zero.stage, zero.failure_reason) == ("unverified", 0.0, "unverified",
                                                                                      "unverified")
    with pytest.raises(sqlgrade.InputError, match="on_unverified"):
        sqlgrade.verdict(EQUIV_PRED, db=dbs.shop, gold_sql=EQUIV_GOLD, extract=False, verify={"on_unverified": "maybe"})


@needs_native
def test_label_keys_are_the_librarys_table():
    from sqlgrade import _native
    assert tuple(_native.label_keys()) == LABEL_KEYS


# Labels with keys /get_reward used to drop (issue 30, item 11b), each with the reward /verify gives.
LABELS = [
    ({"gold_sql": "SELECT name FROM item WHERE qty = 0", "alternative_answers": [UNFILTERED], "benchmark": "bird"},
     UNFILTERED, 1.0),
    ({"gold_sql": FILTERED, "benchmark": "bird", "verify": True}, UNFILTERED, 0.0),
    ({"gold_sql": FILTERED, "benchmark": "bird", "shaping": {"wrong_result": 0.25}, "verify": True}, UNFILTERED, 0.0),
]


def test_get_reward_and_the_adapters_read_the_same_label_keys(srv, dbs: Dbs):
    labels = LABELS
    queries = [f"```sql\n{sql}\n```" for _, sql, _ in labels]
    # /get_reward: labels name the database by db_id (the server reads its own folders)
    served = post(srv.url, "/get_reward", {"query": queries, "labels": [dict(lb, db_id="shop") for lb, _, _ in labels]})
    # the file-mode adapter: labels name it by db_path
    local = openrlhf.reward_func(queries, [""] * len(labels), [dict(lb, db_path=dbs.bird_shop) for lb, _, _ in labels])
    as_list = lambda x: [float(v) for v in x]  # noqa: E731 (tensors or lists)
    assert as_list(local["scores"]) == served["scores"] == [w for _, _, w in labels]
    assert as_list(local["rewards"]) == served["rewards"] == [1.0, 0.0, 0.25]  # the label's own shaping
    for k in ("sql_acc", "sql_found", "sql_executed", "sql_refuted", "sql_unverified"):
        assert as_list(local["extra_logs"][k]) == served["extra_logs"][k], k
    assert served["extra_logs"]["sql_refuted"] == [0.0, 1.0, 1.0]
    assert served["extra_logs"]["sql_acc"] == [1.0, 1.0, 1.0]  # the official verdict
    # and /verify, the same keys as fields
    for (lb, sql, want) in labels:
        assert post(srv.url, "/verify", dict(lb, db_id="shop", sql=sql))["reward"] == want
    # verl reads them from extra_info
    got = verl.compute_score("bird", f"```sql\n{UNFILTERED}\n```", FILTERED,
                             {"db_path": dbs.bird_shop, "benchmark": "bird", "verify": True})
    assert (got["score"], got["acc"], got["sql_refuted"]) == (0.0, 1.0, 1.0)


def test_keep_distinct_in_a_label(srv, dbs: Dbs):
    gold, pred = "SELECT DISTINCT city FROM student", "SELECT city FROM student"
    label = {"gold_sql": gold, "benchmark": "spider", "keep_distinct": True}
    want = post(srv.url, "/verify", dict(label, db_id="school", sql=pred))["reward"]
    plain = post(srv.url, "/verify", {"gold_sql": gold, "benchmark": "spider", "db_id": "school", "sql": pred})["reward"]
    assert (want, plain) == (0.0, 1.0)  # duplicated cities: kept DISTINCT tells them apart
    served = post(srv.url, "/get_reward", {"query": [pred], "labels": [dict(label, db_id="school")]})
    local = openrlhf.reward_func([pred], [""], [dict(label, db_path=dbs.school)])
    assert served["scores"] == [want] and [float(x) for x in local["scores"]] == [want]


def test_per_item_shaping_in_a_batch(backend, dbs: Dbs):
    items = [{"output": UNFILTERED, "gold_sql": "SELECT name FROM item WHERE qty > 1"},
             {"output": UNFILTERED, "gold_sql": "SELECT name FROM item WHERE qty > 1", "shaping": {"wrong_result": 0.5}}]
    got = sqlgrade.verdicts(items, db=dbs.shop, extract=False, wrong_result_score=0.1)
    assert [v.score for v in got] == [0.1, 0.5]


@needs_native
def test_a_database_replaced_at_its_path_is_read_again(settings, tmp_path):
    settings(server=None, backend="native")
    db, nxt = str(tmp_path / "n.sqlite"), str(tmp_path / "next.sqlite")

    def make(path: str, script: str) -> None:
        if os.path.exists(path):
            os.remove(path)
        con = sqlite3.connect(path)
        con.executescript(script)
        con.commit()
        con.close()

    make(db, "CREATE TABLE t(x INT); INSERT INTO t VALUES (1),(2),(3),(4),(5);")
    assert sqlgrade.verdict("SELECT 5", db=db, gold_sql="SELECT count(*) FROM t", extract=False).reward == 1.0
    make(nxt, "CREATE TABLE t(x INT); INSERT INTO t VALUES (1),(2);")
    os.replace(nxt, db)  # another file at the same path
    assert sqlgrade.verdict("SELECT 5", db=db, gold_sql="SELECT count(*) FROM t", extract=False).reward == 0.0
    make(nxt, "CREATE TABLE t(x INT); INSERT INTO t VALUES (7),(8),(9);")
    shutil.copyfile(nxt, db)  # rewritten in place
    assert sqlgrade.verdict("SELECT 3", db=db, gold_sql="SELECT count(*) FROM t", extract=False).reward == 1.0
    # the verify option's schema: the new file forbids the counterexample of the old one
    shop = str(tmp_path / "shop.sqlite")
    make(shop, "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL);"
               "INSERT INTO item VALUES (1, 'apple', 1.5), (2, 'fig', 10.0);")
    opt = {"budget": 5, "candidates": 50}
    assert sqlgrade.verdict(UNFILTERED, db=shop, gold_sql=FILTERED, extract=False, verify=opt).verify["status"] == "refuted"
    make(nxt, "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL NOT NULL CHECK (price > 1));"
              "INSERT INTO item VALUES (1, 'apple', 1.5), (2, 'fig', 10.0);")
    os.replace(nxt, shop)
    again = sqlgrade.verdict(UNFILTERED, db=shop, gold_sql=FILTERED, extract=False, verify=opt)
    assert again.verify["status"] != "refuted" and again.reward == 1.0, again.verify
