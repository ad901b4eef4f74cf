"""The native backend (sqlgrade._native, phase 2 of issue 14): skipped until the module is built.

Written now against the protocol in sqlgrade/_native.pyi, so phase 2 only has to make them pass.
"""

from __future__ import annotations

import os
import threading
import time

import pytest

import sqlgrade
from conftest import Dbs, file_hashes, needs_native, require_data

pytestmark = needs_native

CASES = [  # (output, kwargs)
    ("```sql\nSELECT name FROM item WHERE qty >= 2\n```", {}),
    ("```sql\nSELECT name FROM item\n```", {}),
    ("```sql\nSELECT nme FROM item\n```", {}),
    ("nothing", {}),
    ("<answer>SELECT name FROM item WHERE qty > 1</answer>", {"extract": {"tags_and_json": False}}),
    ("SELECT name FROM item ORDER BY price", {"extract": False, "gold_sql": "SELECT name FROM item ORDER BY price DESC",
                                              "order": "top_level"}),
    ("DROP TABLE item", {"extract": False}),
    ("SELECT 1", {"extract": False, "gold_sql": "SELECT nope"}),
    # reasoning (issue 21): the gold inside <think> earns nothing; after_think=False reads it as before
    ("<think>```sql\nSELECT name FROM item WHERE qty > 1\n```</think> No idea.", {}),
    ("<think>```sql\nSELECT name FROM item WHERE qty > 1\n```</think> No idea.", {"extract": {"after_think": False}}),
    ("<think>The query is SELECT name FROM item WHERE qty > 1", {}),
]


def _fields(v: sqlgrade.Verdict):
    return v.reward, v.score, v.failure_reason, v.extracted_sql, v.executed, v.outcome


def test_native_verdicts_equal_the_servers(fixture_server, dbs: Dbs, settings):
    def run(**cfg):
        settings(**cfg)
        out = []
        for text, kw in CASES:
            kw = dict(kw)
            gold = kw.pop("gold_sql", "SELECT name FROM item WHERE qty > 1")
            out.append(_fields(sqlgrade.verdict(text, db=dbs.shop, gold_sql=gold, **kw)))
        for bench, db in (("spider", dbs.school), ("bird", dbs.bird_shop)):
            gold = "SELECT name FROM student" if bench == "spider" else "SELECT name FROM item"
            out.append(_fields(sqlgrade.verdict(gold, db=db, gold_sql=gold, benchmark=bench, extract=False)))
        return out

    before = file_hashes(dbs.all_files())
    assert run(server=None, backend="native") == run(server=fixture_server.url, backend="server")
    assert file_hashes(dbs.all_files()) == before


def test_native_execute(settings, dbs: Dbs):
    settings(server=None, backend="native")
    r = sqlgrade.execute(dbs.shop, "SELECT name, qty FROM item ORDER BY id", max_rows=2)
    assert r.ok and r.columns == ("name", "qty") and r.rows == (("apple", 3), ("pear", 0)) and r.truncated
    assert "apple | 3" in r.text
    assert sqlgrade.execute(dbs.shop, "SELECT nope FROM item").status == "error"
    assert sqlgrade.execute(dbs.shop, "DROP TABLE item").status == "error"
    runaway = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"
    t0 = time.monotonic()
    assert sqlgrade.execute(dbs.shop, runaway, timeout=0.5).status == "timeout"
    assert time.monotonic() - t0 < 3


def test_native_releases_the_gil(settings, dbs: Dbs):
    """A Python thread keeps running while a native verdict executes (it could not if the GIL were
    held), and 4 threads vs 1 on the same CPU-bound batch (the ratio is printed; it is asserted > 1.3
    only on an idle machine with >= 2 cores: other builds on this shared machine take the cores)."""
    settings(server=None, backend="native")
    heavy = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 300000) SELECT sum(x) FROM r"
    items = [{"output": heavy, "extract": False, "gold_sql": "SELECT 1"}] * 16

    def run(threads: int) -> float:
        chunks = [items[i::threads] for i in range(threads)]
        t0 = time.perf_counter()
        ts = [threading.Thread(target=sqlgrade.verdicts, args=(c,), kwargs={"db": dbs.shop, "threads": 1})
              for c in chunks]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        return time.perf_counter() - t0

    # Progress of a pure-Python loop while one native batch runs in another thread.
    worker = threading.Thread(target=sqlgrade.verdicts, args=(items[:6],), kwargs={"db": dbs.shop, "threads": 1})
    t0 = time.perf_counter()
    worker.start()
    spins = 0
    while worker.is_alive():
        spins += 1
    busy = time.perf_counter() - t0
    t0, base = time.perf_counter(), 0
    while time.perf_counter() - t0 < 0.2:
        base += 1
    rate = base / (time.perf_counter() - t0)
    print(f"GIL release: a Python loop ran at {spins / busy / rate:.0%} of its idle speed during a {busy:.2f} s native call")
    assert busy > 0.1 and spins > 0.05 * rate * busy

    one, four = run(1), run(4)
    print(f"GIL release: 1 thread {one:.2f} s, 4 threads {four:.2f} s, ratio {one / four:.2f}")
    if (os.cpu_count() or 1) >= 2 and os.getloadavg()[0] < 0.5:
        assert one / four > 1.3


RUNAWAY = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r"


def _raw(v: sqlgrade.Verdict) -> dict:
    """The backend's whole reply, without what differs by nature (timings, the cache state)."""
    raw = dict(v.raw)
    for k in ("timings", "gold_cached"):
        raw.pop(k, None)
    return raw


def test_native_replies_equal_the_servers_field_by_field(fixture_server, dbs: Dbs, settings):
    """The same requests through sqlgrade._native and through a running `sqlgrade serve`: identical
    /verify replies (every field but timings), over every benchmark and the per-request options."""
    gold = "SELECT name FROM item WHERE qty > 1"
    cases = [(text, dict(kw)) for text, kw in CASES] + [
        (RUNAWAY, {"extract": False, "timeout": 0.3}),
        ("SELECT name FROM item WHERE qty > 1 AND name <> '```'", {"extract": False}),
        ("  ;  -- nothing", {"extract": False}),
        ("```sql\nSELECT name FROM item\n```", {"gold_result": [[["apple"], ["fig"], ["kiwi"]]], "gold_sql": None}),
        ("```sql\nSELECT name, qty FROM item\n```", {"gold_sql": "SELECT qty, name FROM item", "ignore_order": False,
                                                    "condition_cols": [1]}),
        ("```sql\nSELECT name FROM student WHERE age > 19\n```", {"benchmark": "spider", "db": "school",
                                                                  "gold_sql": "SELECT name FROM student WHERE age > 20",
                                                                  "plug_value": True}),
        ("```sql\nSELECT DISTINCT city FROM student\n```", {"benchmark": "spider", "db": "school",
                                                           "gold_sql": "SELECT city FROM student", "keep_distinct": True}),
        ("```sql\nSELECT name FROM student\n```", {"benchmark": "spider", "db": "school", "gold_sql": "SELECT name FROM student"}),
        ("```sql\nSELECT name FROM item\n```", {"benchmark": "bird", "db": "bird_shop", "gold_sql": "SELECT name FROM item"}),
    ]

    def run(**cfg):
        settings(**cfg)
        out = []
        for text, kw in cases:
            kw = dict(kw)
            db = {"school": dbs.school, "bird_shop": dbs.bird_shop}.get(kw.pop("db", ""), dbs.shop)
            g = kw.pop("gold_sql", gold)
            out.append(_raw(sqlgrade.verdict(text, db=db, gold_sql=g, **kw)))
        return out

    before = file_hashes(dbs.all_files())
    native = run(server=None, backend="native")
    served = run(server=fixture_server.url, backend="server")
    for i, (a, b) in enumerate(zip(native, served)):
        assert a == b, (i, cases[i], a, b)
    assert "pred_executed" in native[0] and native[-1]["reward"] == 1.0
    assert native[len(CASES)]["failure_reason"] == "timeout"
    assert file_hashes(dbs.all_files()) == before


def test_native_bad_requests_raise_input_error(settings, dbs: Dbs):
    settings(server=None, backend="native")
    from sqlgrade import _native
    for bad in ({"db": dbs.shop, "sql": "SELECT 1"},  # no gold
                {"db": dbs.shop + ".x", "sql": "SELECT 1", "gold_sql": "SELECT 1"},
                {"db": dbs.shop, "sql": "SELECT 1", "gold_sql": "SELECT 1", "benchmark": "nope"},
                {"db": dbs.shop, "sql": "SELECT 1", "gold_sql": "SELECT 1", "timeout": -1},
                {"db": dbs.shop, "sql": object(), "gold_sql": "SELECT 1"}):
        with pytest.raises(_native.InputError) as e:
            _native.verdict(bad)
        assert "\n" not in str(e.value) and isinstance(e.value, ValueError)
    nested: list = []
    for _ in range(300):
        nested = [nested]
    with pytest.raises(_native.InputError, match="nested"):
        _native.verdict({"db": dbs.shop, "sql": "SELECT 1", "gold_result": nested})
    with pytest.raises(_native.InputError, match="request 1: "):
        _native.verdicts([{"db": dbs.shop, "sql": "SELECT 1", "gold_sql": "SELECT 1"}, {"db": dbs.shop}], 2)
    with pytest.raises(sqlgrade.InputError):
        sqlgrade.verdict("SELECT 1", db=dbs.shop, gold_sql="SELECT 1", extract=False, benchmark="nope")
    assert _native.PROTOCOL_VERSION == 1 and _native.version() == sqlgrade.__version__


def test_native_grades_spider2_by_instance_id_with_a_gold_folder(settings):
    """issue 21 item 7: Spider 2.0-Lite by instance_id in-process, the gold folder read as the server's
    --spider2-gold-dir (official gold CSVs, condition_cols, ignore_order); without it, a clear error."""
    s2 = os.path.join(require_data("spider2lite/gold", "spider2lite/databases/E_commerce.sqlite"), "spider2lite")
    gold_dir, db = os.path.join(s2, "gold"), os.path.join(s2, "databases", "E_commerce.sqlite")
    # A prediction that returns exactly the official gold CSV local003_a.csv (its rows as literals).
    import csv
    with open(os.path.join(gold_dir, "exec_result", "local003_a.csv"), encoding="utf-8", newline="") as f:
        header, *rows = list(csv.reader(f))
    gold = " UNION ALL ".join("SELECT " + ", ".join("'" + v.replace("'", "''") + f"' AS \"{header[0]}\"" if i == 0 else f"{v} AS \"{header[i]}\""
                                                    for i, v in enumerate(r)) for r in rows)
    settings(backend="native", spider2_gold_dir=None)
    with pytest.raises(sqlgrade.InputError, match="gold_sql"):
        sqlgrade.verdict(gold, db=db, instance_id="local003", extract=False)
    settings(backend="native", spider2_gold_dir=gold_dir)
    right = sqlgrade.verdict(gold, db=db, instance_id="local003", extract=False)
    assert (right.reward, right.stage) == (1.0, "equal"), right.failure_detail
    wrong = sqlgrade.verdict("SELECT 1", db=db, instance_id="local003", extract=False)
    assert (wrong.reward, wrong.stage) == (0.0, "different")
    settings(backend="native", spider2_gold_dir=os.path.join(s2, "databases"))
    with pytest.raises(sqlgrade.InputError, match="spider2lite_eval.jsonl"):
        sqlgrade.verdict(gold, db=db, instance_id="local003", extract=False)
    settings(backend="native", spider2_gold_dir=None)
