#!/usr/bin/env python3
"""`sqlgrade spider2` run records, shards, merge and many systems in one pass (ctest runs.python.spider2).

On a fixture built here (SQLite database from SQL, gold CSVs, three systems' predictions):
- `--json` writes a run record that validates against docs/run-record.schema.json and that
  sqlgrade's own reader accepts (`sqlgrade diff`); its summary_text is the printed text, its
  summary the printed numbers, its instances the printed per-instance scores;
- `--shard i/n` grades exactly the ids shard_of assigns (computed here, independently), and
  `sqlgrade merge` of the shards prints and records what grading everything at once does
  (official mode, --v2 and --strict);
- several `--result_dir` in one pass: each system's table byte-identical to grading it alone, the
  same output files, one run record per system in --json-dir, identical (db, SQL) executed once;
  colliding outputs refused with exit 2 before anything is written.
With SQLGRADE_DATA: the same on the real Spider 2.0-Lite local predictions.
Exit 77 (skipped) when jsonschema is not installed.
"""
import json
import os
import shutil
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, require_jsonschema, run_cli as run, schema_checker, shard_of, verdict  # noqa: E402
import data_rule  # noqa: E402

jsonschema = require_jsonschema()

DATA = data_rule.root()


def spit(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


IDS = [f"local{900 + k}" for k in range(14)]
# What the fixture's systems score, worked out from fixture() by hand: the gold of id k is k % 4;
# A fails k = 3 and 10 (no_such_table); B's own statements replace k = 0, 5, 10 (right), so it fails
# only k = 3; C is one off everywhere.
CORRECT = {"A": 12, "B": 13, "C": 0}


def fixture(tmp):
    gold = os.path.join(tmp, "gold")
    os.makedirs(os.path.join(gold, "exec_result"))
    os.makedirs(os.path.join(tmp, "databases"))
    con = sqlite3.connect(os.path.join(tmp, "databases", "shop.sqlite"))
    con.executescript("CREATE TABLE t(id INTEGER, name TEXT, price REAL);"
                      "INSERT INTO t VALUES (1,'a',1.5),(2,'b',NULL),(3,'c',2.25);")
    con.commit()
    con.close()
    evals, meta = [], []
    for k, i in enumerate(IDS):
        evals.append(json.dumps({"instance_id": i, "condition_cols": [], "ignore_order": True}))
        meta.append(json.dumps({"instance_id": i, "db": "shop"}))
        spit(os.path.join(gold, "exec_result", f"{i}.csv"), f"n\n{k % 4}\n")
    spit(os.path.join(gold, "spider2lite_eval.jsonl"), "\n".join(evals) + "\n")
    spit(os.path.join(tmp, "spider2-lite.jsonl"), "\n".join(meta) + "\n")
    # Three systems; A and B share most statements, C differs; some errors and wrong answers.
    systems = {}
    for name, shift in (("A", 0), ("B", 0), ("C", 1)):
        d = os.path.join(tmp, "preds", name)
        os.makedirs(d)
        for k, i in enumerate(IDS):
            if name == "B" and k % 5 == 0:
                sql = f"SELECT {k % 4} + 0 AS n"  # B's own (still right) statement
            elif k % 7 == 3:
                sql = "SELECT * FROM no_such_table"
            else:
                sql = f"SELECT {(k + shift) % 4} AS n"
            spit(os.path.join(d, f"{i}.sql"), f"```sql\n{sql}\n```\n")
        systems[name] = d
    return gold, systems


def base_args(tmp, gold):
    return ["spider2", "--mode", "sql", "--gold_dir", gold, "--db_dir", os.path.join(tmp, "databases"),
            "--meta", os.path.join(tmp, "spider2-lite.jsonl"), "--no-progress", "--errors_log", ""]


def main():
    valid = schema_checker(jsonschema)

    with tempfile.TemporaryDirectory() as tmp:
        gold, systems = fixture(tmp)
        base = base_args(tmp, gold)
        for extra, label in (([], "official"), (["--v2", "--strict"], "--v2 --strict")):
            # Whole run, alone.
            out = os.path.join(tmp, "whole.json")
            r = run(*base, *extra, "--result_dir", systems["A"], "--json", out)
            check(r.returncode == 0, f"{label}: whole run exits 0 ({r.stderr.strip()[:200]})")
            rec = json.load(open(out, encoding="utf-8"))
            valid(rec, f"{label}: spider2 --json")
            check(rec["benchmark"] == "spider2" and rec["system"] == "A", f"{label}: benchmark and system")
            check(rec["summary_text"] == r.stdout, f"{label}: summary_text is the printed text")
            check([x["id"] for x in rec["instances"]] == IDS, f"{label}: one instance per id, in order")
            if not extra:
                line = next(x for x in r.stdout.splitlines() if x.startswith("{'"))
                printed = {i: int(s) for i, s in (p.split(": ") for p in line.strip("{}").replace("'", "").split(", "))}
                check(printed == {x["id"]: int(x["scores"]["ex"]) for x in rec["instances"]}, f"{label}: ex = printed score")
            check(rec["summary"]["correct"] == sum(x["scores"]["ex"] for x in rec["instances"]), f"{label}: summary.correct")
            if not extra:
                check(rec["summary"]["correct"] == CORRECT["A"] and
                      f"Correct examples: {CORRECT['A']}, Total examples: {len(IDS)}" in r.stdout,
                      f"{label}: A scores {CORRECT['A']}/{len(IDS)}")
            check(all(x["category"] == {"db": "shop"} for x in rec["instances"]), f"{label}: db category")
            right = [x for x in rec["instances"] if x["scores"]["ex"] == 1]
            check(right and all(x["rows"]["gold"] == x["rows"]["pred"] == [[str(IDS.index(x["id"]) % 4)]] and
                                x["rows"]["gold_columns"] == ["n"] and x["rows"]["truncated"] is False for x in right),
                  f"{label}: first rows of gold and prediction kept")
            failed = [x for x in rec["instances"] if x["scores"]["ex"] == 0]
            check(failed and all(x.get("failure_reason") for x in failed), f"{label}: every 0 has a failure reason")
            if extra:
                check(rec["primary_metric"] == "v2_score" and "row_f1" in rec["instances"][0]["scores"], f"{label}: v2 metrics")
            r2 = run("diff", out, out)
            check(r2.returncode == 0, f"{label}: sqlgrade's reader accepts the record ({r2.stderr.strip()[:200]})")

            # Shards, then merge.
            parts = []
            for i in (1, 2, 3):
                p = os.path.join(tmp, f"part{i}.json")
                rs = run(*base, *extra, "--result_dir", systems["A"], "--shard", f"{i}/3", "--json", p)
                check(rs.returncode == 0, f"{label}: shard {i}/3 exits 0 ({rs.stderr.strip()[:200]})")
                pr = json.load(open(p, encoding="utf-8"))
                want = [x for x in IDS if shard_of(x, 3) == i - 1]
                check([x["id"] for x in pr["instances"]] == want and pr["shard"] == {"index": i, "count": 3},
                      f"{label}: shard {i}/3 holds exactly its ids ({len(want)})")
                check(pr["summary_text"] == rs.stdout, f"{label}: shard {i}/3 summary_text is its printed text")
                valid(pr, f"{label}: shard {i}/3 record")
                parts.append(p)
            merged = os.path.join(tmp, "merged.json")
            rm = run("merge", *parts, "-o", merged)
            check(rm.returncode == 0, f"{label}: merge exits 0 ({rm.stderr.strip()[:200]})")
            mr = json.load(open(merged, encoding="utf-8"))
            check(rm.stdout == r.stdout, f"{label}: merge prints the whole run's text")
            check(mr["summary"] == rec["summary"], f"{label}: merged summary equals the whole run's")
            check(mr["summary_text"] == rec["summary_text"], f"{label}: merged summary_text equals the whole run's")
            valid(mr, f"{label}: merged record")

        # Many systems in one pass vs each alone.
        alone = {}
        for name, d in systems.items():
            r = run(*base, "--result_dir", d)
            alone[name] = (r.stdout, open(d + "-ids.csv").read(), sorted(os.listdir(d + "_csv")))
            shutil.rmtree(d + "_csv")
            os.remove(d + "-ids.csv")
        jd = os.path.join(tmp, "runs")
        args = [*base]
        for d in systems.values():
            args += ["--result_dir", d]
        r = run(*args, "--json-dir", jd)
        check(r.returncode == 0, f"many systems: exits 0 ({r.stderr.strip()[:200]})")
        chunks = {}
        for block in ("\n" + r.stdout).split("\n==> ")[1:]:
            head, _, body = block.partition(" <==\n")
            chunks[head] = body
        for name, d in systems.items():
            check(chunks.get(d) == alone[name][0], f"many systems: {name}'s table byte-identical to grading it alone")
            check(open(d + "-ids.csv").read() == alone[name][1], f"many systems: {name}'s ids CSV identical")
            check(sorted(os.listdir(d + "_csv")) == alone[name][2], f"many systems: {name}'s CSV folder identical")
            rec = json.load(open(os.path.join(jd, f"{name}.json"), encoding="utf-8"))
            check(rec["system"] == name and rec["summary_text"] == alone[name][0], f"many systems: {name}.json in --json-dir")
            check(rec["summary"]["correct"] == CORRECT[name] and
                  f"Correct examples: {CORRECT[name]}, Total examples: {len(IDS)}" in alone[name][0],
                  f"many systems: {name} scores {CORRECT[name]}/{len(IDS)}")
            valid(rec, f"many systems: {name}.json")
        ra, rc = os.path.join(jd, "A.json"), os.path.join(jd, "C.json")
        d = run("diff", ra, rc, "--json")
        dj = json.loads(d.stdout) if d.returncode == 0 else {}
        check(d.returncode == 0 and "ex" in json.dumps(dj), f"many systems: sqlgrade diff A C ({d.stderr.strip()[:200]})")
        rep = run("report", ra, rc, "-o", os.path.join(tmp, "r.html"))
        check(rep.returncode == 0, f"many systems: sqlgrade report A C ({rep.stderr.strip()[:200]})")
        # Distinct statements over the three systems, counted here.
        distinct = set()
        for d in systems.values():
            for i in IDS:
                distinct.add(open(os.path.join(d, f"{i}.sql")).read())
        check(f"{len(distinct)} distinct (db, SQL) executed" in r.stderr,
              f"many systems: identical (db, SQL) executed once ({len(distinct)} of {3 * len(IDS)}): {r.stderr.strip()}")

        # Collisions: refused before anything is written.
        other = os.path.join(tmp, "other", "A")
        shutil.copytree(systems["A"], other)
        for args2, what in (([systems["A"], systems["A"] + "/../A"], "one folder twice"),):
            a2 = [*base]
            for d in args2:
                a2 += ["--result_dir", d]
            rr = run(*a2)
            check(rr.returncode == 2 and "collide" in rr.stderr, f"collision refused: {what} ({rr.stderr.strip()})")
        rr = run(*base, "--result_dir", systems["A"], "--result_dir", other, "--json-dir", os.path.join(tmp, "jd2"))
        check(rr.returncode == 2 and not os.path.exists(os.path.join(tmp, "jd2")) and not os.path.exists(other + "-ids.csv"),
              f"collision refused: two folders named A with --json-dir ({rr.stderr.strip()})")
        rr = run(*base, "--result_dir", systems["A"], "--result_dir", other, "--json", os.path.join(tmp, "x.json"))
        check(rr.returncode == 2 and "--json-dir" in rr.stderr, f"--json with several systems refused ({rr.stderr.strip()})")
        both = (os.path.join(tmp, "both.json"), os.path.join(tmp, "both_dir"))
        rr = run(*base, "--result_dir", systems["A"], "--json", both[0], "--json-dir", both[1])
        check(rr.returncode == 2 and "give either --json or --json-dir" in rr.stderr and
              not any(os.path.exists(x) for x in both), f"--json with --json-dir refused ({rr.stderr.strip()})")

    real_data_checks(valid)
    return verdict("spider2 run records, shards, merge and many systems: all checks passed")


def real_data_checks(valid):
    s2 = os.path.join(DATA, "spider2lite")
    preds = os.path.join(DATA, "preds", "spider2lite_local")
    if not data_rule.script_part("the real-data checks", "spider2lite", "preds/spider2lite_local"):
        return
    with tempfile.TemporaryDirectory() as tmp:
        dirs = []
        for name, sub in (("qwen3", "qwen3-30b-a3b-thinking_nemo-gym"), ("xlang", "xlang_example_submission/sql_mode")):
            if os.path.isdir(os.path.join(preds, sub)):
                d = os.path.join(tmp, name)
                shutil.copytree(os.path.join(preds, sub), d)
                dirs.append(d)
        base = ["spider2", "--mode", "sql", "--gold_dir", os.path.join(s2, "gold"), "--db_dir",
                os.path.join(s2, "databases"), "--meta", os.path.join(s2, "spider2-lite.jsonl"), "--no-progress",
                "--errors_log", "", "--v2"]
        alone = {}
        for d in dirs:
            r = run(*base, "--result_dir", d, "--json", d + ".whole.json")
            alone[d] = r.stdout
            valid(json.load(open(d + ".whole.json")), f"real: {os.path.basename(d)} record")
        args = [*base]
        for d in dirs:
            args += ["--result_dir", d]
        r = run(*args, "--json-dir", os.path.join(tmp, "runs"))
        for d in dirs:
            check(f"==> {d} <==\n{alone[d]}" in r.stdout, f"real: {os.path.basename(d)} table identical in one pass")
        d = dirs[0]
        parts = []
        for i in (1, 2):
            p = os.path.join(tmp, f"p{i}.json")
            run(*base, "--result_dir", d, "--shard", f"{i}/2", "--json", p)
            parts.append(p)
        rm = run("merge", *parts, "-o", os.path.join(tmp, "m.json"))
        check(rm.returncode == 0 and rm.stdout == alone[d], f"real: merged shards print the whole run ({rm.stderr.strip()[:200]})")
        # --shard-by db: every task of a database in one shard (its db from spider2-lite.jsonl), merged = whole.
        whole = json.load(open(d + ".whole.json"))
        db_parts, where = [], {}
        for i in (1, 2, 3):
            p = os.path.join(tmp, f"db{i}.json")
            rs = run(*base, "--result_dir", d, "--shard", f"{i}/3", "--shard-by", "db", "--json", p)
            check(rs.returncode == 0, f"real: shard {i}/3 by db exits 0 ({rs.stderr.strip()[:200]})")
            pr = json.load(open(p, encoding="utf-8"))
            check(pr["shard"] == {"index": i, "count": 3, "by": "db"} and
                  all(shard_of(x["category"]["db"], 3) == i - 1 for x in pr["instances"]),
                  f"real: shard {i}/3 by db holds the tasks of its databases ({len(pr['instances'])})")
            for x in pr["instances"]:
                where.setdefault(x["category"]["db"], set()).add(i)
            db_parts.append(p)
        check(len(where) > 1 and all(len(s) == 1 for s in where.values()), f"real: {len(where)} databases, each in one shard")
        rm = run("merge", *db_parts, "-o", os.path.join(tmp, "mdb.json"))
        mdb = json.load(open(os.path.join(tmp, "mdb.json"))) if rm.returncode == 0 else {}
        check(rm.returncode == 0 and rm.stdout == alone[d] and mdb["summary"] == whole["summary"],
              f"real: merged shards by db = the whole run ({rm.stderr.strip()[:200]})")


if __name__ == "__main__":
    sys.exit(main())
