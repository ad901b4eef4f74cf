#!/usr/bin/env python3
"""Add the question texts of dev.json (and a system label) to a `sqlgrade spider --json` run record.

A test tool only: `sqlgrade spider --json` writes the run record (docs/run-record.schema.json) itself
but does not read dev.json; the report's browser test wants the questions in its drill-down. The
older per-example JSON (before issue 15 phase 2) is still converted into a record.

usage: spider_json_to_run.py SPIDER.json OUT.json --gold G --pred P [--table T] [--dev dev.json]
                             [--system NAME] [--text printed-table.txt]
"""
import argparse
import hashlib
import json
import os
import platform
import socket
import sys
import time


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 16), b""):
            h.update(chunk)
    return h.hexdigest()


def annotate(src, args):
    """A run record already: add questions (by instance id = question index) and the system label."""
    if args.dev:
        with open(args.dev, encoding="utf-8") as f:
            dev = json.load(f)
        for inst in src["instances"]:
            i = int(inst["id"])
            if i < len(dev) and dev[i].get("question"):
                inst["question"] = dev[i]["question"]
    if args.system:
        src["system"] = args.system
    return src


def convert(src, args):
    if src.get("schema") == "sqlgrade-run":
        return annotate(src, args)
    metrics = []
    if src["etype"] in ("exec", "all"):
        metrics.append({"name": "exec", "kind": "binary", "label": "Execution accuracy"})
    if src["etype"] in ("match", "all"):
        metrics.append({"name": "exact", "kind": "binary", "label": "Exact set match"})
    questions = None
    if args.dev:
        with open(args.dev, encoding="utf-8") as f:
            dev = json.load(f)
        if len(dev) == len(src["examples"]):
            questions = [d.get("question") for d in dev]
    inputs = [{"role": "gold", "side": "gold", "path": args.gold, "sha256": sha256(args.gold)},
              {"role": "pred", "side": "pred", "path": args.pred, "sha256": sha256(args.pred)}]
    if args.table:
        inputs.append({"role": "table", "side": "gold", "path": args.table, "sha256": sha256(args.table)})
    instances = []
    for e in src["examples"]:
        inst = {"id": str(e["index"]), "scores": {}, "category": {}}
        if "hardness" in e:
            inst["category"]["hardness"] = e["hardness"]
        if questions:
            inst["question"] = questions[e["index"]]
        inst["gold_sql"] = e["gold"]
        inst["pred_sql"] = e["pred"]
        for m in metrics:
            if m["name"] in e:
                inst["scores"][m["name"]] = e[m["name"]]
        reason = None
        if "gold_error" in e:
            reason = "gold error: " + e["gold_error"]
        elif e.get("exec") == 0:
            reason = e.get("exec_reason", "results differ")
        elif not e.get("pred_parsed", True):
            reason = "does not parse with the Spider grammar: " + e.get("parse_error", "")
        if reason:
            inst["failure_reason"] = reason
        inst["time_s"] = e.get("exec_seconds", 0) + e.get("parse_seconds", 0)
        inst["detail"] = {k: e[k] for k in ("interaction", "turn", "gold_line", "pred_line", "db_id", "pred_parsed", "components")
                          if k in e}
        instances.append(inst)
    text = None
    if args.text:
        with open(args.text, encoding="utf-8", errors="replace") as f:
            text = f.read()
    return {
        "schema": "sqlgrade-run",
        "schema_version": 1,
        "tool": {"name": "sqlgrade", "version": "0.1.0"},
        "command": ["sqlgrade", "spider", "--gold", args.gold, "--pred", args.pred, "--etype", src["etype"],
                    "--compat", src["compat"]],
        "benchmark": "spider",
        "system": args.system or os.path.basename(os.path.dirname(os.path.abspath(args.pred))),
        "metrics": metrics,
        "primary_metric": metrics[0]["name"],
        "options": {"compat": src["compat"], "etype": src["etype"]},
        "inputs": inputs,
        "engines": {},
        "timeout_s": 30.0,
        "machine": {"host": socket.gethostname(), "os": f"{platform.system()} {platform.release()} {platform.machine()}",
                    "cores": os.cpu_count() or 0},
        "started_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "wall_s": src["timings"]["parse_match_seconds"] + src["timings"]["exec_seconds"],
        "category_axes": [{"name": "hardness", "values": ["easy", "medium", "hard", "extra"]}],
        "warnings": src.get("warnings", []),
        "summary": src["summary"],
        "summary_text": text,
        "instances": instances,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("out")
    ap.add_argument("--gold", required=True)
    ap.add_argument("--pred", required=True)
    ap.add_argument("--table")
    ap.add_argument("--dev")
    ap.add_argument("--system")
    ap.add_argument("--text")
    args = ap.parse_args()
    with open(args.src, encoding="utf-8") as f:
        src = json.load(f)
    rec = convert(src, args)
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(rec, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
