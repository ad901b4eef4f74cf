"""SQL's pinned clock from Python (issue 30, item 9): ``now=`` on verdict/verdicts/execute (both
backends: the request field ``now``) and on the whole-benchmark evaluate() (``--now``, recorded as
options.now). date('now'), CURRENT_TIMESTAMP, julianday('now') ... return the pinned instant."""

from __future__ import annotations

import datetime
import json
import os

import pytest

import sqlgrade
from conftest import Dbs, build_db, needs_native

GOLD = "SELECT date('now') AS d"   # the gold's answer is the day it is graded
PRED = "SELECT '2005-06-01' AS d"  # right on 2005-06-01 only


def check_verdicts(dbs: Dbs) -> None:
    def reward(now, gold=GOLD):
        return sqlgrade.verdict(PRED, db=dbs.shop, gold_sql=gold, extract=False, now=now).reward

    assert reward("2005-06-01") == 1.0
    assert reward("2005-06-01T23:59:59.999Z") == 1.0
    assert reward(datetime.date(2005, 6, 1)) == 1.0
    assert reward(datetime.datetime(2005, 6, 1, 23, 0)) == 1.0  # naive: UTC
    plus2 = datetime.timezone(datetime.timedelta(hours=2))
    assert reward(datetime.datetime(2005, 6, 2, 1, 0, tzinfo=plus2)) == 1.0  # 2005-06-01T23:00Z
    assert reward("2006-01-01") == 0.0  # the same gold under another clock: not the cached answer
    assert reward(None) == 0.0           # the real clock
    assert reward("2005-06-01", gold="SELECT date('now', '+1 day', '-1 day') AS d") == 1.0
    with pytest.raises(sqlgrade.InputError, match="not a timestamp: 2005-06-31"):
        reward("2005-06-31")
    with pytest.raises(sqlgrade.InputError, match="now: expected a TIMESTAMP"):
        reward(1117584000)
    batch = sqlgrade.verdicts([{"output": PRED}, {"output": PRED, "now": "2007-07-07"}], db=dbs.shop, gold_sql=GOLD,
                              extract=False, now="2005-06-01")
    assert [v.reward for v in batch] == [1.0, 0.0]  # an item's own now wins over the common one
    r = sqlgrade.execute(dbs.shop, "SELECT CURRENT_TIMESTAMP, julianday('now')", now="2000-01-01T12:00:00Z")
    assert r.rows == (("2000-01-01 12:00:00", 2451545.0),), r


def test_now_server(srv, dbs: Dbs):
    check_verdicts(dbs)


@needs_native
def test_now_native(settings, dbs: Dbs):
    settings(server=None, backend="native")
    check_verdicts(dbs)


@needs_native
def test_evaluate_now_is_pinned_and_recorded(tmp_path):
    from sqlgrade import bird, spider

    db = build_db("shop.sql", str(tmp_path / "db" / "shop" / "shop.sqlite"))
    assert os.path.exists(db)
    # the prediction reads the clock (a Spider gold must parse with the benchmark's grammar: no date functions)
    (tmp_path / "gold.sql").write_text("SELECT name FROM item\tshop\n")
    (tmp_path / "pred.sql").write_text("SELECT name FROM item WHERE date('now') < '2010-01-01'\n")
    kw = dict(gold=str(tmp_path / "gold.sql"), pred=str(tmp_path / "pred.sql"), db_dir=str(tmp_path / "db"))
    pinned = spider.evaluate(**kw, now="2005-06-01T02:00:00+02:00")
    assert pinned.to_dict()["options"]["now"] == "2005-06-01T00:00:00Z"
    assert pinned.to_dict()["instances"][0]["scores"]["exec"] == 1
    real = spider.evaluate(**kw)
    assert "now" not in real.to_dict()["options"]
    assert real.to_dict()["instances"][0]["scores"]["exec"] == 0
    with pytest.raises(sqlgrade.InputError, match=r"^now: not a timestamp: tomorrow"):
        spider.evaluate(**kw, now="tomorrow")

    (tmp_path / "bird_gold.sql").write_text("SELECT date('now')\tshop\n")
    (tmp_path / "bird_pred.json").write_text(json.dumps({"0": "SELECT '2005-06-01'\t----- bird -----\tshop"}))
    bkw = dict(pred=str(tmp_path / "bird_pred.json"), gold=str(tmp_path / "bird_gold.sql"), db_dir=str(tmp_path / "db"))
    b = bird.evaluate(**bkw, now=datetime.date(2005, 6, 1))
    assert b.to_dict()["options"]["now"] == "2005-06-01T00:00:00Z"
    assert b.to_dict()["instances"][0]["scores"]["ex"] == 1
    assert bird.evaluate(**bkw, now="2005-06-02").to_dict()["instances"][0]["scores"]["ex"] == 0


@needs_native
def test_option_structs_take_now():
    from sqlgrade import _native

    for cls in ("SpiderOptions", "BirdOptions", "Spider2Options", "UdaOptions", "UdaQueryOptions"):
        o = getattr(_native, cls)()
        assert o.now == ""
        o.now = "2024-06-30 12:00:00.5-01:00"
        assert o.now == "2024-06-30T13:00:00.500Z", cls
        with pytest.raises(_native.InputError, match="now: not a timestamp"):
            o.now = "30/06/2024"
