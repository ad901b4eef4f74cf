#!/usr/bin/env python3
"""Synthetic Spider dev systems for the many-systems benchmark (bench/multi_system/run.sh).

Only five real Spider dev prediction files exist in $SQLGRADE_DATA/preds/spider_dev (C3, DAIL-SQL,
DIN-SQL, Graphix+PICARD, RESDSQL). System k (k = 1..N) answers each question with the prediction of
one of them, chosen per question by random.Random(SEED * 1000 + k): a mix of real predictions, so
its score and its failure modes are plausible. Every generated file is distinct (checked). Writes
OUT/sys001.sql … and prints how many distinct (question, prediction) pairs they hold.

usage: make_systems.py OUT [--n 136] [--seed 15] [--data DIR]
Never writes into the data folder.
"""
import argparse
import os
import random
import sys

SOURCES = ["c3sql_gpt35/pred.txt", "dail-sql_gpt4/pred.txt", "din-sql_gpt4/pred.derived.sql",
           "graphix-3b_picard/pred.sql", "resdsql-3b/pred.sql"]


def read_preds(path, n):
    with open(path, encoding="utf-8", newline=None) as f:
        lines = [l.rstrip("\n").split("\t")[0].strip() for l in f]
    lines += [""] * (n - len(lines))
    return lines[:n]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=136)
    ap.add_argument("--seed", type=int, default=15)
    ap.add_argument("--data", default=os.environ.get("SQLGRADE_DATA", ""))
    a = ap.parse_args()
    gold = os.path.join(a.data, "spider", "dev_gold.sql")
    with open(gold, encoding="utf-8") as f:
        n_q = sum(1 for l in f if l.strip())
    preds = [read_preds(os.path.join(a.data, "preds", "spider_dev", s), n_q) for s in SOURCES]
    out = os.path.abspath(a.out)
    if os.path.abspath(a.data) in (out, os.path.commonpath([out, os.path.abspath(a.data)])):
        sys.exit("make_systems.py: refusing to write inside the data folder")
    os.makedirs(out, exist_ok=True)
    seen, pairs = set(), set()
    for k in range(1, a.n + 1):
        rng = random.Random(a.seed * 1000 + k)
        lines = [preds[rng.randrange(len(preds))][q] for q in range(n_q)]
        text = "\n".join(lines) + "\n"
        if text in seen:
            sys.exit(f"make_systems.py: system {k} duplicates an earlier one")
        seen.add(text)
        pairs.update(enumerate(lines))
        with open(os.path.join(out, f"sys{k:03d}.sql"), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"{a.n} distinct systems x {n_q} questions = {a.n * n_q} predictions, "
          f"{len(pairs)} distinct (question, prediction) pairs -> {out}")


if __name__ == "__main__":
    main()
