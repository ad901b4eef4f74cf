"""The notebook user (issue 34 item 8): run objects everywhere a run record file goes, one instance
shape, ``run.to_pandas()``, and the example notebook executed with a real kernel.

- ``sqlgrade.runs.diff/report/merge`` given the objects ``evaluate()`` returns give what they give for
  the record files the CLI writes for the same runs (diff text and JSON but the file names, the report's
  page but its file lines, the merged record);
- ``run.instances`` is the run record's instances on every benchmark's run object (Spider, BIRD,
  Spider 2.0-Lite, UDA, a merged run, a loaded record), and ``run.items`` the benchmark's own dicts;
- ``to_pandas()``: one row per instance, the flat columns, scores as floats (NaN = not graded), and a
  clear ImportError when pandas is missing;
- examples/notebook/runs-in-a-notebook.ipynb runs top to bottom in a python3 kernel (nbclient, pinned in
  dev.lock) and its outputs hold the numbers graded here.
"""
from __future__ import annotations

import json
import math
import os
import re
import sys

import pytest

import sqlgrade
from conftest import REPO, needs_native
from sqlgrade import bird, runs, spider, spider2, uda
from sqlgrade.errors import InputError
from test_evaluate import bird_fx, spider2_fx, spider_fx, uda_fx  # noqa: F401  (fixtures)

pytestmark = needs_native

NOTEBOOK = os.path.join(REPO, "examples", "notebook", "runs-in-a-notebook.ipynb")


def _two_spider_runs(fx, tmp_path):
    worse = tmp_path / "worse.txt"
    worse.write_text("SELECT count(*) FROM student\nSELECT name FROM student\nSELECT city FROM student\n"
                     "SELECT max(age) FROM student\n")
    a = spider.evaluate(gold=fx["gold"], pred=fx["pred"], db_dir=fx["db"], table=fx["table"], etype="all", name="A")
    b = spider.evaluate(gold=fx["gold"], pred=str(worse), db_dir=fx["db"], table=fx["table"], etype="all", name="B")
    return a, b


def _files(tmp_path, *objs):
    paths = []
    for k, o in enumerate(objs):
        p = tmp_path / f"rec{k}.json"
        p.write_text(o.json, encoding="utf-8")
        paths.append(str(p))
    return paths


def _no_files(d):
    """A diff's JSON without the run files (a run object is passed as a temporary file)."""
    d = json.loads(d) if isinstance(d, str) else d
    for side in ("a", "b"):
        d[side].pop("file", None)
    return d


def test_diff_and_report_take_run_objects(spider_fx, tmp_path):
    a, b = _two_spider_runs(spider_fx, tmp_path)
    fa, fb = _files(tmp_path, a, b)
    jo = tmp_path / "d.json"
    by_obj, by_file = runs.diff(a, b, agree="exec,exact", json_out=jo), runs.diff(fa, fb, agree="exec,exact")
    # The same table but the runs' files: a run object is named <run SYSTEM>, never a temporary path.
    assert by_obj.text == by_file.text.replace(fa, "<run A>").replace(fb, "<run B>") and "exec" in by_obj.text
    assert "<run A>" in by_obj.text and "sqlgrade-runs-" not in by_obj.text + by_obj.json
    assert _no_files(by_obj.json) == _no_files(by_file.json)
    assert json.loads(by_obj.json)["a"]["file"] == "<run A>" and json.loads(jo.read_text())["b"]["file"] == "<run B>"
    mixed = runs.diff(fa, b)  # a file and an object
    assert _no_files(mixed.json) == _no_files(runs.diff(fa, fb).json) and json.loads(mixed.json)["a"]["file"] == fa
    out = tmp_path / "r.html"
    r = runs.report([a, b], output=out, title="t")
    rf = runs.report([fa, fb], title="t")
    assert r.runs == 2 and r.instances == len(a.instances) and out.read_text(encoding="utf-8") == r.html
    assert "sqlgrade-runs-" not in r.html
    # Same page but the runs' file names (and the generation time): the same data, charts and tables.
    data = lambda h: json.loads(re.search(r'<script id="sqlgrade-data" type="application/json">(.*?)</script>', h, re.S)
                                .group(1))
    da, db = data(r.html), data(rf.html)
    assert [run["file"] for run in da["runs"]] == ["<run A>", "<run B>"]
    for d in (da, db):
        d.pop("generated_at", None)
        for run in d["runs"]:
            run.pop("file", None)
    assert da == db
    # Nothing is left behind in the temporary folder.
    assert not [f for f in os.listdir(os.path.dirname(out)) if f.startswith("sqlgrade-runs-")]


def test_run_objects_refused_clearly(spider_fx, tmp_path):
    a, _ = _two_spider_runs(spider_fx, tmp_path)
    with pytest.raises(InputError, match="list of run record files or run objects"):
        runs.report(a)
    both = spider.evaluate(gold=spider_fx["gold"], pred=spider_fx["pred"], db_dir=spider_fx["db"],
                           table=spider_fx["table"], compat="both")
    with pytest.raises(InputError, match=r"two runs; pass its \.spider or \.test_suite"):
        runs.diff(both, a)
    d = runs.diff(both.spider, both.test_suite)  # each mode's run is a run
    assert "exec" in d.text
    with pytest.raises(InputError, match="expected a path"):
        runs.diff(a, 42)


def test_merge_takes_run_objects(spider_fx, tmp_path):
    parts = [spider.evaluate(gold=spider_fx["gold"], pred=spider_fx["pred"], db_dir=spider_fx["db"],
                             table=spider_fx["table"], shard=f"{i}/2", name="S") for i in (1, 2)]
    whole = spider.evaluate(gold=spider_fx["gold"], pred=spider_fx["pred"], db_dir=spider_fx["db"],
                            table=spider_fx["table"], name="S")
    m = runs.merge(parts)
    by_file = runs.merge(_files(tmp_path, *parts))
    assert m.record["command"] == ["sqlgrade.runs.merge", "<run S>", "<run S>"]
    assert m.text == by_file.text == whole.text
    assert [i["id"] for i in m.instances] == [i["id"] for i in whole.instances]
    assert [i["scores"] for i in m.instances] == [i["scores"] for i in whole.instances]
    assert m.record["summary"] == by_file.record["summary"]
    # A merged run is a run too.
    assert "exec" in runs.diff(m, whole).text
    assert list(m.to_pandas()["id"]) == list(whole.to_pandas()["id"])


def _check_shape(run, n):
    assert len(run.instances) == n and n > 0
    for inst in run.instances:
        assert list(inst)[:5] == ["id", "question", "scores", "category", "rows"], inst.keys()
        assert isinstance(inst["id"], str) and isinstance(inst["scores"], dict) and isinstance(inst["category"], dict)
    assert [i["id"] for i in run.instances] == [i["id"] for i in json.loads(run.json)["instances"]]
    assert run.system and run.primary_metric in {m["name"] for m in run.metrics}


def test_one_instance_shape(spider_fx, bird_fx, spider2_fx, uda_fx, tmp_path):
    s, _ = _two_spider_runs(spider_fx, tmp_path)
    _check_shape(s, 4)
    assert [i["scores"]["exec"] for i in s.instances] == [i["exec"] for i in s.items] == [1, 1, 0, 0]
    assert s.instances[0]["question"] is None and s.instances[0]["gold_sql"] == "SELECT count(*) FROM student"
    assert s.instances[0]["rows"]["gold"] and s.instances[0]["rows"]["pred"] == s.instances[0]["rows"]["gold"]
    bd = bird.evaluate(pred=bird_fx["pred"], gold=bird_fx["gold"], db_dir=bird_fx["db"], diff_json=bird_fx["diff"], name="bd")
    _check_shape(bd, 3)
    assert [i["category"]["difficulty"] for i in bd.instances] == ["simple", "moderate", "challenging"]
    assert [i["scores"]["ex"] for i in bd.instances] == [int(i["correct"]) for i in bd.items]
    s2 = spider2.evaluate(result_dir=spider2_fx["preds"], gold_dir=spider2_fx["gold"], name="s2")
    _check_shape(s2, 3)
    u = uda.evaluate(dataset_dir=uda_fx["dataset"], results=uda_fx["results"], name="u")
    _check_shape(u, len(u.items))
    assert {i["id"] for i in u.instances} == {q["path"] for q in u.items}
    assert u.system == "u" and s.system == "A"
    rec = runs.load(_files(tmp_path, u)[0])
    assert rec.instances == u.instances and rec.system == "u" and rec.summary == u.record["summary"]


def test_to_pandas(spider_fx, uda_fx, tmp_path):
    pd = pytest.importorskip("pandas")
    a, b = _two_spider_runs(spider_fx, tmp_path)
    df = b.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == 4
    assert list(df.columns[:3]) == ["system", "id", "category.hardness"]
    assert {"scores.exec", "scores.exact", "question", "gold_sql", "pred_sql", "failure_reason", "time_s",
            "rows.gold", "rows.pred", "rows.truncated"} <= set(df.columns)
    assert df["scores.exec"].dtype == "float64"
    assert list(df["scores.exec"]) == [float(i["scores"]["exec"]) for i in b.instances]
    assert list(df["id"]) == [i["id"] for i in b.instances] and set(df["system"]) == {"B"}
    assert all(not isinstance(v, (dict,)) for v in df.iloc[0].values)  # flat: no nested dicts
    both = pd.concat([a.to_pandas(), b.to_pandas()], ignore_index=True)
    wide = both.pivot(index="id", columns="system", values="scores.exec")
    assert wide["A"].mean() == pytest.approx(a.exec_accuracy) and wide["B"].mean() == pytest.approx(b.exec_accuracy)
    u = uda.evaluate(dataset_dir=uda_fx["dataset"], results=uda_fx["results"], name="u").to_pandas()
    assert {"category.dataset", "category.task", "scores.macro_f1"} <= set(u.columns)
    # A statement without a result scores 0 (it counts); one whose metric is absent is NaN, never 0.
    assert u["scores.macro_f1"].notna().sum() + u["scores.macro_f1"].isna().sum() == len(u)
    with pytest.raises(InputError, match=r"^<run A>: has no \"shard\""):  # errors name the run, not a temporary file
        runs.merge([a])


def test_to_pandas_without_pandas(spider_fx, tmp_path, monkeypatch):
    a, _ = _two_spider_runs(spider_fx, tmp_path)
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` raises ImportError
    with pytest.raises(ImportError, match=r"to_pandas\(\) needs pandas.*pip install pandas"):
        a.to_pandas()
    assert a.instances  # the rest works without it


def test_evaluate_takes_name_everywhere():
    import inspect
    for fn in (spider.evaluate, bird.evaluate, spider2.evaluate, uda.evaluate):
        assert "name" in inspect.signature(fn).parameters, fn.__module__


def test_example_notebook_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the kernel inherits it: the notebook's folder is the test's
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "commit the notebook without outputs"
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(tmp_path)}})
    client.execute()
    text = "\n".join(o.get("text", "") + json.dumps(o.get("data", {})) for c in nb.cells if c.cell_type == "code"
                     for o in c.outputs)
    assert not [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    # The numbers of the notebook's own benchmark, worked out by hand: the baseline gets 3 of 6 right
    # (count(*), max(age), the Rome average), the candidate 5 (all but the last: the regression).
    assert "execution accuracy: 0.5 -> 0.8333333333333334" in text, text[:2000]
    assert "['5']" in text  # the one regression: question 5 (ids count from 0)
    assert "McNemar" in text or "mcnemar" in text
    assert "RunReport 2 runs, 6 instances" in text
    made = [d for d in os.listdir(tmp_path) if d.startswith("sqlgrade-notebook-")]
    assert len(made) == 1 and os.path.getsize(os.path.join(tmp_path, made[0], "report.html")) > 10000
