#!/usr/bin/env python3
"""docs/run-record.schema.json against sqlgrade's reader and writer (ctest runs.python.schema).

- the schema is a valid JSON Schema (draft 2020-12), checked by Debian's python3-jsonschema;
- records written by sqlgrade's C++ writer (`sqlgrade merge` output) validate against it, and so do
  real `sqlgrade spider --json` and `sqlgrade bird --json` records when the data is present;
- broken records are rejected by both the schema and sqlgrade (exit 2, one line naming the file),
  and the constraints the schema cannot express are rejected by sqlgrade.
Exit 77 (skipped) when jsonschema is not installed.
"""
import copy
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import SRC, check, require_jsonschema, shard_of, verdict  # noqa: E402
from checks import run_cli as run  # noqa: E402
import data_rule  # noqa: E402

jsonschema = require_jsonschema()


def record(instances, shard=None):
    r = {"schema": "sqlgrade-run", "schema_version": 1, "tool": {"name": "sqlgrade", "version": "0.1.0"},
         "command": ["sqlgrade", "toy"], "benchmark": "toy", "system": "s",
         "metrics": [{"name": "exec", "kind": "binary", "label": "EX"}, {"name": "f1", "kind": "continuous"}],
         "primary_metric": "exec", "options": {"compat": "x"},
         "inputs": [{"role": "gold", "side": "gold", "path": "g.sql", "sha256": "0" * 64}, {"role": "pred", "side": "pred", "path": "p", "sha256": None}],
         "engines": {"sqlite": "3.40.1"}, "timeout_s": 30, "machine": {"host": "h", "os": "Linux", "cores": 2},
         "started_at": "2025-01-01T00:00:00Z", "wall_s": 1.25, "category_axes": [{"name": "hardness", "values": ["easy", "hard"]}],
         "warnings": [], "summary": {}, "summary_text": None, "instances": instances}
    if shard:
        r["shard"] = {"index": shard[0], "count": shard[1]}
    return r


def instances(n=40):
    out = []
    for i in range(n):
        inst = {"id": f"q{i}", "scores": {"exec": i % 2, "f1": i / n}, "category": {"hardness": "easy" if i % 3 else "hard"},
                "question": f"question {i}", "gold_sql": "SELECT 1", "pred_sql": None if i == 5 else "SELECT 2", "time_s": 0.5}
        if i % 2 == 0:
            inst["failure_reason"] = "results differ"
        if i == 3:
            inst["rows"] = {"gold": [[1, "a", None, True]], "pred": [], "truncated": False, "gold_columns": ["a", "b", "c", "d"]}
        if i == 4:
            inst["columns"] = {"name": {"precision": 1, "recall": 0.5, "f1": 0.6667}}
            inst["detail"] = {"anything": [1, 2]}
        out.append(inst)
    return out


def main():
    with open(os.path.join(SRC, "docs", "run-record.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    check(True, "schema is a valid draft 2020-12 JSON Schema")
    v = jsonschema.Draft202012Validator(schema)
    valid = lambda doc: not list(v.iter_errors(doc))  # noqa: E731

    with tempfile.TemporaryDirectory() as tmp:
        def write(name, doc):
            p = os.path.join(tmp, name)
            with open(p, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            return p

        # Written by sqlgrade: merge two shards.
        insts = instances()
        parts = []
        for k in (1, 2):
            parts.append(write(f"part{k}.json", record([i for i in insts if shard_of(i["id"], 2) == k - 1], (k, 2))))
        merged = os.path.join(tmp, "merged.json")
        r = run("merge", *parts, "-o", merged, "--quiet")
        check(r.returncode == 0, f"sqlgrade merge ran ({r.stderr.strip()})")
        with open(merged, encoding="utf-8") as f:
            doc = json.load(f)
        errors = [e.message for e in v.iter_errors(doc)]
        check(not errors, f"a record written by sqlgrade validates {errors[:2]}")
        check(len(doc["instances"]) == 40 and len(doc["merged_from"]) == 2, "merged record has all instances and both parts")

        # Real benchmark outputs: `sqlgrade spider --json` and `sqlgrade bird --json` write the record.
        data = data_rule.root()
        sp, pred = os.path.join(data, "spider"), os.path.join(data, "preds", "spider_dev", "resdsql-3b", "pred.sql")
        if data_rule.script_part("the real-data Spider part", "spider", "preds/spider_dev/resdsql-3b/pred.sql"):
            for etype, compat in (("match", "spider"), ("all", "test-suite")):
                raw = os.path.join(tmp, f"spider.{etype}.json")
                r = run("spider", "--gold", os.path.join(sp, "dev_gold.sql"), "--pred", pred, "--db", os.path.join(sp, "database"),
                        "--table", os.path.join(sp, "tables.json"), "--etype", etype, "--compat", compat, "--json", raw,
                        "--quiet", "--no-progress")
                check(r.returncode == 0, f"sqlgrade spider --etype {etype} --compat {compat} ran")
                with open(raw, encoding="utf-8") as f:
                    doc = json.load(f)
                check(valid(doc), f"the record of a real Spider run validates ({etype}, {compat})")
                check(len(doc["instances"]) == 1034 and doc["instances"][5]["id"] == "5", "one instance per question, id = index")
                r = run("diff", raw, raw, "--bootstrap", "10")
                check(r.returncode == 0, "sqlgrade reads the Spider run")
        bd = os.path.join(data, "bird")
        bpred = os.path.join(data, "preds", "bird_minidev", "official_baselines_sql_output_kg", "predict_mini_dev_gpt-4_sqlite.json")
        if data_rule.script_part("the real-data BIRD part", "bird/minidev", "bird/dev_databases",
                                 "preds/bird_minidev/official_baselines_sql_output_kg/predict_mini_dev_gpt-4_sqlite.json"):
            for metric in ("ex", "soft-f1"):
                raw = os.path.join(tmp, f"bird.{metric}.json")
                r = run("bird", "--predicted_sql_path", bpred, "--ground_truth_path", os.path.join(bd, "minidev", "mini_dev_sqlite_gold.sql"),
                        "--db_root_path", os.path.join(bd, "dev_databases"), "--diff_json_path",
                        os.path.join(bd, "minidev", "mini_dev_sqlite.json"), "--metric", metric, "--json", raw, "--quiet", "--no-progress")
                check(r.returncode == 0, f"sqlgrade bird --metric {metric} ran {r.stderr[:300]}")
                with open(raw, encoding="utf-8") as f:
                    doc = json.load(f)
                check(valid(doc), f"the record of a real BIRD run validates ({metric})")
                ids = [i["id"] for i in doc["instances"]]
                check(len(ids) == 500 and len(set(ids)) == 500 and "137#2" in ids, "BIRD ids unique, repeats get #2")

        good = record(instances())
        good_path = write("good.json", good)
        check(valid(good), "the synthetic record validates")
        check(run("diff", good_path, good_path, "--bootstrap", "10").returncode == 0, "sqlgrade reads the synthetic record")

        # Optional fields left out or null: both accept.
        lean = copy.deepcopy(good)
        for k in ("timeout_s", "category_axes", "warnings", "summary_text"):
            lean.pop(k)
        lean["instances"] = [{"id": "1", "scores": {}}, {"id": "2", "scores": {"exec": 1}, "category": None, "rows": None, "detail": None}]
        lean_path = write("lean.json", lean)
        check(valid(lean), "a minimal record validates")
        r = run("diff", lean_path, lean_path, "--bootstrap", "10")
        check(r.returncode == 0, f"sqlgrade reads the minimal record ({r.stderr.strip()})")

        def broken(name, change, schema_can=True):
            doc = copy.deepcopy(good)
            change(doc)
            path = write(name + ".json", doc)
            r = run("diff", path, good_path)
            one_line = r.returncode == 2 and r.stderr.count("\n") == 1 and path in r.stderr
            check(one_line, f"{name}: sqlgrade refuses it on one line ({r.stderr.strip()})")
            if schema_can:
                check(not valid(doc), f"{name}: the schema refuses it")

        broken("missing_instances", lambda d: d.pop("instances"))
        broken("wrong_schema_name", lambda d: d.update(schema="x"))
        broken("version_2", lambda d: d.update(schema_version=2))
        broken("unknown_top_field", lambda d: d.update(instance=[]))
        broken("unknown_instance_field", lambda d: d["instances"][0].update(score=1))
        broken("score_not_number", lambda d: d["instances"][0]["scores"].update(exec="1"))
        broken("empty_id", lambda d: d["instances"][0].update(id=""))
        broken("numeric_id", lambda d: d["instances"][0].update(id=3))
        broken("bad_sha", lambda d: d["inputs"][0].update(sha256="XYZ"))
        broken("bad_side", lambda d: d["inputs"][0].update(side="both"))
        broken("bad_kind", lambda d: d["metrics"][0].update(kind="ordinal"))
        broken("no_metrics", lambda d: d.update(metrics=[]))
        broken("negative_wall", lambda d: d.update(wall_s=-1))
        broken("negative_time", lambda d: d["instances"][0].update(time_s=-0.5))
        broken("nested_cell", lambda d: d["instances"][3]["rows"]["gold"][0].append([1]))
        broken("column_without_f1", lambda d: d["instances"][4]["columns"]["name"].pop("f1"))
        broken("shard_zero", lambda d: d.update(shard={"index": 0, "count": 2}))
        broken("detail_not_object", lambda d: d["instances"][0].update(detail=[1]))
        # Beyond what the schema can say (documented in its description): the reader refuses them.
        broken("binary_half", lambda d: d["instances"][0]["scores"].update(exec=0.5), schema_can=False)
        broken("duplicate_id", lambda d: d["instances"][1].update(id="q0"), schema_can=False)
        broken("undeclared_metric", lambda d: d["instances"][0]["scores"].update(bleu=1), schema_can=False)
        broken("primary_undeclared", lambda d: d.update(primary_metric="em"), schema_can=False)
        broken("shard_index_above_count", lambda d: d.update(shard={"index": 3, "count": 2}), schema_can=False)

    return verdict("schema and reader agree")


if __name__ == "__main__":
    sys.exit(main())
