#!/usr/bin/env python3
"""Distinct Spider dev systems for the many-systems benchmark (bench/multi_system/run.sh).

Only five real Spider dev prediction files exist in $SQLGRADE_DATA/preds/spider_dev (C3, DAIL-SQL,
DIN-SQL, Graphix+PICARD, RESDSQL). Systems 1-5 are those five, unchanged. Every other system k is
derived from ONE real system (its base) and ONE other real system (its donor), never mixed per
question across all five:
  - a fraction of the base's answers (different for every k, from 2% to 60%, the questions drawn by
    random.Random(SEED * 1000 + k)) is replaced by the donor's answer to the same question, as a
    fine-tuned or re-prompted variant of a model changes some of its answers to another model's;
  - a fraction of its answers (REWRITE, default 55%, drawn by the same generator) is written in the
    system's own surface style: keyword case, spacing around commas and operators, table-alias names
    (T1 -> t1 / a1 / A1 ...), spacing around
    operators and parentheses. Real systems differ in exactly this way; the rewrite never touches text
    inside quotes and never changes what the query means, but it is a new (question, prediction)
    pair that a grader has to parse and execute.
Every generated file is distinct (checked). Writes OUT/sys001.sql ... and prints how many distinct
(question, prediction) pairs the systems hold (136 real held-out systems hold about 27,700).

usage: make_systems.py OUT [--n 136] [--seed 22] [--rewrite 0.55] [--data DIR]
Never writes into the data folder.
"""
import argparse
import os
import random
import re
import sys

SOURCES = ["c3sql_gpt35/pred.txt", "dail-sql_gpt4/pred.txt", "din-sql_gpt4/pred.derived.sql",
           "graphix-3b_picard/pred.sql", "resdsql-3b/pred.sql"]
KEYWORDS = ("select", "from", "where", "group", "by", "order", "having", "limit", "join", "on", "as", "and",
            "or", "not", "in", "like", "between", "distinct", "count", "sum", "avg", "min", "max", "desc",
            "asc", "union", "intersect", "except", "is", "null")
# Quoted text (kept as is) or one of the other tokens.
TOKEN = re.compile(r"""('(?:[^']|'')*'|"(?:[^"]|"")*"|`[^`]*`)|(\w+)|(\s+)|(<=|>=|!=|<>|==|[=<>]|.)""", re.S)


def read_preds(path, n):
    with open(path, encoding="utf-8", newline=None) as f:
        lines = [l.rstrip("\n").split("\t")[0].strip() for l in f]
    lines += [""] * (n - len(lines))
    return lines[:n]


def restyle(sql, style):
    """The same query in another surface style: keyword case, spacing around commas, operators and
    parentheses, table-alias names. Quoted text is kept as is."""
    case, comma, alias, ops, parens = style
    toks = []  # (is_space, text)
    for quoted, word, space, other in TOKEN.findall(sql):
        if quoted:
            toks.append((False, quoted))
        elif word:
            if word.lower() in KEYWORDS:
                word = word.upper() if case == 0 else word.lower() if case == 1 else word.capitalize()
            elif re.fullmatch(r"[Tt]\d+", word) and alias:
                word = ("t", "a", "A", "alias_")[alias - 1] + word[1:]
            toks.append((False, word))
        elif space:
            toks.append((True, " "))
        elif other == ",":
            toks.append((False, (",", " , ", ", ")[comma]))
        elif other[0] in "=<>!" and ops:
            toks.append((False, " " + other + " "))
        elif other in "()":
            if parens:
                toks.append((False, " " + other + " "))
            else:  # no space inside the parentheses
                if other == ")" and toks and toks[-1][0]:
                    toks.pop()
                toks.append((False, other + ("\0" if other == "(" else "")))
        else:
            toks.append((False, other))
    text = "".join(t for _, t in toks)
    text = re.sub(r"\0 *", "", text)
    return re.sub(r" {2,}", " ", text).strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--n", type=int, default=136)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--rewrite", type=float, default=0.55)
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
    styles = [(c, m, al, o, p) for c in range(3) for m in range(3) for al in range(5) for o in range(2) for p in range(2)]
    seen, pairs = set(), set()
    for k in range(1, a.n + 1):
        rng = random.Random(a.seed * 1000 + k)
        base = (k - 1) % len(preds)
        if k <= len(preds):
            lines = list(preds[base])
        else:
            donor = (base + 1 + ((k - 1) // len(preds)) % (len(preds) - 1)) % len(preds)
            frac = 0.02 + 0.58 * (k - 1) / max(1, a.n - 1)
            lines = [preds[donor][q] if rng.random() < frac else preds[base][q] for q in range(n_q)]
            style = styles[(k * 37) % len(styles)]
            lines = [restyle(l, style) if l and rng.random() < a.rewrite else l for l in lines]
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
