"""lm-evaluation-harness, for real (the pinned lm-eval of python/requirements/dev.lock; it installs
without torch): sqlgrade's task files (sqlgrade/lm_eval/tasks/) loaded by lm-eval's TaskManager and
run by its own evaluator (simple_evaluate) on small real Spider, BIRD and Spider 2.0-Lite data, with a
scripted model (lm-eval's DummyLM with its generations replaced: the gold SQL for some documents,
wrong or no SQL for the others); `exec_acc` is asserted. The CLI (`lm_eval --model dummy`) runs the
same task files: every generation is "lol", so exec_acc is 0.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

from _hosts import REPO, clean_env, report, run

pytest.importorskip("lm_eval", reason="lm-eval not installed: run scripts/setup.sh (python/requirements/dev.lock)")

from lm_eval import simple_evaluate  # noqa: E402
from lm_eval.models.dummy import DummyLM  # noqa: E402
from lm_eval.tasks import TaskManager  # noqa: E402

import sqlgrade.lm_eval as sl  # noqa: E402
from conftest import data_dir, needs_native  # noqa: E402
from sqlgrade._datasets import rows  # noqa: E402

DATA = data_dir()
pytestmark = [needs_native,
              pytest.mark.needs_data("spider")]
N = 6


class ScriptedLM(DummyLM):
    """lm-eval's DummyLM whose generations come from {prompt: answer}."""

    def __init__(self, answers):
        super().__init__()
        self.answers = answers

    def generate_until(self, requests, disable_tqdm: bool = False):
        return [self.answers[r.arguments[0]] for r in requests]


def test_simple_evaluate_scores_the_three_benchmarks():
    answers, expected = {}, {}
    for bench, folder, task in (("spider", "spider", "sqlgrade_spider"), ("bird", "bird", "sqlgrade_bird"),
                                ("spider2", "spider2lite", "sqlgrade_spider2_lite")):
        rs = rows(bench, os.path.join(DATA, folder), N)
        for i, r in enumerate(rs):
            good = i % 3 == 0
            answers[r["input"]] = f"```sql\n{r['gold_sql']}\n```" if good else ("SELECT 'not the answer' AS x" if i % 3 == 1 else "no idea")
        expected[task] = sum(1 for i in range(len(rs)) if i % 3 == 0) / len(rs)
    # the task files' custom_dataset receives the TaskManager's metadata (the CLI's --metadata)
    tm = TaskManager(include_path=sl.TASKS_DIR, metadata={"data_dir": DATA, "limit": N})
    out = simple_evaluate(model=ScriptedLM(answers), tasks=list(expected), task_manager=tm, log_samples=False)
    got = {t: out["results"][t]["exec_acc,none"] for t in expected}
    assert got == pytest.approx(expected)
    report("lm-eval simple_evaluate", **{t: f"{v:.3f}" for t, v in got.items()})


def test_lm_eval_cli_with_the_dummy_model(tmp_path):
    cli = os.path.join(os.path.dirname(sys.executable), "lm_eval")
    r, dt = run([cli, "--model", "dummy", "--tasks", "sqlgrade_bird", "--include_path", sl.TASKS_DIR,
                 "--metadata", json.dumps({"data_dir": DATA, "limit": 4}), "--output_path", str(tmp_path / "out")],
                env=clean_env(PYTHONPATH=os.path.join(REPO, "python")), cwd=str(tmp_path), timeout=600)
    found = [os.path.join(d, f) for d, _, fs in os.walk(tmp_path / "out") for f in fs if f.startswith("results")]
    assert found, r.stdout + r.stderr
    with open(found[0]) as f:
        res = json.load(f)["results"]["sqlgrade_bird"]
    assert res["exec_acc,none"] == 0.0  # "lol" holds no SQL
    report("lm-eval CLI (dummy model, 4 BIRD docs)", seconds=f"{dt:.1f}")


def test_process_results_hook_shape():
    """lm-eval calls process_results(doc, results) with the doc as the dataset row and the list of
    generations; a bad generation is 0.0, never an exception."""
    doc = dict(rows("bird", os.path.join(DATA, "bird"), 1)[0])
    assert sl.process_results(doc, [f"```sql\n{doc['gold_sql']}\n```"]) == {"exec_acc": 1.0}
    assert sl.process_results(doc, ["```sql\nDROP TABLE x\n```"]) == {"exec_acc": 0.0}
    assert sl.process_results(doc, []) == {"exec_acc": 0.0}
