"""Whole-benchmark evaluation with `verify=` and `name=`: parity with the CLI's --verify/--name (text,
record, the search's report), the preconditions and options the CLI refuses, and counterexample files.
Split from test_evaluate.py (its fixtures and helpers)."""

from __future__ import annotations

import json
import os

import pytest

import sqlgrade
from conftest import needs_native
from sqlgrade import bird, spider, spider2
from test_evaluate import (bird_fx, cli, input_error_of, needs_cli, spider2_fx,  # noqa: F401 - fixtures
                           spider_fx, stable)

pytestmark = needs_native

def _without_search_times(text: str) -> str:
    """The verification lines without the one that prints measured seconds (`  search time ... s CPU ...`)."""
    return "\n".join(line for line in text.splitlines() if not line.startswith(("  budget ", "  search time ")))


@needs_cli
@pytest.mark.parametrize("bench", ["spider", "bird", "spider2"])
def test_name_and_verify_parity_with_cli(spider_fx, bird_fx, spider2_fx, tmp_path, bench):
    vopt = {"budget": 60, "candidates": 40, "seed": 3}
    flags = ["--verify", "--verify-budget", "60", "--verify-candidates", "40", "--seed", "3", "--name", "system A"]
    if bench == "spider":
        fx = spider_fx
        run = spider.evaluate(gold=fx["gold"], pred=fx["pred"], db_dir=fx["db"], name="system A", verify=vopt)
        args = ["spider", "--gold", fx["gold"], "--pred", fx["pred"], "--db", fx["db"]]
    elif bench == "bird":
        fx = bird_fx
        run = bird.evaluate(pred=fx["pred"], gold=fx["gold"], db_dir=fx["db"], diff_json=fx["diff"], name="system A",
                            verify=vopt)
        args = ["bird", "--predicted_sql_path", fx["pred"], "--ground_truth_path", fx["gold"], "--db_root_path", fx["db"],
                "--diff_json_path", fx["diff"]]
    else:
        fx = spider2_fx
        run = spider2.evaluate(result_dir=fx["preds"], gold_dir=fx["gold"], errors_log=None, name="system A", verify=vopt)
        args = ["spider2", "--result_dir", fx["preds"], "--gold_dir", fx["gold"], "--errors_log", ""]
    out = str(tmp_path / "cli.json")
    rc, stdout, err = cli(*args, *flags, "--json", out)
    assert rc == 0, err
    assert "verified execution accuracy" in str(run)
    assert _without_search_times(str(run)) == _without_search_times(stdout)
    with open(out) as f:
        record = json.load(f)
    assert stable(run.to_dict()) == stable(record)
    assert record["system"] == "system A" and run.to_dict()["system"] == "system A"
    summary = run.to_dict()["summary"]["verify"]
    assert run.verify is not None and run.verify["system"] == (fx["preds"] if bench == "spider2" else fx["pred"])
    assert (run.verify["ex"], run.verify["refuted"]) == (summary["ex"], summary["refuted"])
    assert run.verify["refuted"] == sum(1 for i in run.verify["instances"] if i["status"] == "refuted")
    # without verify: no verification anywhere, and the name still reaches the record
    plain = {"spider": lambda: spider.evaluate(gold=fx["gold"], pred=fx["pred"], db_dir=fx["db"], name="B"),
             "bird": lambda: bird.evaluate(pred=fx["pred"], gold=fx["gold"], db_dir=fx["db"], name="B"),
             "spider2": lambda: spider2.evaluate(result_dir=fx["preds"], gold_dir=fx["gold"], errors_log=None,
                                                 name="B")}[bench]()
    assert plain.verify is None and "verify" not in plain.to_dict()["summary"]
    assert plain.to_dict()["system"] == "B"


@needs_cli
def test_verify_preconditions_and_options_match_cli(spider_fx, bird_fx, tmp_path):
    fx = bird_fx
    msg = input_error_of(["bird", "--predicted_sql_path", fx["pred"], "--ground_truth_path", fx["gold"],
                          "--db_root_path", fx["db"], "--metric", "soft-f1", "--verify"])
    with pytest.raises(sqlgrade.InputError) as e:
        bird.evaluate(pred=fx["pred"], gold=fx["gold"], db_dir=fx["db"], metric="soft-f1", verify=True)
    assert str(e.value) == msg == "--verify: needs --metric ex"
    sp = spider_fx
    msg = input_error_of(["spider", "--gold", sp["gold"], "--pred", sp["pred"], "--db", sp["db"], "--table", sp["table"],
                          "--compat", "both", "--verify"])
    with pytest.raises(sqlgrade.InputError) as e:
        spider.evaluate(gold=sp["gold"], pred=sp["pred"], db_dir=sp["db"], table=sp["table"], compat="both", verify=True)
    assert str(e.value) == msg
    with pytest.raises(sqlgrade.InputError, match="verify.budget"):
        bird.evaluate(pred=fx["pred"], gold=fx["gold"], db_dir=fx["db"], verify={"budget": -1})
    with pytest.raises(sqlgrade.InputError, match="unknown option"):
        bird.evaluate(pred=fx["pred"], gold=fx["gold"], db_dir=fx["db"], verify={"rounds": 2})
    # counterexamples: written under the folder, as --counterexamples writes them. `price > 3` matches the
    # gold's `price > 5` on the fixture (no price in between) and a price of 4 refutes it.
    pred = tmp_path / "pred.json"
    pred.write_text(json.dumps({"0": "SELECT name FROM item WHERE price > 3\t----- bird -----\tshop",
                                "1": "SELECT count(id) FROM sale\t----- bird -----\tshop",
                                "2": "SELECT 1\t----- bird -----\tshop"}))
    cex = tmp_path / "cex"
    run = bird.evaluate(pred=pred, gold=fx["gold"], db_dir=fx["db"],
                        verify={"budget": 60, "candidates": 40, "counterexamples": cex})
    assert (run.verify["ex"], run.verify["refuted"]) == (2, 1)
    written = [i["counterexample_file"] for i in run.verify["instances"] if i.get("counterexample_file")]
    assert len(written) == 1 and os.path.exists(written[0]) and written[0].startswith(str(cex))
    rc, stdout, err = cli("bird", "--predicted_sql_path", str(pred), "--ground_truth_path", fx["gold"],
                          "--db_root_path", fx["db"], "--verify", "--verify-budget", "60", "--verify-candidates", "40",
                          "--counterexamples", str(tmp_path / "cex_cli"))
    assert rc == 0, err
    assert _without_search_times(str(run)) == _without_search_times(stdout)
    # a counterexamples folder that cannot be written (under a regular file: refused for root too) is the
    # CLI's one line, exit 2, and the same message raised here, before anything runs (issue 30 item 11)
    (tmp_path / "file.txt").write_text("not a folder\n")
    bad = str(tmp_path / "file.txt" / "sub")
    msg = input_error_of(["bird", "--predicted_sql_path", str(pred), "--ground_truth_path", fx["gold"],
                          "--db_root_path", fx["db"], "--verify", "--counterexamples", bad])
    with pytest.raises(sqlgrade.InputError) as e:
        bird.evaluate(pred=pred, gold=fx["gold"], db_dir=fx["db"], verify={"counterexamples": bad})
    assert str(e.value) == msg and bad in msg and "cannot write counterexamples" in msg
