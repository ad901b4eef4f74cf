"""Python's evaluate() on the real benchmark data (SQLGRADE_DATA): the same numbers, records and files as
the CLI on Spider dev, BIRD Mini-Dev, the Spider 2.0-Lite example submission and the UDA Player dataset.
Also UDA's run/eval_query parity on a small fixture. Split from test_evaluate.py (its helpers)."""

from __future__ import annotations

import json
import os
import shutil

import pytest

import sqlgrade
from conftest import needs_native
from sqlgrade import bird, spider, spider2, uda
from test_evaluate import DATA, cli, input_error_of, needs_cli, needs_data, stable, tree_hash, uda_fx  # noqa: F401 - uda_fx is a fixture

pytestmark = needs_native

@needs_cli
def test_uda_run_parity_with_cli(uda_fx, tmp_path):
    fx = uda_fx
    before = tree_hash(fx["dataset"])
    cli_results = str(tmp_path / "cli_results")
    shutil.copytree(fx["results"], cli_results)
    run = uda.evaluate(dataset_dir=fx["dataset"], results=fx["results"], list_errors=True)
    rc, stdout, err = cli("uda", "run", "--dataset-dir", fx["dataset"], "--results", cli_results, "--list-errors")
    assert rc == 0, err
    assert str(run) == stdout
    assert tree_hash(fx["dataset"]) == before
    s = run.summary
    assert s["missing_results"] == 1 and s["result_errors"] == 1 and s["scored"] == s["statements"] - 2
    assert len(run.instances) == s["statements"]
    # to_dict() agrees with the summary.json the CLI wrote for the same dataset.
    with open(os.path.join(cli_results, "Shop", "summary.json")) as f:
        written = json.load(f)
    flat = json.dumps(written)
    for q in run.datasets[0]["queries"]:
        assert q["path"] in flat or q["file_stem"] in flat
    assert run.to_dict()["summary"] == s
    # The same files as the CLI: acc.json of every scored statement.
    for q in run.items:
        acc = os.path.join(fx["results"], q["path"], "acc_result", "acc.json")
        if q["status"] == "ok":
            with open(acc) as a, open(os.path.join(cli_results, q["path"], "acc_result", "acc.json")) as b:
                assert stable(json.load(a)) == stable(json.load(b))
            assert q["macro_f1"] == pytest.approx(1.0)


@needs_cli
def test_uda_eval_query_parity_with_cli(uda_fx, tmp_path):
    fx = uda_fx
    sql_json = sorted(os.path.join(d, "sql.json") for d, _, fs in os.walk(fx["results"])
                      if "sql.json" in fs and "result.csv" in fs)[-1]
    out_py, out_cli = str(tmp_path / "py"), str(tmp_path / "cli")
    rep = uda.eval_query(dataset_dir=fx["dataset"], sql_file=sql_json, output_dir=out_py)
    rc, stdout, err = cli("uda", "eval", "--dataset-dir", fx["dataset"], "--sql-file", sql_json, "--output-dir", out_cli)
    assert rc == 0, err
    assert rep.ok and rep.text == stdout
    assert stable(rep.to_dict()) == stable(json.loads(stdout))


@needs_cli
def test_uda_input_error_matches_cli(tmp_path):
    missing = str(tmp_path / "NoSuchDataset")
    msg = input_error_of(["uda", "run", "--dataset-dir", missing, "--results", str(tmp_path / "r")])
    with pytest.raises(sqlgrade.InputError) as e:
        uda.evaluate(dataset_dir=missing, results=tmp_path / "r")
    assert str(e.value) == msg


# ---- the real data (SQLGRADE_DATA) ----


@needs_data
@needs_cli
def test_real_spider_dev(tmp_path):
    before = tree_hash(os.path.join(DATA, "spider", "database"))
    args = dict(gold=os.path.join(DATA, "spider", "dev_gold.sql"),
                pred=os.path.join(DATA, "preds", "spider_dev", "dail-sql_gpt4", "pred.txt"),
                db_dir=os.path.join(DATA, "spider", "database"), table=os.path.join(DATA, "spider", "tables.json"))
    run = spider.evaluate(**args, etype="all")
    out = str(tmp_path / "cli.json")
    rc, stdout, err = cli("spider", "--gold", args["gold"], "--pred", args["pred"], "--db", args["db_dir"],
                          "--table", args["table"], "--etype", "all", "--json", out)
    assert rc == 0, err
    assert str(run) == stdout
    with open(os.path.join(DATA, "expected", "testsuite_all", "dail-sql_gpt4.txt")) as f:
        assert f.read() == stdout  # and the official test-suite script printed the same
    with open(out) as f:
        assert stable(run.to_dict()) == stable(json.load(f))
    assert run.summary["all"]["count"] == 1034
    assert tree_hash(os.path.join(DATA, "spider", "database")) == before


@needs_data
@needs_cli
def test_real_bird_minidev(tmp_path):
    name = "official_baselines_sql_output_kg__predict_mini_dev_gpt-4_sqlite"
    args = dict(pred=os.path.join(DATA, "preds", "bird_minidev", "official_baselines_sql_output_kg",
                                  "predict_mini_dev_gpt-4_sqlite.json"),
                gold=os.path.join(DATA, "bird", "minidev", "mini_dev_sqlite_gold.sql"),
                db_dir=os.path.join(DATA, "bird", "dev_databases"),
                diff_json=os.path.join(DATA, "expected", "bird", "inputs", "minidev.mini_dev_sqlite.jsonl"))
    run = bird.evaluate(**args)
    out = str(tmp_path / "cli.json")
    rc, stdout, err = cli("bird", "--predicted_sql_path", args["pred"], "--ground_truth_path", args["gold"],
                          "--db_root_path", args["db_dir"], "--diff_json_path", args["diff_json"], "--json", out)
    assert rc == 0, err
    assert str(run) == stdout
    with open(os.path.join(DATA, "expected", "bird_minidev_ex", name + ".txt")) as f:
        assert f.read() == stdout  # and the official script printed the same
    with open(out) as f:
        assert stable(run.to_dict()) == stable(json.load(f))
    assert run.summary["total"]["count"] == 500


@needs_data
@needs_cli
def test_real_spider2_example_submission(tmp_path):
    src = os.path.join(DATA, "preds", "spider2lite_local", "xlang_example_submission", "sql_mode")
    preds = str(tmp_path / "sql_mode")
    shutil.copytree(src, preds)  # the CLI writes <result_dir>_csv and -ids.csv beside it
    gold = os.path.join(DATA, "spider2lite", "gold")
    run = spider2.evaluate(result_dir=preds, gold_dir=gold)
    out = str(tmp_path / "cli.json")
    rc, stdout, err = cli("spider2", "--result_dir", preds, "--gold_dir", gold, "--json", out)
    assert rc == 0, err
    assert str(run) == stdout
    if run.instances:
        with open(out) as f:
            assert stable(run.to_dict()) == stable(json.load(f))


@needs_data
@needs_cli
def test_real_uda_player(tmp_path):
    dataset = os.path.join(DATA, "uda-bench", "Query", "Player")
    src = os.path.join(DATA, "preds", "udabench", "_reference_evaluator_runs_Player")
    py_res, cli_res = str(tmp_path / "py"), str(tmp_path / "cli")
    shutil.copytree(src, py_res)
    shutil.copytree(src, cli_res)
    before = tree_hash(dataset)
    run = uda.evaluate(dataset_dir=dataset, results=py_res)
    rc, stdout, err = cli("uda", "run", "--dataset-dir", dataset, "--results", cli_res)
    assert rc == 0, err
    assert str(run) == stdout
    assert run.summary["scored"] > 0
    assert tree_hash(dataset) == before


# ---- name= and verify= (issue 30, item 10): the CLI's --name and --verify ----
