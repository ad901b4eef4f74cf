"""sqlgrade.verdict / verdicts / async forms / execute against a real `sqlgrade serve` (server backend)."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

import sqlgrade
from conftest import Dbs, file_hashes

GOLD = "SELECT name FROM item WHERE qty > 1"  # apple, fig, kiwi


def fenced(sql: str) -> str:
    return f"Let me think.\n```sql\n{sql}\n```\nDone."


def test_outcomes_and_fields(srv, dbs: Dbs):
    cases = {
        "correct": (fenced("SELECT name FROM item WHERE qty >= 2"), "none", True),
        "wrong_result": (fenced("SELECT name FROM item"), "result_mismatch", True),  # ran, other rows (issue 30)
        "error": (fenced("SELECT nme FROM item"), "execution_error", False),
        "no_sql": ("I do not know.", "no_sql_extracted", False),
    }
    for outcome, (text, reason, executed) in cases.items():
        v = sqlgrade.verdict(text, db=dbs.shop, gold_sql=GOLD)
        assert (v.outcome, v.failure_reason, v.executed) == (outcome, reason, executed), (outcome, v)
        assert v.reward == (1.0 if outcome == "correct" else 0.0)
        assert v.execution_match is (outcome == "correct")
        assert v.benchmark == "spider2"
        assert v.timings["request_s"] > 0
        assert v.raw["failure_reason"] == reason
    v = sqlgrade.verdict(fenced("SELECT name FROM item"), db=dbs.shop, gold_sql=GOLD)
    assert v.extracted_sql == "SELECT name FROM item"
    assert v.failure_detail == "result differs from the gold"
    json.dumps(v.to_dict())  # JSON-able
    gold_err = sqlgrade.verdict(fenced("SELECT 1"), db=dbs.shop, gold_sql="SELECT nope FROM item")
    assert (gold_err.outcome, gold_err.failure_reason) == ("gold_error", "gold_execution_error")


def test_timeout_and_refused_statements_leave_databases_unchanged(srv, dbs: Dbs, tmp_path):
    before = file_hashes(dbs.all_files())
    attached = tmp_path / "attached.sqlite"
    hostile = ["DROP TABLE item", "DELETE FROM item", "UPDATE item SET qty = 0", "INSERT INTO item VALUES (9,'x',1,1)",
               f"ATTACH DATABASE '{attached}' AS x", "PRAGMA writable_schema = 1", "VACUUM",
               "SELECT 1; DROP TABLE sale", "WITH d AS (DELETE FROM sale RETURNING *) SELECT * FROM d",
               "CREATE TABLE t(x)"]
    for db, bench in ((dbs.shop, "spider2"), (dbs.bird_shop, "bird"), (dbs.school, "spider")):
        for sql in hostile:
            v = sqlgrade.verdict(sql, db=db, gold_sql="SELECT 1", benchmark=bench, extract=False)
            if bench == "spider" and sql.startswith("SELECT 1;"):
                # test-suite quirk (docs/spider-exec.md): only the first statement is executed
                assert v.reward == 1.0 and v.extracted_sql == sql, v
                continue
            assert v.reward == 0.0 and v.outcome == "error", (bench, sql, v)
    assert not attached.exists()
    runaway = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"
    v = sqlgrade.verdict(runaway, db=dbs.shop, gold_sql="SELECT 1", extract=False)
    assert (v.failure_reason, v.outcome) == ("timeout", "error")
    assert v.timings["request_s"] < 10  # the server's --timeout 2 stopped it
    assert file_hashes(dbs.all_files()) == before


def test_verbatim_sql_and_extraction_options(srv, dbs: Dbs):
    sql = "SELECT name\n  FROM item WHERE qty > 1 -- comment\n;"
    v = sqlgrade.verdict(sql, db=dbs.shop, gold_sql=GOLD, extract=False)
    assert v.reward == 1.0 and v.extracted_sql == sql.strip()
    tagged = "<answer>SELECT name FROM item WHERE qty > 1</answer>"
    assert sqlgrade.verdict(tagged, db=dbs.shop, gold_sql=GOLD).reward == 1.0
    nemo = sqlgrade.verdict(tagged, db=dbs.shop, gold_sql=GOLD, extract={"tags_and_json": False})
    assert nemo.reward == 0.0 and "</answer>" in (nemo.extracted_sql or "")  # NeMo's raw-text quirk
    no_raw = sqlgrade.verdict("we select nothing", db=dbs.shop, gold_sql=GOLD, extract={"raw_fallback": False})
    assert no_raw.outcome == "no_sql"
    with pytest.raises(sqlgrade.InputError, match="extract"):
        sqlgrade.verdict(tagged, db=dbs.shop, gold_sql=GOLD, extract={"nope": True})


def test_reasoning_is_not_graded(srv, dbs: Dbs, settings):
    """Issue 21: only the text after the last </think> is graded; an unclosed <think> is no SQL;
    extract={"after_think": False} (per call or in the settings) reads the whole text as before."""
    thought = f"<think>{fenced(GOLD)}</think> I could not find the answer."
    v = sqlgrade.verdict(thought, db=dbs.shop, gold_sql=GOLD)
    assert (v.reward, v.outcome, v.extracted_sql) == (0.0, "no_sql", None), v
    v = sqlgrade.verdict("<think>The query is SELECT name FROM item WHERE qty > 1", db=dbs.shop, gold_sql=GOLD)
    assert v.outcome == "no_sql" and v.raw["extraction_source"] == "unclosed_think", v
    answer = f"Checking qty...\n</think>\n{fenced(GOLD)}"  # Qwen3: the template opened the block
    assert sqlgrade.verdict(answer, db=dbs.shop, gold_sql=GOLD).reward == 1.0
    assert sqlgrade.verdict(thought, db=dbs.shop, gold_sql=GOLD, extract={"after_think": False}).reward == 1.0
    settings(extract={"after_think": False})
    assert sqlgrade.verdict(thought, db=dbs.shop, gold_sql=GOLD).reward == 1.0


def test_benchmarks(srv, dbs: Dbs):
    # Spider test-suite: equal on school.sqlite, different on school_variant.sqlite -> 0.
    gold = "SELECT name FROM student WHERE city = 'Oslo'"
    v = sqlgrade.verdict("SELECT name FROM student WHERE age = 20", db=dbs.school, gold_sql=gold, benchmark="spider",
                         extract=False)
    assert v.reward == 0.0 and "school_variant.sqlite" in v.failure_detail and v.executed
    folder = os.path.dirname(dbs.school)
    assert sqlgrade.verdict("SELECT name FROM student WHERE city='Oslo'", db=folder, gold_sql=gold,
                            benchmark="test-suite", extract=False).reward == 1.0
    # Test-suite: DISTINCT removed, bag semantics; order matters only with ORDER BY in the gold.
    assert sqlgrade.verdict("SELECT DISTINCT city FROM student", db=dbs.school, gold_sql="SELECT city FROM student",
                            benchmark="spider", extract=False).reward == 1.0
    ordered = "SELECT name FROM student ORDER BY age"
    assert sqlgrade.verdict("SELECT name FROM student ORDER BY age DESC", db=dbs.school, gold_sql=ordered,
                            benchmark="spider", extract=False).reward == 0.0
    # BIRD: set semantics (duplicates and row order do not matter), column order does.
    dup = "SELECT name FROM item UNION ALL SELECT name FROM item"
    assert sqlgrade.verdict(dup, db=dbs.bird_shop, gold_sql="SELECT name FROM item", benchmark="bird",
                            extract=False).reward == 1.0
    assert sqlgrade.verdict("SELECT qty, name FROM item", db=dbs.bird_shop, gold_sql="SELECT name, qty FROM item",
                            benchmark="bird", extract=False).reward == 0.0
    # Spider 2.0: gold_result instead of gold_sql; condition_cols picks the gold columns that must appear.
    v = sqlgrade.verdict("SELECT name, price FROM item WHERE qty > 1", db=dbs.shop, extract=False,
                         gold_result=[[["apple"], ["fig"], ["kiwi"]]], condition_cols=[[0]])
    assert v.reward == 1.0, v


def test_shaping_options_and_defaults(srv, dbs: Dbs, settings):
    texts = {"correct": fenced("SELECT name FROM item WHERE qty > 1"), "wrong_result": fenced("SELECT name FROM item"),
             "error": fenced("SELECT nme FROM item"), "no_sql": "no idea"}
    opts = dict(correct_score=2.0, wrong_result_score=0.1, error_score=-0.5, no_sql_score=-1.0)
    want = {"correct": 2.0, "wrong_result": 0.1, "error": -0.5, "no_sql": -1.0}
    for outcome, text in texts.items():
        v = sqlgrade.verdict(text, db=dbs.shop, gold_sql=GOLD, **opts)
        assert (v.outcome, v.score) == (outcome, want[outcome])
        assert v.reward == (1.0 if outcome == "correct" else 0.0)  # the official verdict is untouched
    settings(wrong_result_score=0.25)
    assert sqlgrade.verdict(texts["wrong_result"], db=dbs.shop, gold_sql=GOLD).score == 0.25
    assert sqlgrade.verdict(texts["wrong_result"], db=dbs.shop, gold_sql=GOLD, wrong_result_score=0.5).score == 0.5
    assert sqlgrade.config().shaping.wrong_result == 0.25
    with pytest.raises(TypeError):
        sqlgrade.verdict(texts["correct"], db=dbs.shop, gold_sql=GOLD, wrong_score=1)
    with pytest.raises(sqlgrade.InputError, match="order"):
        sqlgrade.verdict(texts["correct"], db=dbs.shop, gold_sql=GOLD, order="always")


def test_order_top_level(srv, dbs: Dbs):
    gold = "SELECT name FROM item ORDER BY price DESC"
    reversed_order = "SELECT name FROM item ORDER BY price"
    assert sqlgrade.verdict(reversed_order, db=dbs.shop, gold_sql=gold, extract=False).reward == 1.0  # spider2 default
    assert sqlgrade.verdict(reversed_order, db=dbs.shop, gold_sql=gold, extract=False, order="top_level").reward == 0.0
    nested = "SELECT name FROM (SELECT name, price FROM item ORDER BY price DESC)"
    assert sqlgrade.verdict(reversed_order, db=dbs.shop, gold_sql=nested, extract=False,
                            order="top_level").reward == 1.0
    # Each alternative gold decides for itself: the first has a top-level ORDER BY, the second none.
    golds = ["SELECT name FROM item WHERE qty > 100 ORDER BY price DESC", "SELECT name FROM item"]
    assert sqlgrade.verdict(reversed_order, db=dbs.shop, gold_sql=golds, extract=False, order="top_level").reward == 1.0
    vs = sqlgrade.verdicts([{"output": reversed_order, "gold_sql": golds}], db=dbs.shop, extract=False, order="top_level")
    assert vs[0].reward == 1.0
    # An explicit ignore_order wins over the shaping rule.
    assert sqlgrade.verdict(reversed_order, db=dbs.shop, gold_sql=gold, extract=False, order="top_level",
                            ignore_order=True).reward == 1.0


def test_alternative_golds(srv, dbs: Dbs):
    pred = fenced("SELECT name FROM item WHERE price > 5")
    golds = ["SELECT name FROM item WHERE qty = 0", "SELECT name FROM item WHERE price > 5"]
    assert sqlgrade.verdict(pred, db=dbs.shop, gold_sql=golds[0]).reward == 0.0
    assert sqlgrade.verdict(pred, db=dbs.shop, gold_sql=golds).reward == 1.0
    vs = sqlgrade.verdicts([{"output": pred, "gold_sql": golds}, {"output": pred, "gold_sql": golds[:1]},
                            {"output": pred, "gold_sql": golds[::-1]}], db=dbs.shop)
    assert [v.reward for v in vs] == [1.0, 0.0, 1.0]


def test_verdicts_batch_order_threads_and_errors(srv, dbs: Dbs):
    preds = [fenced(f"SELECT name FROM item WHERE qty > {k % 4}") for k in range(40)]
    items = [{"output": p} for p in preds]
    for threads in (None, 1, 8):
        vs = sqlgrade.verdicts(items, db=dbs.shop, gold_sql=GOLD, threads=threads)
        assert [v.reward for v in vs] == [1.0 if k % 4 < 2 else 0.0 for k in range(40)]  # qty > 0 is qty > 1 here
    mixed = [{"output": "SELECT 1", "extract": False, "db": dbs.bird_shop, "benchmark": "bird", "gold_sql": "SELECT 1"},
             {"output": fenced(GOLD), "db": dbs.shop, "gold_sql": GOLD}]
    assert [v.benchmark for v in sqlgrade.verdicts(mixed)] == ["bird", "spider2"]
    assert sqlgrade.verdicts([], db=dbs.shop, gold_sql=GOLD) == []
    bad = items[:3] + [{"output": "x", "db": os.path.join(dbs.root, "missing.sqlite")}] + items[3:]
    with pytest.raises(sqlgrade.InputError, match=r"^request 3: .*missing\.sqlite: no such database file"):
        sqlgrade.verdicts(bad, db=dbs.shop, gold_sql=GOLD)
    with pytest.raises(sqlgrade.InputError, match=r"^request 1: unknown db_id 'nosuch'"):
        sqlgrade.verdicts([{"output": "x"}, {"output": "x", "db": "nosuch"}], db=dbs.shop, gold_sql=GOLD)
    with pytest.raises(TypeError, match="request 0"):
        sqlgrade.verdicts([{"output": "x", "colour": 1}], db=dbs.shop, gold_sql=GOLD)


def test_async_forms(srv, dbs: Dbs):
    async def main():
        one = await sqlgrade.averdict(fenced(GOLD), db=dbs.shop, gold_sql=GOLD)
        many = await asyncio.gather(*[sqlgrade.averdict(fenced("SELECT name FROM item"), db=dbs.shop, gold_sql=GOLD)
                                      for _ in range(8)])
        batch = await sqlgrade.averdicts([{"output": fenced(GOLD)}] * 5, db=dbs.shop, gold_sql=GOLD)
        return one, many, batch

    one, many, batch = asyncio.run(main())
    assert one.reward == 1.0 and [v.reward for v in many] == [0.0] * 8 and [v.reward for v in batch] == [1.0] * 5


def test_bad_input_raises_input_error(srv, dbs: Dbs):
    bad = [
        (dict(db=os.path.join(dbs.root, "nope.sqlite"), gold_sql=GOLD), "no such database file"),
        (dict(db="nosuch", gold_sql=GOLD), "unknown db_id 'nosuch'"),
        (dict(db=dbs.shop), "needs `gold_sql` or `gold_result`"),
        (dict(db=dbs.shop, gold_sql=GOLD, benchmark="wikisql"), "unknown benchmark"),
        (dict(db=dbs.shop, gold_sql=42), "gold_sql must be"),
        (dict(db=dbs.shop, gold_sql=GOLD, timeout=-1), "timeout"),
        (dict(db=dbs.shop, gold_result="rows"), "gold_result must be"),
        (dict(db=dbs.shop, gold_sql=GOLD, ignore_order="yes"), "ignore_order"),
        (dict(db=dbs.shop, gold_result=[["not a row"]]), "holds a row that is not a list"),
        (dict(db=None, gold_sql=GOLD), "db must be"),
    ]
    for kwargs, message in bad:
        with pytest.raises(sqlgrade.InputError) as e:
            sqlgrade.verdict(fenced(GOLD), **kwargs)
        assert message in str(e.value), (kwargs, str(e.value))
        assert "\n" not in str(e.value)  # one line
        assert isinstance(e.value, ValueError)
    with pytest.raises(sqlgrade.InputError, match="model output must be a string"):
        sqlgrade.verdict(123, db=dbs.shop, gold_sql=GOLD)  # type: ignore[arg-type]


def test_execute_through_the_server(srv, dbs: Dbs):
    r = sqlgrade.execute(dbs.shop, "SELECT name, qty, x'00ff' FROM item ORDER BY id", max_rows=2)
    assert r.ok and r.columns == ("name", "qty", "x'00ff'") and r.truncated
    assert r.rows == (("apple", 3, b"\x00\xff"), ("pear", 0, b"\x00\xff"))
    assert sqlgrade.execute(dbs.shop, "DROP TABLE item").status == "error"
    with pytest.raises(sqlgrade.InputError, match="max_rows"):
        sqlgrade.execute(dbs.shop, "SELECT 1", max_rows=0)
    with pytest.raises(sqlgrade.InputError, match="no such database file"):
        sqlgrade.execute(os.path.join(dbs.root, "x.sqlite"), "SELECT 1")


def test_a_batch_resolves_each_database_once(dbs: Dbs, monkeypatch):
    """verdicts() resolves each database of a batch once (the stats were ~20% of a 2,048-rollout
    batch's Python time); the references, and so the verdicts, are those of one-by-one resolution."""
    from sqlgrade import _dbref
    calls = []
    real = _dbref._resolve
    monkeypatch.setattr(_dbref, "_resolve", lambda *a: calls.append(a) or real(*a))
    memo: dict = {}
    refs = [_dbref.resolve_db(dbs.bird_shop, "bird", None, memo) for _ in range(50)]
    assert len(calls) == 1
    assert refs == [_dbref.resolve_db(dbs.bird_shop, "bird")] * 50
    with pytest.raises(sqlgrade.InputError, match="no such database file"):  # failures are not kept
        _dbref.resolve_db(dbs.bird_shop + ".missing.sqlite", "bird", None, memo)
    assert len(memo) == 1
