"""``sqlgrade.spider.evaluate(compat="both")`` = ``sqlgrade spider --compat both``: one pass of the library's
``spider::evaluate_both`` (docs/comparing-runs.md §8), whose two runs are each what the separate
``compat="spider"`` / ``compat="test-suite"`` call returns, whose text is the CLI's stdout byte for
byte, whose records are the CLI's NAME.spider.json / NAME.test-suite.json, and whose statement counts
are the CLI's stderr line — on a fixture and, with SQLGRADE_DATA, on real Spider dev predictions.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any, Dict, List

import pytest

import sqlgrade
from conftest import build_db, needs_native
from sqlgrade import spider
from test_evaluate import (DATA, cli, input_error_of, needs_cli, needs_data, spider_fx,  # noqa: F401 (a fixture)
                           stable, tables_json, tree_hash)

pytestmark = [needs_native, needs_cli]

MODES = (("spider", "spider"), ("test-suite", "test_suite"))  # compat value, SpiderBoth attribute


def cli_counts(stderr: str) -> Dict[str, int]:
    """The numbers of the CLI's `--compat both: N statements executed (...)` line."""
    m = re.search(r"--compat both: (\d+) statements executed \(spider pass (\d+); test-suite pass (\d+) more, "
                  r"(\d+) results borrowed from the spider pass\)", stderr)
    assert m, stderr
    return dict(zip(("executed", "spider", "test_suite", "lent"), map(int, m.groups())))


def assert_same_run(got: spider.SpiderRun, want: spider.SpiderRun) -> None:
    assert got.text == want.text
    assert got.summary == want.summary
    assert got.items == want.items
    assert got.warnings == want.warnings
    assert got.n_interactions == want.n_interactions
    assert stable(got.to_dict()) == stable(want.to_dict())


def check_both(kw: Dict[str, Any], flags: List[str], tmp_path, expect_exec: bool) -> spider.SpiderBoth:
    """evaluate(compat="both", **kw) against the two separate calls and `sqlgrade spider --compat both`."""
    both = spider.evaluate(**kw, compat="both")
    assert isinstance(both, spider.SpiderBoth)
    for compat, attr in MODES:
        assert_same_run(getattr(both, attr), spider.evaluate(**kw, compat=compat))
    rec = str(tmp_path / "run.json")
    rc, stdout, err = cli("spider", *flags, "--compat", "both", "--json", rec)
    assert rc == 0, err
    assert str(both) == both.text == stdout
    assert both.text == ("==> --compat spider <==\n" + both.spider.text + "\n==> --compat test-suite <==\n"
                         + both.test_suite.text)
    d = both.to_dict()
    for compat, attr in MODES:
        with open(str(tmp_path / f"run.{compat}.json")) as f:
            assert stable(d[compat]) == stable(json.load(f))
        assert d[compat]["options"]["compat"] == compat
    if expect_exec:
        assert both.statements == cli_counts(err)
        assert both.statements["executed"] == both.statements["spider"] + both.statements["test_suite"]
    else:  # --etype match executes nothing; the CLI prints no count line
        assert "statements executed" not in err
        assert both.statements == {"executed": 0, "spider": 0, "test_suite": 0, "lent": 0}
    for w in both.spider.warnings + both.test_suite.warnings:
        assert both.warnings.count(w) == 1 and w in err  # each once, as the CLI prints them
    return both


@pytest.mark.parametrize("etype", ["exec", "all", "match"])
def test_both_equals_separate_runs_and_cli(spider_fx, tmp_path, etype):
    fx = spider_fx
    before = tree_hash(fx["root"])
    kw = dict(gold=fx["gold"], pred=fx["pred"], db_dir=fx["db"], table=fx["table"], etype=etype)
    flags = ["--gold", fx["gold"], "--pred", fx["pred"], "--db", fx["db"], "--table", fx["table"], "--etype", etype]
    both = check_both(kw, flags, tmp_path, expect_exec=etype != "match")
    assert tree_hash(fx["root"]) == before  # nothing written beside the inputs
    assert len(both.spider.items) == len(both.test_suite.items) == 4
    if etype != "match":
        # The fixture tells the modes apart: "SELECT nosuch ..." does not parse with the Spider grammar
        # (spider: not executed, exec 0) and the test-suite pass also runs on school_variant.sqlite.
        assert [i["exec"] for i in both.test_suite.items] == [1, 1, 0, 0]
        assert both.statements["lent"] > 0


@pytest.mark.parametrize("shard", ["1/2", "2/2"])
def test_both_with_a_shard(spider_fx, tmp_path, shard):
    """--shard works with --compat both in the CLI: so does shard= with compat="both" (each mode's record
    names the shard, and holds only its questions)."""
    fx = spider_fx
    kw = dict(gold=fx["gold"], pred=fx["pred"], db_dir=fx["db"], table=fx["table"], etype="all", shard=shard)
    flags = ["--gold", fx["gold"], "--pred", fx["pred"], "--db", fx["db"], "--table", fx["table"], "--etype", "all",
             "--shard", shard]
    both = check_both(kw, flags, tmp_path, expect_exec=True)
    for compat, _ in MODES:
        assert both.to_dict()[compat]["shard"]["count"] == 2
    assert 0 < len(both.spider.items) < 4


def test_both_lends_results(tmp_path):
    """The pass executes each distinct (database file, SQL) of both modes once. Counted by hand (one
    database, every statement succeeds, as SpiderBothModes.EachDistinctStatementRunsOnce in C++):
    compat="spider" alone runs g1, g2, g3 and p2 (p1 and p3 are g1's and g3's text): 4; compat="test-suite"
    alone runs g1, g2, g3' ("SELECT  city ..." without DISTINCT) and p2 (p1, p3: their gold's text, which
    reads the gold's result): 4. Two calls: 8 statements; one pass: 5, the test-suite pass running g3'
    only and borrowing g1, g2 and p2."""
    build_db("school.sql", str(tmp_path / "database" / "school" / "school.sqlite"))
    with open(tmp_path / "tables.json", "w") as f:
        json.dump(tables_json({"school": str(tmp_path / "database" / "school" / "school.sqlite")}), f)
    (tmp_path / "gold.sql").write_text("SELECT count(*) FROM student\tschool\n"
                                       "SELECT name FROM student WHERE age > 21\tschool\n"
                                       "SELECT DISTINCT city FROM student\tschool\n")
    (tmp_path / "pred.txt").write_text("SELECT count(*) FROM student\n"
                                       "SELECT name FROM student WHERE age >= 22\n"
                                       "SELECT DISTINCT city FROM student\n")
    kw = dict(gold=str(tmp_path / "gold.sql"), pred=str(tmp_path / "pred.txt"), db_dir=str(tmp_path / "database"),
              table=str(tmp_path / "tables.json"))
    flags = ["--gold", kw["gold"], "--pred", kw["pred"], "--db", kw["db_dir"], "--table", kw["table"]]
    out = tmp_path / "out"
    out.mkdir()
    both = check_both(kw, flags, out, expect_exec=True)
    assert both.statements == {"executed": 5, "spider": 4, "test_suite": 1, "lent": 3}
    assert [i["exec"] for i in both.spider.items] == [i["exec"] for i in both.test_suite.items] == [1, 1, 1]


def test_both_input_errors_match_cli(spider_fx, tmp_path):
    """Bad inputs with compat="both" raise InputError with the CLI's --compat both message."""
    fx = spider_fx
    base = ["--gold", fx["gold"], "--pred", fx["pred"], "--db", fx["db"]]
    kw = dict(gold=fx["gold"], pred=fx["pred"], db_dir=fx["db"])
    cases = [([], {}),  # no --table: the spider pass needs it
             (["--table", fx["table"], "--shard", "1/2", "--shard-by", "table"], dict(table=fx["table"], shard="1/2",
                                                                                      shard_by="table")),
             *((["--table", fx["table"], "--shard", bad], dict(table=fx["table"], shard=bad))
               for bad in ("3/2", "0/2", "1/0", "1/2000000", "1-2")),
             (["--table", fx["table"], "--etype", "x"], dict(table=fx["table"], etype="x"))]
    for flags, extra in cases:
        msg = input_error_of(["spider", *base, "--compat", "both", *flags])
        with pytest.raises(sqlgrade.InputError) as e:
            spider.evaluate(**kw, **extra, compat="both")
        assert str(e.value) == msg, flags
    msg = input_error_of(["spider", *base, "--compat", "Both"])  # only "both" is both; the rest: parse_compat's
    with pytest.raises(sqlgrade.InputError) as e:
        spider.evaluate(**kw, compat="Both")
    assert str(e.value) == msg and "--compat" in msg


def test_both_pickles(spider_fx):
    import pickle
    fx = spider_fx
    both = spider.evaluate(gold=fx["gold"], pred=fx["pred"], db_dir=fx["db"], table=fx["table"], compat="both")
    back = pickle.loads(pickle.dumps(both))
    assert back.text == both.text and back.to_dict() == both.to_dict() and back.statements == both.statements
    assert back.test_suite.summary == both.test_suite.summary


@needs_data
def test_real_spider_dev_both(tmp_path):
    """DAIL-SQL (GPT-4) on Spider dev, --etype all: each mode equals its separate call, the official
    scripts' outputs (expected/spider_all, expected/testsuite_all) and the CLI's --compat both."""
    sp = os.path.join(DATA, "spider")
    before = tree_hash(os.path.join(sp, "database"))
    kw = dict(gold=os.path.join(sp, "dev_gold.sql"), pred=os.path.join(DATA, "preds", "spider_dev", "dail-sql_gpt4",
                                                                       "pred.txt"),
              db_dir=os.path.join(sp, "database"), table=os.path.join(sp, "tables.json"), etype="all")
    flags = ["--gold", kw["gold"], "--pred", kw["pred"], "--db", kw["db_dir"], "--table", kw["table"], "--etype", "all"]
    both = check_both(kw, flags, tmp_path, expect_exec=True)
    for compat, attr in (("spider_all", "spider"), ("testsuite_all", "test_suite")):
        with open(os.path.join(DATA, "expected", compat, "dail-sql_gpt4.txt")) as f:
            assert getattr(both, attr).text == f.read()
    assert both.spider.summary["all"]["count"] == 1034
    assert both.statements["lent"] > 1000  # most test-suite reads are the spider pass's
    assert tree_hash(os.path.join(sp, "database")) == before
