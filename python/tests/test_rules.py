"""Issue 20 item 4 / issue 21: the RL rules live in the C++ library, and the Python API gets them from it.

Before, gold alternatives, ``order="top_level"`` and reward shaping were Python code (api.py looped
over the golds, shaping.py scanned the gold for ORDER BY and scored the outcome). Now the request
carries ``gold_sql`` as a list, ``order`` and ``shaping``; the library applies them (native module or
server alike) and the reply carries ``score`` and ``outcome``. These tests keep the old Python rules
as the reference and check that the library gives the same numbers, on both backends.
"""

from __future__ import annotations

import os
import random

import pytest

import sqlgrade
from conftest import Dbs, data_dir, needs_native

GOLD = "SELECT name FROM item WHERE qty > 1"


# ---- the reference: the Python rules as they were before (sqlgrade/shaping.py, results.py at main) ----

def old_has_top_level_order_by(sql: str) -> bool:
    depth = 0
    i, n = 0, len(sql)
    words: list = []
    while i < n:
        c = sql[i]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = i + 1
            while j < n:
                if sql[j] == close:
                    if close != "]" and j + 1 < n and sql[j + 1] == close:
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
            words.clear()
            continue
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == "(":
            depth += 1
            words.clear()
        elif c == ")":
            depth = max(depth - 1, 0)
            words.clear()
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (sql[j].isalnum() or sql[j] == "_"):
                j += 1
            if depth == 0:
                words.append(sql[i:j].lower())
                if words[-2:] == ["order", "by"]:
                    return True
                del words[:-1]
            i = j
            continue
        elif not c.isspace():
            words.clear()
        i += 1
    return False


OLD_OUTCOME_OF_STAGE = {"equal": "correct", "different": "wrong_result", "no_sql": "no_sql", "gold_failed": "gold_error",
                        "pred_failed": "error", "timeout": "error", "too_large": "error",
                        "refuted": "wrong_result", "unverified": "wrong_result"}  # issue 30: a refuted match's own stage


def old_score(v: sqlgrade.Verdict, shaping: dict) -> float:
    outcome = OLD_OUTCOME_OF_STAGE[v.stage]
    if v.execution_match and v.verify and v.verify.get("status") == "refuted":
        outcome = "wrong_result"
    return float(shaping.get(outcome, 1.0 if outcome == "correct" else 0.0))


def sql_corpus() -> list:
    pieces = ["SELECT", "a", "FROM", "t", "ORDER", "order", "BY", "by", "(", ")", "'x'", "'it''s'", '"order"', "`by`",
              "[order by]", "-- c\n", "/* c */", ",", "_x", "x1", "\u00a0", "\u3000", "\u2026", "é", "ß", "٣", "\t", "\n"]
    rng = random.Random(20)
    out = ["SELECT a FROM t ORDER BY a", "SELECT a FROM (SELECT a FROM t ORDER BY a)", "SELECT rank() OVER (ORDER BY a)",
           "ORDER/**/BY", "order--x\nby", "ORDER\u00a0BY", "ORDER\u2026BY", "x\u2026ORDER BY", "ORDERé BY", "ORDER BY_",
           "(ORDER BY", ") ORDER BY", "'unclosed ORDER BY", "ORDER\x00BY", "ORDER \ufeffBY"]
    for _ in range(3000):
        out.append(" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 9))))
    root = data_dir()
    for rel in ("spider/dev_gold.sql", "bird/minidev/mini_dev_sqlite_gold.sql", "bird/minidev/mini_dev_postgresql_gold.sql"):
        path = os.path.join(root, rel)
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                out.extend(line.split("\t")[0] for line in f if line.strip())
    return out


@needs_native
def test_top_level_order_by_is_the_old_rule_on_a_corpus():
    from sqlgrade import _native
    corpus = sql_corpus()
    differ = [s for s in corpus if _native.has_top_level_order_by(s) != old_has_top_level_order_by(s)]
    assert differ == []
    assert sum(old_has_top_level_order_by(s) for s in corpus) > 50  # the corpus exercises both answers
    assert not hasattr(sqlgrade.shaping, "has_top_level_order_by")  # the Python copy is gone


SHAPING = dict(correct_score=2.0, wrong_result_score=0.1, error_score=-0.5, no_sql_score=-1.0, gold_error_score=0.25)
CASES = [  # (output, kwargs): one per outcome, alternatives, the order rule, verify
    ("```sql\nSELECT name FROM item WHERE qty >= 2\n```", {}),
    ("```sql\nSELECT name FROM item\n```", {}),
    ("```sql\nSELECT nme FROM item\n```", {}),
    ("no idea", {}),
    ("SELECT 1", {"extract": False, "gold_sql": "SELECT nope"}),
    ("SELECT name FROM item WHERE price > 5", {"extract": False,
                                               "gold_sql": ["SELECT name FROM item WHERE qty = 0", " ",
                                                            "SELECT name FROM item WHERE price > 5"]}),
    ("SELECT name FROM item ORDER BY price", {"extract": False, "gold_sql": "SELECT name FROM item ORDER BY price DESC",
                                              "order": "top_level"}),
    ("SELECT name FROM item ORDER BY price", {"extract": False, "order": "top_level",
                                              "gold_sql": ["SELECT name FROM item WHERE qty > 100 ORDER BY price DESC",
                                                           "SELECT name FROM item"]}),
    ("SELECT name FROM item WHERE price > 1", {"extract": False, "gold_sql": "SELECT name FROM item",
                                               "benchmark": "bird", "verify": True}),
]


def run_cases(dbs: Dbs) -> list:
    out = []
    for text, kw in CASES:
        kw = dict(kw)
        gold = kw.pop("gold_sql", GOLD)
        db = dbs.bird_shop if kw.get("benchmark") == "bird" else dbs.shop
        v = sqlgrade.verdict(text, db=db, gold_sql=gold, **SHAPING, **kw)
        out.append((v.reward, v.score, v.outcome, v.stage, v.raw.get("gold_index"), v.raw.get("gold_sql")))
        assert v.score == old_score(v, {k[:-6]: x for k, x in SHAPING.items()}), (text, kw, v)
    return out


@pytest.mark.parametrize("backend", ["server", "native"])
def test_library_scores_are_the_old_pythons(backend, fixture_server, dbs: Dbs, settings):
    if backend == "native":
        pytest.importorskip("sqlgrade._native")
    settings(server=fixture_server.url if backend == "server" else None, backend=backend, shaping={})
    got = run_cases(dbs)
    assert [g[2] for g in got[:5]] == ["correct", "wrong_result", "error", "no_sql", "gold_error"]
    assert [g[1] for g in got[:5]] == [2.0, 0.1, -0.5, -1.0, 0.25]
    # alternatives: the second non-blank gold matched and is the one reported
    assert got[5][0] == 1.0 and got[5][4] == 1 and got[5][5] == "SELECT name FROM item WHERE price > 5"
    assert got[6][0] == 0.0 and got[7][0] == 1.0  # the order rule, per gold
    assert got[8][:3] == (0.0, 0.1, "wrong_result")  # a refuted match scores as a wrong result


@needs_native
def test_native_and_server_agree_on_the_rules(fixture_server, dbs: Dbs, settings):
    settings(server=fixture_server.url, backend="server", shaping={})
    served = run_cases(dbs)
    settings(server=None, backend="native", shaping={})
    assert run_cases(dbs) == served


def test_batches_use_the_same_rules(srv, dbs: Dbs):
    # (shaping keywords, `order` among them, are arguments of the whole batch: those cases stay out)
    items = [{"output": text, **kw} for text, kw in CASES if "benchmark" not in kw and "order" not in kw]
    for it in items:
        it.setdefault("gold_sql", GOLD)
    one_by_one = [sqlgrade.verdict(it.pop("output"), db=dbs.shop, **it, **SHAPING)
                  for it in [dict(i) for i in items]]
    batch = sqlgrade.verdicts(items, db=dbs.shop, **SHAPING)
    assert [(v.reward, v.score, v.outcome) for v in batch] == [(v.reward, v.score, v.outcome) for v in one_by_one]


def test_shaping_values_are_checked_by_the_table_of_bounds(srv, dbs: Dbs):
    for bad in (float("nan"), float("inf"), 1e7, "high", True):
        with pytest.raises(sqlgrade.InputError, match=r"^shaping\.wrong_result: must be a number in \[-1000000, 1000000\]"):
            sqlgrade.verdict("x", db=dbs.shop, gold_sql=GOLD, wrong_result_score=bad)
    with pytest.raises(sqlgrade.InputError, match=r'`order` must be "benchmark" or "top_level"; got "always"'):
        sqlgrade.verdict("x", db=dbs.shop, gold_sql=GOLD, order="always")


def test_a_reply_without_score_names_an_older_server():
    # A server from before the rules moved into the library ignores `shaping`: say so, never score 0.
    old_reply = {"reward": 1.0, "execution_match": True, "stage": "equal", "failure_reason": "none"}
    with pytest.raises(sqlgrade.errors.BackendUnsupported, match="server is older than this package"):
        sqlgrade.results.Verdict.from_reply(old_reply)
