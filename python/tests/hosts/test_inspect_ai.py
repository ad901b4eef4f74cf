"""inspect_ai, for real (the pinned inspect-ai of python/requirements/dev.lock): the sqlgrade tasks on
small real Spider and BIRD data, evaluated offline by inspect's own `eval` with its mock model, the
scores asserted; then `inspect score --scorer sqlgrade/sqlgrade` (the scorer found through the
package's `inspect_ai` entry point) re-scores the log the same way.

The mock model answers from a script keyed by the prompt: the gold SQL for even samples, a wrong
query, a failing query or no SQL for the others, and for one sample the gold only inside <think> (no
answer after it: the reasoning rule makes it 0). Its outputs carry token usage, so inspect does not
count tokens (that would download a tokenizer: no network here).
"""

from __future__ import annotations

import os
import sys

import pytest

from _hosts import REPO, clean_env, report, run

inspect_ai = pytest.importorskip("inspect_ai", reason="inspect-ai not installed: run scripts/setup.sh (python/requirements/dev.lock)")

from inspect_ai import eval as inspect_eval  # noqa: E402
from inspect_ai.log import read_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, ModelUsage, get_model  # noqa: E402

from conftest import data_dir, needs_native  # noqa: E402
from sqlgrade._datasets import rows  # noqa: E402
from sqlgrade.results import STAGES  # noqa: E402
from sqlgrade.inspect_ai import bird, spider  # noqa: E402

DATA = data_dir()
pytestmark = [needs_native,
              pytest.mark.skipif(not os.path.isdir(os.path.join(DATA, "spider")), reason=f"no benchmark data in {DATA}")]
N = 8


def _script(benchmark: str, folder: str):
    """{prompt: answer} and the expected verdicts (1 for the gold answers)."""
    answers, expected = {}, {}
    for i, r in enumerate(rows(benchmark, os.path.join(DATA, folder), N)):
        kind = ("gold", "wrong", "error", "none", "gold", "think", "gold", "wrong")[i]
        text = {"gold": f"Sure.\n```sql\n{r['gold_sql']}\n```",
                "wrong": "```sql\nSELECT 'not the answer' AS x\n```",
                "error": "```sql\nSELECT no_such_column FROM no_such_table\n```",
                "none": "I cannot answer that.",
                "think": f"<think>```sql\n{r['gold_sql']}\n```</think> I am not sure, sorry."}[kind]
        answers[r["input"]] = text
        expected[r["id"]] = 1.0 if kind == "gold" else 0.0
    return answers, expected


def _mock(answers):
    def generate(input, tools, tool_choice, config):  # noqa: A002 (inspect's signature)
        prompt = input[-1].text
        out = ModelOutput.from_content("mockllm/model", answers[prompt])
        out.usage = ModelUsage(input_tokens=len(prompt) // 4, output_tokens=16, total_tokens=len(prompt) // 4 + 16)
        return out
    return get_model("mockllm/model", custom_outputs=generate)


@pytest.mark.parametrize("benchmark,folder,task", [("spider", "spider", spider), ("bird", "bird", bird)])
def test_inspect_eval_with_the_mock_model(benchmark, folder, task, tmp_path):
    answers, expected = _script(benchmark, folder)
    logs = inspect_eval(task(data_dir=os.path.join(DATA, folder), limit=N), model=_mock(answers),
                        log_dir=str(tmp_path), display="none")
    log = logs[0]
    assert log.status == "success", log.error
    got = {s.id: (1.0 if s.scores["sqlgrade"].value == "C" else 0.0) for s in log.samples}
    assert got == expected
    metrics = log.results.scores[0].metrics
    assert metrics["accuracy"].value == pytest.approx(sum(expected.values()) / N)
    reasons = {s.id: s.scores["sqlgrade"].metadata["failure_reason"] for s in log.samples}
    # wrong: ran and returned other rows (result_mismatch, issue 30); error: did not run
    assert sorted(set(reasons.values())) == ["execution_error", "no_sql_extracted", "none", "result_mismatch"]
    wrong_id = list(expected)[1]
    assert reasons[wrong_id] == "result_mismatch"
    assert all(s.scores["sqlgrade"].metadata["stage"] in STAGES for s in log.samples)
    think_id = list(expected)[5]
    assert reasons[think_id] == "no_sql_extracted"
    assert all(s.scores["sqlgrade"].answer for s in log.samples if expected[s.id] == 1.0)

    # `inspect score`: the scorer by its registered name, through the entry point of the installed
    # sqlgrade (scripts/setup.sh installs the wheel into this venv)
    inspect_cli = os.path.join(os.path.dirname(sys.executable), "inspect")
    out = str(tmp_path / "rescored.eval")
    r, dt = run([inspect_cli, "score", "--scorer", "sqlgrade/sqlgrade", "--action", "overwrite", "--output-file", out,
                 log.location], env=clean_env(INSPECT_DISPLAY="none"), cwd=str(tmp_path), timeout=600)
    rescored = read_eval_log(out)
    assert rescored.results.scores[0].metrics["accuracy"].value == pytest.approx(metrics["accuracy"].value)
    assert {s.id: (1.0 if s.scores["sqlgrade"].value == "C" else 0.0) for s in rescored.samples} == expected
    report(f"inspect_ai {benchmark}", samples=N, accuracy=metrics["accuracy"].value, inspect_score_s=f"{dt:.1f}")


def test_scorer_is_registered_through_the_entry_point(tmp_path):
    """The installed package (scripts/setup.sh installs the wheel of this tree into the venv; outside
    the checkout, without PYTHONPATH) registers `sqlgrade/sqlgrade` and the tasks by its entry point."""
    code = ("from inspect_ai._util.entrypoints import ensure_entry_points; ensure_entry_points('sqlgrade');"
            "from inspect_ai._util.registry import registry_lookup;"
            "print(registry_lookup('scorer', 'sqlgrade/sqlgrade') is not None, registry_lookup('task', 'sqlgrade/bird') is not None)")
    r, _ = run([sys.executable, "-c", code], env=clean_env(), cwd=str(tmp_path))
    assert r.stdout.split() == ["True", "True"], r.stdout + r.stderr
