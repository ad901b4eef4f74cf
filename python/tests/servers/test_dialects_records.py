"""BIRD on a server keeps what a SQLite run gives (issue 33, item 2): run records, --shard and merge,
diff and report, several systems in one pass — against the official outputs in
expected/bird_minidev_dialects/. (sqlgrade.ray's batch grading is `--shard i/n` + merge of these same
records on each node: docs/ray.md.)"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from _servers import my, pg  # noqa: F401 (session fixtures: the throwaway servers)
from conftest import data_dir, sqlgrade_bin

PREDS = "preds/bird_minidev/official_baselines_sql_output_kg"
EXPECTED = "expected/bird_minidev_dialects"


def _pred(model: str, dialect: str) -> str:
    suffix = "mysqljson" if dialect == "mysql" and model.startswith("meta-llama") else dialect
    return os.path.join(data_dir(), PREDS, f"predict_mini_dev_{model}_{suffix}.json")


def _official(metric: str, model: str, dialect: str) -> str:
    stem = os.path.basename(_pred(model, dialect))[:-5]
    with open(os.path.join(data_dir(), EXPECTED, metric, f"official_baselines_sql_output_kg__{stem}.txt"),
              encoding="utf-8") as f:
        return f.read()


def _bird(dsn: str, dialect: str, *args: str) -> subprocess.CompletedProcess:
    d = data_dir()
    cmd = [sqlgrade_bin(), "bird", "--sql_dialect", "PostgreSQL" if dialect == "postgresql" else "MySQL", "--dsn", dsn,
           "--gold", os.path.join(d, f"bird/minidev/mini_dev_{dialect}_gold.sql"),
           "--diff_json_path", os.path.join(d, f"bird/minidev/mini_dev_{dialect}.json"), "--num_cpus", "2",
           "--no-progress", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr
    return p


def _load(path: str) -> dict:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _scores(record: dict) -> dict:
    return {str(i["id"]): json.dumps(i.get("scores", i.get("score")), sort_keys=True) for i in record["instances"]}


def _score_line(metric: str, model: str) -> str:
    """The official PostgreSQL table's score line (`Soft-F1   60.19 ...`)."""
    return next(l for l in _official(metric, model, "postgresql").splitlines() if l.startswith("Soft-F1 "))


@pytest.mark.parametrize("which", ["postgresql", "mysql"])
def test_shards_merge_into_the_official_table(which, request, tmp_path):
    srv = request.getfixturevalue("pg" if which == "postgresql" else "my")
    pred = _pred("gpt-4", which)
    full = _bird(srv["reader"], which, "--pred", pred, "--metric", "ex", "--json", str(tmp_path / "full.json"))
    assert full.stdout == _official("ex", "gpt-4", which)
    parts = []
    for i in (1, 2):
        part = tmp_path / f"part{i}.json"
        _bird(srv["reader"], which, "--pred", pred, "--metric", "ex", "--shard", f"{i}/2", "--json", str(part))
        parts.append(str(part))
    sizes = [len(_load(p)["instances"]) for p in parts]
    assert sum(sizes) == 500 and min(sizes) > 100  # both shards graded a real share
    m = subprocess.run([sqlgrade_bin(), "merge", *parts, "-o", str(tmp_path / "merged.json"), "--quiet"],
                       capture_output=True, text=True, timeout=300)
    assert m.returncode == 0, m.stderr
    assert m.stdout == _official("ex", "gpt-4", which)  # merge prints the whole run's table
    merged, whole = _load(str(tmp_path / "merged.json")), _load(str(tmp_path / "full.json"))
    assert _scores(merged) == _scores(whole)
    assert merged["options"] == whole["options"]
    engine = " ".join(whole["engines"].values())
    assert ("PostgreSQL" in engine) if which == "postgresql" else ("MySQL" in engine), whole["engines"]


def test_several_systems_diff_and_report(pg, tmp_path):
    """Two systems in one pass (one record each), their diff and the HTML report, as for SQLite."""
    preds = [_pred("gpt-4", "postgresql"), _pred("gpt-35-turbo", "postgresql")]
    out = _bird(pg["reader"], "postgresql", "--pred", preds[0], "--pred", preds[1], "--name", "gpt4", "--name", "gpt35",
                "--metric", "soft-f1", "--json-dir", str(tmp_path))
    # Each system's official Soft-F1 score line is in the combined output.
    for model in ("gpt-4", "gpt-35-turbo"):
        assert _score_line("f1", model) in out.stdout
    a, b = str(tmp_path / "gpt4.json"), str(tmp_path / "gpt35.json")
    d = subprocess.run([sqlgrade_bin(), "diff", b, a, "--json", "--bootstrap", "200"], capture_output=True, text=True,
                       timeout=300)
    assert d.returncode == 0, d.stderr
    cmp = json.loads(d.stdout)
    assert cmp["aligned"] == 500 and cmp["a"]["label"] == "gpt35" and cmp["b"]["label"] == "gpt4"
    f1 = next(m for m in cmp["overall"] if m["metric"] == "soft_f1")
    # The paired means are the official totals (the last column of each official Soft-F1 line).
    totals = [_score_line("f1", m).split()[-1] for m in ("gpt-35-turbo", "gpt-4")]
    assert [f"{100 * f1['a']:.2f}", f"{100 * f1['b']:.2f}"] == totals
    assert f1["bootstrap"]["lo"] > 0  # gpt-4 is better on PostgreSQL, beyond the noise
    r = subprocess.run([sqlgrade_bin(), "report", b, a, "-o", str(tmp_path / "report.html")], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "gpt4" in html and "gpt35" in html and "PostgreSQL" in html


def test_python_evaluate_refuses_verify_on_a_server(pg):
    """sqlgrade.bird.evaluate reaches the CLI's rule (verify::check_verifiable): --verify is SQLite-only."""
    import sqlgrade
    d = data_dir()
    with pytest.raises(sqlgrade.InputError, match="counterexample search builds SQLite databases"):
        sqlgrade.bird.evaluate(pred=_pred("gpt-4", "postgresql"), gold=os.path.join(d, "bird/minidev/mini_dev_postgresql_gold.sql"),
                               sql_dialect="PostgreSQL", dsn=pg["reader"], metric="ex", verify=True)
