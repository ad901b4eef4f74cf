#!/usr/bin/env python3
"""`sqlgrade uda run --json`, `--shard i/n` and `sqlgrade merge` (ctest runs.python.uda).

On the Shop fixture (tests/fixtures/uda/Shop, copied to a temporary folder) with a perfect system
made by `uda gold --as-result`, then damaged (a missing result, an unreadable one, wrong cells):
- the run record validates against docs/run-record.schema.json and sqlgrade's reader accepts it;
  its summary_text is the printed table, one instance per statement with the statement path as id,
  scores equal to each acc.json, per-column P/R/F1, categories dataset and task; a missing or
  unreadable result scores 0 with a reason;
- shards hold exactly the paths shard_of assigns (computed here), each shard's summary.json covers
  only its statements, and `sqlgrade merge` of the shards prints and records what the whole run does;
- `sqlgrade report` of the record shows the per-column table.
With SQLGRADE_DATA: the same whole-vs-merged check on the real Player dataset (a perfect system from
`uda gold --as-result` with every 7th result removed), outputs in a temporary folder.
Exit 77 (skipped) when jsonschema is not installed.
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import SRC, check, report_data, require_jsonschema, run_cli as run, schema_checker, shard_of, verdict  # noqa: E402
import data_rule  # noqa: E402

jsonschema = require_jsonschema()


def main():
    valid = schema_checker(jsonschema)

    with tempfile.TemporaryDirectory() as tmp:
        ds = os.path.join(tmp, "Shop")
        shutil.copytree(os.path.join(SRC, "tests", "fixtures", "uda", "Shop"), ds)
        res = os.path.join(tmp, "sys")
        r = run("uda", "gold", "--dataset-dir", ds, "--out", res, "--as-result")
        check(r.returncode == 0, f"uda gold --as-result ({r.stderr.strip()[:200]})")
        root = os.path.join(res, "Shop")
        os.remove(os.path.join(root, "Select", "select_queries", "2", "result.csv"))        # missing
        with open(os.path.join(root, "Filter", "filter_queries", "2", "result.csv"), "w") as f:  # unreadable
            f.write('a,b\n"unterminated\n')
        p = os.path.join(root, "Agg", "agg_queries", "1", "result.csv")                     # wrong cells
        lines = open(p).read().splitlines()
        lines[1] = ",".join(c if k == 0 else "12345" for k, c in enumerate(lines[1].split(",")))
        open(p, "w").write("\n".join(lines) + "\n")

        whole = os.path.join(tmp, "whole.json")
        r = run("uda", "run", "--dataset-dir", ds, "--results", res, "--json", whole)
        check(r.returncode == 0, f"uda run --json exits 0 ({r.stderr.strip()[:200]})")
        rec = json.load(open(whole, encoding="utf-8"))
        valid(rec, "uda run --json")
        check(run("diff", whole, whole).returncode == 0, "sqlgrade's reader accepts the record")
        check(rec["benchmark"] == "uda" and rec["primary_metric"] == "macro_f1", "benchmark and primary metric")
        check(rec["summary_text"] == r.stdout, "summary_text is the printed table")
        summary = json.load(open(os.path.join(root, "summary.json")))
        check(rec["summary"]["datasets"]["Shop"]["overall"] == summary["overall"], "summary = summary.json's overall numbers")
        paths = sorted(q["path"] for q in summary["queries"])
        check(sorted(x["id"] for x in rec["instances"]) == paths and len(paths) == 6, "one instance per statement, id = its path")
        for x in rec["instances"]:
            acc_p = os.path.join(res, x["id"], "acc_result", "acc.json")
            if os.path.exists(acc_p):
                acc = json.load(open(acc_p))
                check(x["scores"]["macro_f1"] == acc["macro_f1"] and x["scores"].get("row_f1") == acc["row_f1"],
                      f"{x['id']}: scores = acc.json", quiet=True)
                check(set((x.get("columns") or {}).keys()) == set(acc["columns"].keys()) and
                      all(x["columns"][c]["f1"] == acc["columns"][c]["f1"] for c in acc["columns"]),
                      f"{x['id']}: per-column P/R/F1 = acc.json", quiet=True)
            check(x["category"] == {"dataset": "Shop", "task": x["id"].split("/")[1]}, f"{x['id']}: categories", quiet=True)
        byid = {x["id"]: x for x in rec["instances"]}
        miss, bad = byid["Shop/Select/select_queries/2"], byid["Shop/Filter/filter_queries/2"]
        check(miss["scores"]["macro_f1"] == 0 and "missing_result" in miss["failure_reason"], "missing result: 0 with a reason")
        check(bad["scores"]["macro_f1"] == 0 and "result_error" in bad["failure_reason"], "unreadable result: 0 with a reason")
        check(0 < byid["Shop/Agg/agg_queries/1"]["scores"]["macro_f1"] < 1, "wrong cells: a partial score")

        # Shards and merge.
        parts = []
        for i in (1, 2, 3):
            p = os.path.join(tmp, f"part{i}.json")
            rs = run("uda", "run", "--dataset-dir", ds, "--results", res, "--shard", f"{i}/3", "--json", p)
            check(rs.returncode == 0, f"shard {i}/3 exits 0 ({rs.stderr.strip()[:200]})")
            pr = json.load(open(p, encoding="utf-8"))
            want = sorted(x for x in paths if shard_of(x, 3) == i - 1)
            check(sorted(x["id"] for x in pr["instances"]) == want and pr["shard"] == {"index": i, "count": 3},
                  f"shard {i}/3 holds exactly its statements ({len(want)})")
            sj = json.load(open(os.path.join(root, "summary.json")))
            check(sorted(q["path"] for q in sj["queries"]) == want, f"shard {i}/3: summary.json covers only its statements")
            valid(pr, f"shard {i}/3 record")
            parts.append(p)
        merged = os.path.join(tmp, "merged.json")
        rm = run("merge", *parts, "-o", merged)
        check(rm.returncode == 0, f"merge exits 0 ({rm.stderr.strip()[:200]})")
        mr = json.load(open(merged, encoding="utf-8"))
        check(rm.stdout == r.stdout, "merge prints the whole run's table")
        check(mr["summary"] == rec["summary"], "merged summary equals the whole run's")
        valid(mr, "merged record")
        # --shard-by db: the dataset places a statement (one dataset here: one shard holds all, the others none).
        db_parts = []
        for i in (1, 2, 3):
            p = os.path.join(tmp, f"db{i}.json")
            rs = run("uda", "run", "--dataset-dir", ds, "--results", res, "--shard", f"{i}/3", "--shard-by", "db", "--json", p)
            pr = json.load(open(p, encoding="utf-8")) if rs.returncode == 0 else {"instances": [], "shard": None}
            want = sorted(paths) if shard_of("Shop", 3) == i - 1 else []
            check(sorted(x["id"] for x in pr["instances"]) == want and pr["shard"] == {"index": i, "count": 3, "by": "db"},
                  f"shard {i}/3 by db holds the statements of its datasets ({len(want)}) ({rs.stderr.strip()[:200]})")
            db_parts.append(p)
        rm = run("merge", *db_parts, "-o", merged)
        mr = json.load(open(merged, encoding="utf-8")) if rm.returncode == 0 else {}
        check(rm.returncode == 0 and rm.stdout == r.stdout and mr["summary"] == rec["summary"],
              f"merged shards by db = the whole run ({rm.stderr.strip()[:200]})")
        bad_by = run("uda", "run", "--dataset-dir", ds, "--results", res, "--shard", "1/3", "--shard-by", "table")
        check(bad_by.returncode == 2 and "--shard-by: expected id or db, got 'table'" in bad_by.stderr,
              f"bad --shard-by: exit 2 naming it ({bad_by.stderr.strip()})")
        bad_shard = run("uda", "run", "--dataset-dir", ds, "--results", res, "--shard", "4/3")
        check(bad_shard.returncode == 2 and "--shard" in bad_shard.stderr, f"bad --shard: exit 2 ({bad_shard.stderr.strip()})")

        # The report shows per-column P/R/F1.
        rr, data = report_data(whole, os.path.join(tmp, "r.html"))
        check(rr.returncode == 0, f"report exits 0 ({rr.stderr.strip()[:200]})")
        cols = {(c["group"], c["column"]) for c in (data or {}).get("uda_columns") or []}
        want = {("Shop", c) for x in rec["instances"] for c in (x.get("columns") or {})}
        check(want and want <= cols, f"report: per-dataset, per-column table covers every scored column ({len(want)})")
    real_data_checks(valid)
    return verdict("uda run records, shards and merge: all checks passed")


def real_data_checks(valid):
    ds = os.path.join(data_rule.root(), "uda-bench", "Query", "Player")
    if not data_rule.script_part("the real-data checks", "uda-bench/Query/Player"):
        return
    with tempfile.TemporaryDirectory() as tmp:
        res = os.path.join(tmp, "sys")
        r = run("uda", "gold", "--dataset-dir", ds, "--out", res, "--as-result")
        check(r.returncode == 0, f"real: uda gold --as-result ({r.stderr.strip()[:200]})")
        results = sorted(os.path.join(d, "result.csv") for d, _, fs in os.walk(res) if "result.csv" in fs)
        for p in results[::7]:
            os.remove(p)
        whole = os.path.join(tmp, "whole.json")
        r = run("uda", "run", "--dataset-dir", ds, "--results", res, "--json", whole)
        rec = json.load(open(whole, encoding="utf-8"))
        valid(rec, "real: Player record")
        check(len(rec["instances"]) == len(results) and rec["summary"]["overall"]["missing_results"] == len(results[::7]),
              f"real: {len(results)} statements, {len(results[::7])} missing results")
        parts = []
        for i in (1, 2, 3, 4):
            p = os.path.join(tmp, f"p{i}.json")
            run("uda", "run", "--dataset-dir", ds, "--results", res, "--shard", f"{i}/4", "--json", p)
            parts.append(p)
        rm = run("merge", *parts, "-o", os.path.join(tmp, "m.json"))
        mr = json.load(open(os.path.join(tmp, "m.json"), encoding="utf-8"))
        check(rm.returncode == 0 and rm.stdout == r.stdout and mr["summary"] == rec["summary"],
              f"real: merged 4 shards = the whole Player run ({rm.stderr.strip()[:200]})")


if __name__ == "__main__":
    sys.exit(main())
