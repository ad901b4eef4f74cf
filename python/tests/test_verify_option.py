"""The `verify` option of a verdict (RL rewards, docs/verify.md "For RL"): after a match, a small
search for a database on which the prediction and the gold differ. A refuted match keeps
execution_match but gets reward 0 and the wrong_result outcome; both backends give the same."""

from __future__ import annotations

import pytest

import sqlgrade
from conftest import Dbs, needs_native

GOLD = "SELECT name FROM item WHERE price > 1"  # every item: a prediction without the filter matches here
MISSING_FILTER = "SELECT name FROM item"
REORDERED = "SELECT name FROM item WHERE price > 1 AND qty >= 0"
REORDERED_GOLD = "SELECT name FROM item WHERE qty >= 0 AND price > 1"


def check_backend(dbs: Dbs) -> None:
    plain = sqlgrade.verdict(MISSING_FILTER, db=dbs.shop, gold_sql=GOLD, extract=False)
    assert (plain.reward, plain.execution_match, plain.verify) == (1.0, True, None)
    v = sqlgrade.verdict(MISSING_FILTER, db=dbs.shop, gold_sql=GOLD, extract=False, verify=True)
    assert v.execution_match is True and v.reward == 0.0 and v.outcome == "wrong_result", v
    assert v.verify["status"] == "refuted" and v.verify["counterexample"]["rows"], v.verify
    again = sqlgrade.verdict(MISSING_FILTER, db=dbs.shop, gold_sql=GOLD, extract=False, verify={"seed": 0})
    assert again.verify["counterexample"] == v.verify["counterexample"]  # deterministic for a seed
    ok = sqlgrade.verdict(REORDERED, db=dbs.shop, gold_sql=REORDERED_GOLD, extract=False,
                          verify={"budget": 1.0, "candidates": 40})
    assert (ok.reward, ok.verify["status"]) == (1.0, "no_counterexample"), ok.verify
    assert ok.verify["candidates"] == 40
    wrong = sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql=GOLD, extract=False, verify=True)
    assert (wrong.reward, wrong.verify["status"]) == (0.0, "skipped")
    batch = sqlgrade.verdicts([{"output": MISSING_FILTER, "gold_sql": GOLD}, {"output": REORDERED, "gold_sql": REORDERED_GOLD}],
                              db=dbs.shop, extract=False, verify=True)
    assert [b.verify["status"] for b in batch] == ["refuted", "no_counterexample"]
    with pytest.raises(sqlgrade.InputError, match="budget"):
        sqlgrade.verdict(MISSING_FILTER, db=dbs.shop, gold_sql=GOLD, extract=False, verify={"budget": -1})
    with pytest.raises(sqlgrade.InputError, match="verify"):
        sqlgrade.verdict(MISSING_FILTER, db=dbs.shop, gold_sql=GOLD, extract=False, verify={"rounds": 3})


def test_verify_option_server(srv, dbs: Dbs):
    check_backend(dbs)


@needs_native
def test_verify_option_native(settings, dbs: Dbs):
    settings(server=None, backend="native")
    check_backend(dbs)
