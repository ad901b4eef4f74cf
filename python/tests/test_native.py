"""The native backend (sqlgrade._native, phase 2 of issue 14): skipped until the module is built.

Written now against the protocol in sqlgrade/_native.pyi, so phase 2 only has to make them pass.
"""

from __future__ import annotations

import threading
import time

import sqlgrade
from conftest import Dbs, file_hashes, needs_native

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
    """4 threads vs 1 on the same CPU-bound batch (the ratio is printed; > 1.3 on 2 cores)."""
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

    one, four = run(1), run(4)
    print(f"GIL release: 1 thread {one:.2f} s, 4 threads {four:.2f} s, ratio {one / four:.2f}")
    assert one / four > 1.3
