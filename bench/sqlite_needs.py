#!/usr/bin/env python3
"""Collects every real prediction into one JSONL of statements for bench/sqlite_needs (issue 31, item 4).

Sources (each line of the output: {"bench", "db", "sql", "gold", "src"}):
  * $SQLGRADE_DATA/preds/spider_dev/*: the Spider dev systems the project grades (one SQL per line, or
    SQL<TAB>db_id; DIN-SQL's pred.derived.sql), paired with dev_gold.sql line by line;
  * $SQLGRADE_DATA/preds/bird_minidev/*/*sqlite*.json: BIRD Mini-Dev baselines ({"0": "SQL\\t----- bird -----\\tdb"});
  * $SQLGRADE_DATA/preds/spider2lite_local/*: Spider 2.0-Lite local answers (<id>.sql files);
  * every Spider dev file under $SQLGRADE_PREDS_EXTERNAL (default /work/coord/preds_external): prediction
    files published in the repositories people use (NL2SQL360, DAIL-SQL, C3SQL, DIN-SQL, Graphix...),
    kept outside the repository (its expected/ folder, official outputs, is not read); files that do not
    have one prediction per dev question are skipped.
Usage: bench/sqlite_needs.py OUT.jsonl   (bench/sqlite_needs.sh runs it, then the sqlite_needs target)
"""
import json
import os
import sys
from pathlib import Path

DATA = Path(os.environ.get("SQLGRADE_DATA", Path(__file__).resolve().parent.parent.parent / "shared" / "data"))
EXTERNAL = Path(os.environ.get("SQLGRADE_PREDS_EXTERNAL", "/work/coord/preds_external"))


def spider_lines(path):
    text = path.read_text(encoding="utf-8", errors="replace").replace("\r\n", "\n")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [l.split("\t")[0].strip() for l in lines]


def spider_jobs(out, gold, pred_file, label):
    preds = spider_lines(pred_file)
    if len(preds) != len(gold):
        print(f"skip {pred_file}: {len(preds)} lines for {len(gold)} questions", file=sys.stderr)
        return 0
    db_dir = DATA / "spider" / "database"
    for i, ((gsql, db), p) in enumerate(zip(gold, preds)):
        if p:
            out.append({"bench": "spider", "db": str(db_dir / db / f"{db}.sqlite"), "sql": p, "gold": gsql,
                        "src": f"{label}:{i + 1}"})
    return 1


def main():
    out = []
    gold = [tuple(l.split("\t")) for l in (DATA / "spider" / "dev_gold.sql").read_text().splitlines() if l.strip()]
    systems = 0
    for d in sorted((DATA / "preds" / "spider_dev").iterdir()):
        for name in ("pred.txt", "pred.sql", "pred.derived.sql"):
            if (d / name).is_file() and d.name != "taoyds_pred_example":
                systems += spider_jobs(out, gold, d / name, f"shared/{d.name}/{name}")
    external = 0
    if EXTERNAL.is_dir():
        for f in sorted(EXTERNAL.rglob("*")):
            if f.is_file() and f.suffix in (".sql", ".txt") and "expected" not in f.relative_to(EXTERNAL).parts:
                external += spider_jobs(out, gold, f, f"external/{f.relative_to(EXTERNAL)}")
    bird = 0
    bgold = [l.split("\t") for l in (DATA / "bird" / "minidev" / "mini_dev_sqlite_gold.sql").read_text().splitlines() if l.strip()]
    for f in sorted((DATA / "preds" / "bird_minidev").rglob("*.json")):
        if "sqlite" not in f.name.lower() or f.name == "SOURCE.json":
            continue
        bird += 1
        for k, v in json.load(open(f)).items():
            sql, _, db = v.rpartition("\t----- bird -----\t")
            g = bgold[int(k)][0] if int(k) < len(bgold) else ""
            out.append({"bench": "bird", "db": str(DATA / "bird" / "dev_databases" / db / f"{db}.sqlite"), "sql": sql,
                        "gold": g, "src": f"shared/{f.relative_to(DATA / 'preds')}:{k}"})
    s2 = 0
    local = {}
    for l in (DATA / "spider2lite" / "spider2-lite.local.jsonl").read_text().splitlines():
        e = json.loads(l)
        local[e["instance_id"]] = e["db"]
    for f in sorted((DATA / "preds" / "spider2lite_local").rglob("*.sql")):
        if f.stem in local:
            s2 += 1
            out.append({"bench": "plain", "db": str(DATA / "spider2lite" / "databases" / f"{local[f.stem]}.sqlite"),
                        "sql": f.read_text(errors="replace"), "gold": "", "src": f"shared/{f.relative_to(DATA / 'preds')}"})
    with open(sys.argv[1], "w") as o:
        for j in out:
            o.write(json.dumps(j) + "\n")
    print(f"{len(out)} statements: {systems} shared Spider dev systems, {external} external Spider dev files, "
          f"{bird} BIRD Mini-Dev files, {s2} Spider 2.0-Lite answers", file=sys.stderr)


if __name__ == "__main__":
    main()
