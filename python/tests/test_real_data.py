"""The real benchmark data under SQLGRADE_DATA (skipped when absent): the Python API reproduces what
the official scripts printed (expected/), through `sqlgrade serve`, and leaves the databases as they were.
"""

from __future__ import annotations

import concurrent.futures
import glob
import json
import os

import pytest

import sqlgrade
from conftest import data_dir, file_hashes
from sqlgrade import compat

DATA = data_dir()
pytestmark = pytest.mark.needs_data("expected", "spider", "bird", "spider2lite")


@pytest.fixture(scope="module")
def real_server(start_server):
    return start_server("--db-dir", os.path.join(DATA, "spider2lite", "databases"),
                        "--spider-db-dir", os.path.join(DATA, "spider", "database"),
                        "--bird-db-dir", os.path.join(DATA, "bird", "dev_databases"),
                        "--max-concurrency", "2", "--timeout", "30")


@pytest.fixture
def real(real_server, settings):
    settings(server=real_server.url, backend="server", shaping={}, db_root=None, benchmark="spider2")
    return real_server


def printed_exec_all(path: str) -> float:
    """The `all` column of the EXECUTION ACCURACY table test-suite's evaluation.py printed."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    i = next(k for k, line in enumerate(lines) if "EXECUTION ACCURACY" in line)
    row = lines[i + 1].split()
    assert row[0] == "execution"
    return float(row[-1])


def test_spider_dev_eval_exec_match_equals_official_test_suite(real):
    """DAIL-SQL (GPT-4) on Spider dev: eval_exec_match over the 1034 pairs, as evaluation.py calls it
    (test-suite @e97acc5, `--etype all`, no plug_value, DISTINCT removed), gives the printed accuracy."""
    spider = os.path.join(DATA, "spider")
    with open(os.path.join(spider, "dev_gold.sql"), encoding="utf-8") as f:
        gold = [line.strip().split("\t") for line in f if line.strip()]
    with open(os.path.join(DATA, "preds", "spider_dev", "dail-sql_gpt4", "pred.txt"), encoding="utf-8") as f:
        pred = [line.strip().split("\t")[0] for line in f if line.strip()]
    assert len(gold) == len(pred) == 1034
    dbs = sorted(glob.glob(os.path.join(spider, "database", "*", "*.sqlite")))
    before = file_hashes(dbs)

    def one(k: int) -> int:
        g_str, db_id = gold[k]
        db = os.path.join(spider, "database", db_id, db_id + ".sqlite")
        return compat.eval_exec_match(db=db, p_str=pred[k], g_str=g_str, plug_value=False, keep_distinct=False,
                                      progress_bar_for_each_datapoint=False)

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        scores = list(pool.map(one, range(len(gold))))
    expected = printed_exec_all(os.path.join(DATA, "expected", "testsuite_all", "dail-sql_gpt4.txt"))
    assert round(sum(scores) / len(scores), 3) == expected, (sum(scores), expected)
    assert file_hashes(dbs) == before


def test_bird_minidev_verdicts_equal_official_per_instance(real):
    """GPT-4o CoT on BIRD mini-dev: sqlgrade.verdicts(benchmark="bird") per question equals the
    official evaluation_ex.py per-instance result (bird-bench/mini_dev @4d970a9)."""
    bird = os.path.join(DATA, "bird")
    with open(os.path.join(DATA, "preds", "bird_minidev", "official_baselines_TA_output",
                           "predict_mini_dev_gpt-4-o_cot_SQLite.json"), encoding="utf-8") as f:
        preds = json.load(f)
    with open(os.path.join(bird, "minidev", "mini_dev_sqlite_gold.sql"), encoding="utf-8") as f:
        gold = [line.strip().split("\t") for line in f if line.strip()]
    with open(os.path.join(DATA, "expected", "bird_minidev_ex",
                           "official_baselines_TA_output__predict_mini_dev_gpt-4-o_cot_SQLite.per_instance.json"),
              encoding="utf-8") as f:
        official = {r["sql_idx"]: r["res"] for r in json.load(f)["results"]}
    items = []
    for k in range(len(gold)):
        sql, db_id = preds[str(k)].split("\t----- bird -----\t")
        items.append({"output": sql, "db": db_id, "gold_sql": gold[k][0]})
    dbs = sorted(glob.glob(os.path.join(bird, "dev_databases", "*", "*.sqlite")))
    before = file_hashes(dbs)
    vs = sqlgrade.verdicts(items, benchmark="bird", extract=False)
    mine = {k: int(v.reward) for k, v in enumerate(vs)}
    assert mine == official
    assert sum(mine.values()) == 344  # EX 68.80 on 500
    assert file_hashes(dbs) == before


def test_spider2_public_gold_sql_grades_itself_correct(real):
    """The 24 public Spider 2.0-Lite local gold queries, each graded against itself on the local
    databases (spider2 comparison, official sql-mode value model): all correct, databases unchanged."""
    s2 = os.path.join(DATA, "spider2lite")
    with open(os.path.join(s2, "spider2-lite.local.jsonl"), encoding="utf-8") as f:
        db_of = {t["instance_id"]: t["db"] for t in map(json.loads, f)}
    items = []
    for path in sorted(glob.glob(os.path.join(s2, "gold", "sql", "*.sql"))):
        iid = os.path.basename(path)[:-4]
        with open(path, encoding="utf-8") as f:
            sql = f.read()
        items.append({"output": sql, "db": db_of[iid], "gold_sql": sql, "instance_id": iid})
    assert len(items) == 24
    dbs = sorted(glob.glob(os.path.join(s2, "databases", "*.sqlite")))
    before = file_hashes(dbs)
    vs = sqlgrade.verdicts(items, extract=False)
    assert [(i["instance_id"], v.failure_reason) for i, v in zip(items, vs) if v.reward != 1.0] == []
    assert file_hashes(dbs) == before
