"""Issue 19, finding 9: numeric arguments are checked against the library's table of bounds.

Before, ``timeout=float("nan")`` passed every check of the package (``nan <= 0`` is False) and
``http_timeout=float("inf")`` too; ``sqlgrade.spider.evaluate(timeout=-1)`` switched the deadline
off. Now every numeric argument raises ValueError (``sqlgrade.InputError``) with the message the
reward server answers (HTTP 400) and the CLI prints: ``timeout: must be a number of seconds in
(0, 86400]; got nan``. The arguments are found from the functions' signatures, so a new numeric
argument without a check fails here.
"""

from __future__ import annotations

import inspect
import json
import math
import sys
import urllib.error
import urllib.request

import pytest

import sqlgrade
import sqlgrade.bird
import sqlgrade.spider
import sqlgrade.spider2
import sqlgrade.uda
from sqlgrade import _bounds
from conftest import Dbs, needs_native

BAD = [float("nan"), float("inf"), float("-inf"), -1, 1e300, True, "30"]

# The public functions with numeric keyword arguments, and the required arguments that get them past
# argument checking (paths need not exist: the numbers are checked first).
PATHS = {"gold": "g", "pred": "p", "db_dir": "d", "result_dir": "r", "gold_dir": "gd", "dataset_dir": "dd",
         "results": "rs", "sql_file": "q.sql"}
FUNCS = [sqlgrade.spider.evaluate, sqlgrade.bird.evaluate, sqlgrade.spider2.evaluate]


def numeric_params(fn):
    # The options default to None (the library's default, issue 20): the annotation says which are numbers.
    for name, p in inspect.signature(fn).parameters.items():
        if str(p.annotation) in ("int", "float", "Optional[int]", "Optional[float]"):
            yield name


def test_every_numeric_argument_of_the_evaluate_functions_refuses_bad_values():
    seen = 0
    for fn in FUNCS:
        required = {k: v for k, v in PATHS.items() if k in inspect.signature(fn).parameters}
        names = list(numeric_params(fn))
        assert names, fn
        for name in names:
            for bad in BAD:
                with pytest.raises(ValueError, match=rf"^{name}: must be .*; got ") as e:
                    fn(**required, **{name: bad})
                assert isinstance(e.value, sqlgrade.InputError)
                seen += 1
    assert seen >= 8 * len(BAD)  # spider: 2, bird: 4, spider2: 2


def test_bird_gold_timeout_and_uda_options_refuse_bad_values():
    for bad in BAD:
        with pytest.raises(ValueError, match=r"^gold_timeout: must be a number of seconds in \(0, 86400\]"):
            sqlgrade.bird.evaluate(pred="p", gold="g", db_dir="d", gold_timeout=bad)
    for opt in ("gold_timeout", "float_tolerance", "jobs", "llm_concurrency", "llm_timeout", "llm_retries",
                "llm_max_tokens", "llm_max_failures"):
        for bad in (float("nan"), float("inf"), -1, 1e300):
            with pytest.raises(ValueError, match=rf"^{opt}: must be "):
                sqlgrade.uda.run(dataset_dir="dd", results="rs", **{opt: bad})
    with pytest.raises(ValueError, match=r"^query_id: must be an integer in \[1, 1000000\]"):
        sqlgrade.uda.eval_query(sql_file="q.sql", dataset_dir="dd", query_id=-1)


def test_verdict_execute_and_settings_refuse_bad_values(dbs: Dbs, settings):
    settings(backend="auto", server=None)
    for bad in BAD:
        with pytest.raises(ValueError, match=r"^timeout: must be a number of seconds in \(0, 86400\]; got "):
            sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False, timeout=bad)
        for name in ("timeout", "max_rows", "max_chars", "max_bytes"):
            with pytest.raises(ValueError, match=rf"^{name}: must be "):
                sqlgrade.execute(dbs.shop, "SELECT 1", **{name: bad})
        with pytest.raises(ValueError, match=r"^threads: must be an integer in \[0, 1024\]"):
            sqlgrade.verdicts([], threads=bad)
        for name in ("threads", "retries", "connect_retries", "http_timeout", "retry_budget"):
            with pytest.raises(ValueError, match=rf"^{name}: must be "):
                sqlgrade.Config(**{name: bad})
    # The old checks let these through.
    with pytest.raises(ValueError, match="got nan"):
        sqlgrade.Config(http_timeout=float("nan"))
    with pytest.raises(ValueError, match="got inf"):
        sqlgrade.Config(retry_budget=float("inf"))


def test_messages_format_numbers_like_the_library():
    t = _bounds.TABLE["timeout"]
    assert _bounds.describe(t) == "a number of seconds in (0, 86400]"
    for v, shown in ((float("nan"), "nan"), (float("inf"), "inf"), (float("-inf"), "-inf"), (-1, "-1"), (0.0, "0"),
                     (1e300, "1e+300"), (-0.75, "-0.75"), (90000, "90000")):
        with pytest.raises(sqlgrade.InputError) as e:
            _bounds.check("timeout", v)
        assert str(e.value) == f"timeout: must be a number of seconds in (0, 86400]; got {shown}"
    assert _bounds.check("timeout", 0.5) == 0.5
    assert _bounds.check("jobs", 0) == 0


@needs_native
def test_python_table_is_the_librarys_in_both_modes(monkeypatch):
    from sqlgrade import _native
    rows = [tuple(r) for r in _native.bounds()]
    assert [tuple(b) for b in _bounds.TABLE.values()] == rows
    assert _bounds.TABLE["score"].accepts == "a number in [-1000000, 1000000]"
    # The server-only mode (no native module) reads the build's data file: the same rows.
    monkeypatch.setitem(sys.modules, "sqlgrade._native", None)  # importing the module raises ImportError
    monkeypatch.setattr(_bounds, "_table", None)
    assert [tuple(b) for b in _bounds.table().values()] == rows
    monkeypatch.setattr(_bounds, "_table", None)
    monkeypatch.setattr(_bounds, "_DATA", _bounds._DATA + ".missing")
    with pytest.raises(sqlgrade.BackendUnavailable, match="table of numeric bounds is missing"):
        _bounds.check("timeout", 1)
    monkeypatch.undo()
    # Python keeps no copy of the table (it did before issue 20: python/sqlgrade/_bounds.py had every row).
    source = open(_bounds.__file__, encoding="utf-8").read()
    assert not [b.name for b in _bounds.TABLE.values() if f'"{b.name}"' in source]
    # Same message for the same value, row by row.
    for b in _bounds.TABLE.values():
        for v in (float("nan"), float("inf"), -1.0, 0.0, 0.5, 1.0, 1e300, b.min, b.max, (b.min + b.max) / 2):
            native = _native.bound_error(b.name, v)
            try:
                _bounds.check(b.name, v, b.name)
                py = None
            except sqlgrade.InputError as e:
                py = str(e)[len(b.name) + 2:]
            assert py == native, (b.name, v)


@needs_native
def test_native_module_checks_its_arguments_too(dbs: Dbs):
    from sqlgrade import _native
    with pytest.raises(ValueError, match=r"^timeout: must be a number of seconds in \(0, 86400\]; got nan"):
        _native.execute(dbs.shop, "SELECT 1", float("nan"), 10, 1000)
    o = _native.SpiderOptions()  # the library's struct, its defaults the CLI's
    assert (o.timeout, o.jobs, o.table) == (60.0, 0, "")  # Spider: 60 s (docs/spider-exec.md "Timeout")
    with pytest.raises(ValueError, match=r"^timeout: must be .*; got -1"):
        o.timeout = -1.0
    with pytest.raises(ValueError, match=r"^--etype: Unknown evaluation method 'fast' \(match, exec, all\)"):
        o.etype = "fast"
    with pytest.raises(ValueError, match=r"^spider: --gold, --pred and --db are required"):
        _native.spider_evaluate(o)  # the CLI's check, from the library (include/sqlgrade/spider.hpp)
    b = _native.BirdOptions()
    assert (b.timeout, b.repeat, b.max_rows, b.gold_timeout) == (30.0, 100, 1_000_000, -1.0)
    with pytest.raises(ValueError, match=r"^--metric: unknown metric 'acc' \(ex, soft-f1, em-f1, ves, r-ves\)"):
        b.metric = "acc"
    with pytest.raises(ValueError, match=r"^bird: --pred, --gold and --db are required"):
        _native.bird_evaluate(b)
    s2 = _native.Spider2Options()
    assert s2.timeout == 60.0
    with pytest.raises(ValueError, match=r"^--mode: csv not in \{sql,exec_result\}"):
        s2.mode = "csv"
    u = _native.UdaOptions()  # flat keywords over uda::Options' nested structs
    assert (u.memory_limit, u.gold_timeout, u.float_tolerance, u.multi_value_sep, u.llm_concurrency) == \
        ("4GB", 60.0, 1e-4, "||", 4)
    with pytest.raises(ValueError, match=r"^--judge: gpt not in \{rules,llm\}"):
        u.judge = "gpt"
    with pytest.raises(ValueError, match=r"^--memory-limit: expected a size such as 4GB or 512MiB, got 'lots'"):
        u.memory_limit = "lots"
    with pytest.raises(ValueError, match=r"^llm_timeout: must be a number of seconds in \(0, 3600\]; got 0"):
        u.llm_timeout = 0


def test_server_answers_400_with_the_same_message(fixture_server):
    for field, value, msg in (("timeout", 1e300, "timeout: must be a number of seconds in (0, 86400]; got 1e+300"),
                              ("timeout", -1, "timeout: must be a number of seconds in (0, 86400]; got -1")):
        body = {"benchmark": "spider2", "db_id": "shop", "sql": "SELECT 1", "gold_sql": "SELECT 1", field: value}
        req = urllib.request.Request(fixture_server.url + "/verify", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=30)
        assert e.value.code == 400
        assert json.loads(e.value.read())["error"] == msg
        with pytest.raises(ValueError) as pe:
            _bounds.check(field, value)
        assert str(pe.value) == msg
    assert math.isfinite(_bounds.TABLE["timeout"].max)
