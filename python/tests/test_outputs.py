"""No output over an input, from Python (issue 31): the Ray drivers (`python -m sqlgrade.ray grade` and
`serve`, `grade` and `grade_warm` in-process) and the library calls behind the Python API (the UDA
judge's log and answer cache) make the library's one check (core/fs.hpp check_outputs_spare_inputs,
through sqlgrade._native.check_outputs) before any work: an output that would replace an input —
through another path too ("./", "..", a hard link) — is refused with the CLI's message (exit 2; in
Python InputError). No cluster is needed: the drivers check before they connect (to a closed port
here, so that a driver that did not check fails differently). Every test fails on c44d4a9, where
`grade --json pred.txt -- spider ... --pred pred.txt` graded and then replaced the prediction."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Dict, List

import pytest

import sqlgrade
from conftest import PY_ROOT, REPO, build_db, file_hashes, needs_native

pytestmark = needs_native

NOBODY = "127.0.0.1:9"  # discard: nothing answers (a driver that does not check first fails to connect)


@pytest.fixture()
def spider_files(tmp_path) -> Dict[str, str]:
    db = str(tmp_path / "database")
    sqlite = build_db("school.sql", os.path.join(db, "school", "school.sqlite"))
    gold, pred = str(tmp_path / "gold.sql"), str(tmp_path / "pred.txt")
    with open(gold, "w", encoding="utf-8") as f:
        f.write("SELECT count(*) FROM student\tschool\n")
    with open(pred, "w", encoding="utf-8") as f:
        f.write("SELECT count(*) FROM student\n")
    os.link(gold, str(tmp_path / "gold-link.sql"))
    return {"db": db, "sqlite": sqlite, "gold": gold, "pred": pred, "root": str(tmp_path)}


def _command(f: Dict[str, str]) -> List[str]:
    return ["spider", "--gold", f["gold"], "--pred", f["pred"], "--db", f["db"], "--etype", "exec"]


def _ray(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=PY_ROOT)
    return subprocess.run([sys.executable, "-m", "sqlgrade.ray", *args], capture_output=True, text=True, timeout=120,
                          env=env, cwd=REPO)


def _targets(f: Dict[str, str]) -> Dict[str, str]:
    return {"prediction": f["pred"], "gold": f["gold"], "database": f["sqlite"],
            "database through ..": os.path.join(f["db"], "school", "..", "school", "school.sqlite"),
            "prediction through ./": os.path.join(f["root"], ".", "pred.txt"),
            "gold through a hard link": os.path.join(f["root"], "gold-link.sql")}


@pytest.mark.parametrize("target", ["prediction", "gold", "database", "database through ..", "prediction through ./",
                                    "gold through a hard link"])
def test_ray_grade_refuses_a_json_over_an_input_before_it_connects(spider_files, target) -> None:
    f = spider_files
    out = _targets(f)[target]
    before = file_hashes([f["pred"], f["gold"], f["sqlite"]])
    p = _ray("grade", "--address", NOBODY, "--connect-timeout", "1", "--json", out, "--", *_command(f))
    assert p.returncode == 2, p.stderr
    assert p.stderr.startswith(f"sqlgrade.ray: {out}: the --json output would replace the input "), p.stderr
    assert p.stderr.count("\n") == 1, p.stderr  # one line
    assert file_hashes([f["pred"], f["gold"], f["sqlite"]]) == before


def test_ray_drivers_in_process_and_serve_refuse_too(spider_files) -> None:
    from sqlgrade.ray import grade, grade_warm

    f = spider_files
    for call in (grade, grade_warm):
        with pytest.raises(sqlgrade.InputError, match=r"the --json output would replace the input .*\(--pred\)"):
            call(_command(f), json_out=f["pred"], address=NOBODY, connect_timeout_s=1)
    # `serve --urls-file`: not over a database the servers read.
    p = _ray("serve", "--address", NOBODY, "--connect-timeout", "1", "--urls-file", f["sqlite"], "--",
             "--spider-db-dir", f["db"])
    assert p.returncode == 2 and "the --urls-file output would replace the input" in p.stderr, p.stderr
    # Elsewhere the check passes and the drivers go on to connect (and fail: nobody answers).
    p = _ray("grade", "--address", NOBODY, "--connect-timeout", "1", "--json", os.path.join(f["root"], "run.json"),
             "--", *_command(f))
    assert p.returncode == 2 and "cannot reach the Ray cluster" in p.stderr, p.stderr


@pytest.fixture()
def shop(tmp_path) -> Dict[str, str]:
    dataset = str(tmp_path / "Shop")
    shutil.copytree(os.path.join(REPO, "tests", "fixtures", "uda", "Shop"), dataset)
    return {"dataset": dataset, "attrs": os.path.join(dataset, "Shop_attributes.json"),
            "sql": os.path.join(dataset, "Select", "select_queries.sql"), "root": str(tmp_path)}


def test_uda_judge_log_and_llm_cache_never_replace_an_input(shop) -> None:
    """`judge_log` and `llm_cache` (the LLM judge's answer cache, an SQLite file it writes) of
    sqlgrade.uda.run / eval_query: before, only the CLI checked --judge-log, and nothing the cache."""
    s = shop
    before = file_hashes([s["attrs"], s["sql"]])
    results = os.path.join(s["root"], "results")
    with pytest.raises(sqlgrade.InputError, match=r"the --judge-log output would replace the input"):
        sqlgrade.uda.run(dataset_dir=s["dataset"], results=results, judge_log=s["attrs"])
    with pytest.raises(sqlgrade.InputError, match=r"the --llm-cache output would replace the input"):
        sqlgrade.uda.run(dataset_dir=s["dataset"], results=results, judge="llm", llm_base_url="http://" + NOBODY,
                         llm_model="m", llm_cache=s["sql"])
    result = os.path.join(s["root"], "result.csv")
    with open(result, "w", encoding="utf-8") as f:
        f.write("id,name,price,stock\n1,Widget,2.5,10\n")
    with pytest.raises(sqlgrade.InputError, match=r"the --judge-log output would replace the input"):
        sqlgrade.uda.eval_query(dataset_dir=s["dataset"], sql_file=s["sql"], query_id=1, result_csv=result,
                                output_dir=os.path.join(s["root"], "out"), judge_log=s["sql"])
    assert file_hashes([s["attrs"], s["sql"]]) == before
    assert not os.path.exists(os.path.join(s["root"], "out"))
    # Elsewhere: written.
    rep = sqlgrade.uda.eval_query(dataset_dir=s["dataset"], sql_file=s["sql"], query_id=1, result_csv=result,
                                  output_dir=os.path.join(s["root"], "out"), judge_log=os.path.join(s["root"], "j.jsonl"))
    assert rep.ok
