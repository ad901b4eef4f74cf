"""`sqlgrade.runs.diff` / `sqlgrade.runs.report` (the library's `sqlgrade diff` / `report`, in-process):
parity with the CLI of the same build on two UDA run records of the Shop fixture (a perfect system,
and the same with one result removed).

Checked: the diff's table and JSON equal `sqlgrade diff` / `--json` byte for byte, with the default
and with other flags; `json_out` holds the JSON; the report's page equals the CLI's file byte for byte
(the page is deterministic for a seed); bad input gets the CLI's message and writes nothing; an
output that is one of the inputs is refused and the input kept."""

from __future__ import annotations

import json
import os
import shutil
from typing import Dict

import pytest

import sqlgrade
from conftest import needs_native, read_text
from sqlgrade import runs
from test_evaluate import cli, input_error_of, needs_cli, uda_fx  # noqa: F401 - uda_fx is a fixture

pytestmark = [needs_native, needs_cli]


@pytest.fixture()
def two_runs(uda_fx, tmp_path) -> Dict[str, str]:
    fx = uda_fx
    worse = str(tmp_path / "worse")
    shutil.copytree(fx["results"], worse)
    found = sorted(os.path.join(d, "result.csv") for d, _, fs in os.walk(worse) if "result.csv" in fs)
    os.remove(found[-1])  # one more statement without a result: it scores 0 in b
    out = {}
    for name, res in (("a", fx["results"]), ("b", worse)):
        out[name] = str(tmp_path / f"{name}.json")
        rc, _, err = cli("uda", "run", "--dataset-dir", fx["dataset"], "--results", res, "--name", name, "--json", out[name])
        assert rc == 0, err
    out["dir"] = str(tmp_path)
    return out


@pytest.mark.parametrize("flags,kwargs", [
    ([], {}),
    (["--bootstrap", "200", "--seed", "7", "--confidence", "0.9", "--list", "0", "--axis", "task",
      "--agree", "macro_f1,row_f1"],
     {"bootstrap": 200, "seed": 7, "confidence": 0.9, "list": 0, "axes": ["task"], "agree": "macro_f1,row_f1"}),
])
def test_diff_equals_the_cli(two_runs, flags, kwargs) -> None:
    a, b = two_runs["a"], two_runs["b"]
    out = os.path.join(two_runs["dir"], "diff.json")
    d = runs.diff(a, b, json_out=out, **kwargs)
    rc, text, err = cli("diff", a, b, *flags)
    assert rc == 0, err
    rc, js, err = cli("diff", a, b, "--json", *flags)
    assert rc == 0, err
    assert d.text == text and str(d) == text and d.json == js
    assert "macro_f1" in text and d.to_dict() == json.loads(js)
    with open(out, encoding="utf-8") as f:
        assert f.read() == js


def test_diff_bad_input_is_refused_like_the_cli(two_runs) -> None:
    a, b = two_runs["a"], two_runs["b"]
    missing = os.path.join(two_runs["dir"], "missing.json")
    msg = input_error_of(["diff", a, missing])
    with pytest.raises(sqlgrade.InputError) as e:
        runs.diff(a, missing)
    assert str(e.value) == msg
    msg = input_error_of(["diff", a, b, "--json-out", a])
    before = read_text(a)
    with pytest.raises(sqlgrade.InputError) as e:
        runs.diff(a, b, json_out=a)
    assert str(e.value) == msg and read_text(a) == before
    for flag, value, kw in (("--bootstrap", "0", {"bootstrap": 0}), ("--confidence", "1", {"confidence": 1}),
                            ("--list", "-1", {"list": -1}), ("--seed", "-1", {"seed": -1})):
        msg = input_error_of(["diff", a, b, flag, value])
        with pytest.raises(sqlgrade.InputError) as e:
            runs.diff(a, b, **kw)
        assert str(e.value) == msg


def test_report_equals_the_cli(two_runs, monkeypatch) -> None:
    # the page carries its generation time to the second: pinned, or the two writers may straddle a second
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    a, b = two_runs["a"], two_runs["b"]
    mine, theirs = os.path.join(two_runs["dir"], "py.html"), os.path.join(two_runs["dir"], "cli.html")
    r = runs.report([a, b], mine, title="Shop <a & b>", bootstrap=300, seed=3)
    rc, out, err = cli("report", a, b, "-o", theirs, "--title", "Shop <a & b>", "--bootstrap", "300", "--seed", "3")
    assert rc == 0, err
    assert out == f"wrote {theirs} ({r.runs} runs, {r.instances} instances)\n" and r.runs == 2
    with open(mine, encoding="utf-8") as f, open(theirs, encoding="utf-8") as g:
        page = g.read()
        assert f.read() == page == r.html
    assert '"generated_at":"2026-01-01T00:00:00Z"' in page
    assert "Shop &lt;a &amp; b&gt;" in page and "<a & b>" not in page  # the title is text, not markup
    assert runs.report([a]).html != page  # nothing written without an output; one run is another page


def test_report_refuses_like_the_cli(two_runs) -> None:
    a, b = two_runs["a"], two_runs["b"]
    msg = input_error_of(["report", a, b, "-o", b])
    before = read_text(b)
    with pytest.raises(sqlgrade.InputError) as e:
        runs.report([a, b], b)
    assert str(e.value) == msg and read_text(b) == before
    bad = os.path.join(two_runs["dir"], "bad.json")
    with open(bad, "w", encoding="utf-8") as f:
        f.write('{"schema": ')
    out = os.path.join(two_runs["dir"], "r.html")
    msg = input_error_of(["report", a, bad, "-o", out])
    with pytest.raises(sqlgrade.InputError) as e:
        runs.report([a, bad], out)
    assert str(e.value) == msg and not os.path.exists(out)
    with pytest.raises(sqlgrade.InputError, match="runs must be a list"):
        runs.report(a)
    with pytest.raises(sqlgrade.InputError, match="no runs given"):
        runs.report([])
