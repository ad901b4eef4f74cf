#!/usr/bin/env python3
"""Rewards per second for one GRPO step (128 prompts x 16 samples = 2,048 rollouts), in-process
through sqlgrade._native and through `sqlgrade serve`, plus the GIL check (4 threads vs 1).

Databases: 64 prompts on Spider 2.0-Lite local databases (benchmark spider2) and 64 on BIRD dev
databases (benchmark bird), from SQLGRADE_DATA (default ../shared/data). Each prompt's gold is a
small query on one real table (`SELECT * FROM t LIMIT 20`); its 16 samples are right, reordered,
wrong (other LIMIT / columns), failing (unknown column) or without SQL, as a policy's samples are.

    python3 bench/python_rewards.py [--server build/sqlgrade] [--repeat 3]

Not a test: prints the figures (docs/python.md quotes them with this command).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python"))
import sqlgrade  # noqa: E402  (before sqlite3: the native module configures SQLite for threads)
import sqlite3  # noqa: E402


def tables(db: str) -> list:
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
    finally:
        con.close()


def prompts(data: str, n_each: int, rng: random.Random) -> list:
    out = []
    s2 = os.path.join(data, "spider2lite", "databases")
    bird = os.path.join(data, "bird", "dev_databases")
    s2_dbs = sorted(os.path.join(s2, f) for f in os.listdir(s2) if f.endswith(".sqlite"))
    bird_dbs = sorted(os.path.join(bird, d, d + ".sqlite") for d in os.listdir(bird)
                      if os.path.isfile(os.path.join(bird, d, d + ".sqlite")))
    for bench, dbs in (("spider2", s2_dbs), ("bird", bird_dbs)):
        pairs = [(db, t) for db in dbs for t in tables(db)]
        rng.shuffle(pairs)
        for db, t in pairs[:n_each]:
            out.append((bench, db, f'SELECT * FROM "{t}" LIMIT 20', t))
    return out


def samples(gold: str, table: str) -> list:
    right = "```sql\n" + gold + "\n```"
    return ([right] * 6 + ["<answer>" + gold + "</answer>"] * 2 +
            [f'```sql\nSELECT * FROM "{table}" LIMIT 19\n```'] * 3 +
            [f'```sql\nSELECT rowid FROM "{table}" LIMIT 20\n```'] * 2 +
            [f'```sql\nSELECT no_such_column FROM "{table}"\n```'] * 2 + ["I cannot answer."])


def batch(ps: list) -> list:
    items = []
    for bench, db, gold, table in ps:
        for out in samples(gold, table):
            items.append({"output": out, "db": db, "gold_sql": gold, "benchmark": bench})
    return items


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(REPO, "build", "sqlgrade"), help="sqlgrade binary ('' to skip)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    data = os.environ.get("SQLGRADE_DATA") or os.path.join(REPO, "..", "shared", "data")
    rng = random.Random(7)
    ps = prompts(data, 64, rng)
    items = batch(ps)
    print(f"{len(ps)} prompts x 16 samples = {len(items)} rollouts ({sum(p[0] == 'bird' for p in ps)} BIRD prompts); "
          f"{os.cpu_count()} cores; python {sys.version.split()[0]}")

    sqlgrade.configure(server=None, backend="native")
    t0 = time.perf_counter()
    vs = sqlgrade.verdicts(items, threads=0)
    cold = time.perf_counter() - t0
    acc = sum(v.reward for v in vs) / len(vs)
    print(f"native, cold gold cache, all threads: {cold:.3f} s ({len(items) / cold:,.0f} verdicts/s); mean reward {acc:.3f}")
    for threads in (0, 1):
        t = timed(lambda: sqlgrade.verdicts(items, threads=threads), args.repeat)
        print(f"native, warm gold cache, threads={threads or 'all'}: {t:.3f} s ({len(items) / t:,.0f} verdicts/s)")

    # GIL: the same batch split over 4 Python threads (each verdicts(..., threads=1)) vs 1 thread.
    def py_threads(n: int) -> None:
        chunks = [items[i::n] for i in range(n)]
        ts = [threading.Thread(target=sqlgrade.verdicts, args=(c,), kwargs={"threads": 1}) for c in chunks]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    one, four = timed(lambda: py_threads(1), args.repeat), timed(lambda: py_threads(4), args.repeat)
    print(f"GIL check, this batch: 1 Python thread {one:.3f} s, 4 Python threads {four:.3f} s, ratio {one / four:.2f}")
    # The same with SQL-bound work (each verdict ~50-100 ms in SQLite): the ratio tends to the cores.
    heavy = "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r WHERE x < 300000) SELECT sum(x) FROM r"
    saved, items = items, [{"output": heavy, "extract": False, "db": ps[0][1], "gold_sql": "SELECT 1"}] * 16
    one, four = timed(lambda: py_threads(1), args.repeat), timed(lambda: py_threads(4), args.repeat)
    items = saved
    print(f"GIL check, 16 SQL-bound verdicts: 1 Python thread {one:.3f} s, 4 Python threads {four:.3f} s, "
          f"ratio {one / four:.2f}")

    if args.server:
        s2 = os.path.join(data, "spider2lite", "databases")
        bird = os.path.join(data, "bird", "dev_databases")
        proc = subprocess.Popen([args.server, "serve", "--port", "0", "--db-dir", s2, "--bird-db-dir", bird],
                                stdout=subprocess.PIPE, text=True)
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            url = line.split("listening on ", 1)[1].split()[0]
            sqlgrade.configure(server=url, backend="server")
            t0 = time.perf_counter()
            sv = sqlgrade.verdicts(items)
            cold = time.perf_counter() - t0
            assert [v.reward for v in sv] == [v.reward for v in vs], "server and native verdicts differ"
            t = timed(lambda: sqlgrade.verdicts(items), args.repeat)
            print(f"sqlgrade serve (same verdicts), cold {cold:.3f} s, warm {t:.3f} s ({len(items) / t:,.0f} verdicts/s)")
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
