#!/usr/bin/env python3
"""Cost of the `verify` option per rollout (docs/verify.md, "For RL").

Grades one Spider dev system's predictions through the public API (sqlgrade.verdict, native backend,
one thread: the latency a single rollout pays) twice per instance: plain, then with
verify={"budget": B, "candidates": N}. Prints, over the matches, the median / p90 / max time per
rollout with and without the option, the added time, how many matches were refuted and how many
searches the time cap ended.

Usage: bench/verify_rl.py [--system dail-sql_gpt4] [--budget 0.2] [--candidates 50] [--limit N]
(SQLGRADE_DATA: the data folder, default ../shared/data; the package is imported from python/.)
"""
import argparse
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import sqlgrade  # noqa: E402


def quantile(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--system", default="dail-sql_gpt4")
    ap.add_argument("--budget", type=float, default=0.2)
    ap.add_argument("--candidates", type=int, default=50)
    ap.add_argument("--limit", type=int, default=0, help="first N instances only (0: all)")
    a = ap.parse_args()
    data = os.environ.get("SQLGRADE_DATA", os.path.join(HERE, "..", "..", "shared", "data"))
    sp = os.path.join(data, "spider")
    pred_dir = os.path.join(data, "preds", "spider_dev", a.system)
    pred_file = next(os.path.join(pred_dir, f) for f in ("pred.txt", "pred.sql", "pred.derived.sql")
                     if os.path.exists(os.path.join(pred_dir, f)))
    golds = [line.rstrip("\n").split("\t") for line in open(os.path.join(sp, "dev_gold.sql"), encoding="utf-8") if line.strip()]
    preds = [line.rstrip("\n") for line in open(pred_file, encoding="utf-8")]
    n = len(golds) if not a.limit else min(a.limit, len(golds))
    sqlgrade.configure(backend="native", server=None)
    plain_t, verify_t, added, statuses = [], [], [], {}
    load0 = os.getloadavg()[0]
    for i in range(n):
        gold, db_id = golds[i][0], golds[i][-1]
        kw = dict(db=os.path.join(sp, "database", db_id), gold_sql=gold, benchmark="spider", extract=False)
        t0 = time.perf_counter()
        p = sqlgrade.verdict(preds[i], **kw)
        t1 = time.perf_counter()
        if not p.execution_match:
            continue
        v = sqlgrade.verdict(preds[i], verify={"budget": a.budget, "candidates": a.candidates}, **kw)
        t2 = time.perf_counter()
        plain_t.append(t1 - t0)
        verify_t.append(t2 - t1)
        added.append(v.verify["seconds"])
        key = v.verify["status"] + (" (time cap)" if v.verify.get("time_capped") else "")
        statuses[key] = statuses.get(key, 0) + 1
    print(f"{a.system}: {len(plain_t)} matches of {n} instances; verify budget {a.budget} s, {a.candidates} candidates; "
          f"one thread; load {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    for name, xs in (("plain verdict", plain_t), ("verdict + verify", verify_t), ("search alone", added)):
        print(f"  {name:17s} median {statistics.median(xs) * 1000:7.1f} ms   p90 {quantile(xs, 0.9) * 1000:7.1f} ms   "
              f"max {max(xs) * 1000:7.1f} ms   total {sum(xs):6.1f} s")
    print("  outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))


if __name__ == "__main__":
    main()
