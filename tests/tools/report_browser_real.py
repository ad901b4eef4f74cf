#!/usr/bin/env python3
"""The real-data part of the report browser test (report_browser_test.py, ctest runs.browser.report):
the five Spider dev systems and two BIRD Mini-Dev baselines graded by the CLI with --name, their
reports checked like the synthetic one (filters against the records, the diff, the layout, the
drill-down) and the README's screenshots taken. Skipped, part by part, without the data. `t` is the
main test module (its CLI runner, the page checks and the data root)."""
import json
import os

import data_rule
import webdriver
from checks import check

SPIDER_SYSTEMS = [("C3 (GPT-3.5)", "c3sql_gpt35/pred.txt"), ("DAIL-SQL (GPT-4)", "dail-sql_gpt4/pred.txt"),
                  ("DIN-SQL (GPT-4)", "din-sql_gpt4/pred.derived.sql"), ("Graphix-3B + PICARD", "graphix-3b_picard/pred.sql"),
                  ("RESDSQL-3B", "resdsql-3b/pred.sql")]
BIRD_SYSTEMS = [("GPT-4 (KG)", "official_baselines_sql_output_kg/predict_mini_dev_gpt-4_sqlite.json"),
                ("GPT-3.5-turbo (KG)", "official_baselines_sql_output_kg/predict_mini_dev_gpt-35-turbo_sqlite.json")]


def spider_runs(t, tmp):
    """The five real Spider dev systems, graded in one pass by the CLI with --name (records as the CLI
    writes them: questions from dev.json beside the gold, first result rows); None without the data."""
    data = t.data_root()
    sp = os.path.join(data, "spider")
    if not data_rule.script_part("the Spider part", "spider", *[os.path.join("preds", "spider_dev", p) for _, p in SPIDER_SYSTEMS]):
        return None
    preds = [os.path.join(data, "preds", "spider_dev", p) for _, p in SPIDER_SYSTEMS]
    out = os.path.join(tmp, "spider-records")
    args = ["spider", "--gold", os.path.join(sp, "dev_gold.sql"), "--db", os.path.join(sp, "database"),
            "--table", os.path.join(sp, "tables.json"), "--etype", "all", "--json-dir", out, "--quiet", "--no-progress"]
    for (name, _), p in zip(SPIDER_SYSTEMS, preds):
        args += ["--pred", p, "--name", name]
    text = t.sqlgrade(*args)
    check(all(f"==> {name} (" in text for name, _ in SPIDER_SYSTEMS), "spider: each system's table is headed by its name")
    return [os.path.join(out, name.replace(" ", "_").replace("(", "_").replace(")", "_").replace("+", "_") + ".json")
            for name, _ in SPIDER_SYSTEMS]


def bird_runs(t, tmp):
    """Two BIRD Mini-Dev baselines graded by the CLI with --name; None without the data."""
    data = t.data_root()
    preds = [os.path.join(data, "preds", "bird_minidev", p) for _, p in BIRD_SYSTEMS]
    gold = os.path.join(data, "bird", "minidev", "mini_dev_sqlite_gold.sql")
    qfile = os.path.join(data, "expected", "bird", "inputs", "minidev.mini_dev_sqlite.jsonl")
    if not data_rule.script_part("the BIRD part", "bird/minidev/mini_dev_sqlite_gold.sql",
                                 "expected/bird/inputs/minidev.mini_dev_sqlite.jsonl",
                                 *[os.path.join("preds", "bird_minidev", p) for _, p in BIRD_SYSTEMS]):
        return None
    out = os.path.join(tmp, "bird-records")
    args = ["bird", "--ground_truth_path", gold, "--db_root_path", os.path.join(data, "bird", "dev_databases"),
            "--diff_json_path", qfile, "--json-dir", out, "--quiet", "--no-progress"]
    for (name, _), p in zip(BIRD_SYSTEMS, preds):
        args += ["--predicted_sql_path", p, "--name", name]
    t.sqlgrade(*args)
    return [os.path.join(out, name.replace(" ", "_").replace("(", "_").replace(")", "_") + ".json") for name, _ in BIRD_SYSTEMS]


def test_spider(b, tmp, out, shots, t):
    files = spider_runs(t, tmp)
    if not files:
        print("skip spider part: Spider data not found (set SQLGRADE_DATA)")
        return False
    recs = [json.load(open(f, encoding="utf-8")) for f in files]
    check([r["system"] for r in recs] == [n for n, _ in SPIDER_SYSTEMS], "spider: the records carry the --name of each system")
    first = recs[0]["instances"][0]
    check(first.get("question", "").startswith("How many singers"), f"spider: questions from dev.json ({first.get('question')})")
    check(first.get("rows", {}).get("gold") is not None, "spider: records keep the first gold rows")
    check(any((i.get("time_s") or 0) > 0 for i in recs[0]["instances"]), "spider: per-instance times are measured")
    html = os.path.join(out, "spider-report.html")
    t.sqlgrade("report", *files, "-o", html)
    b.open(html)
    check(not t.console_errors(b), "spider: no console errors")
    check(b.js("return document.title") == "spider: " + " vs ".join(n for n, _ in SPIDER_SYSTEMS), "spider: title from the names")
    t.check_layout(b, "spider", len(files))
    t.set_select(b, "#inst-compare", "1")  # DAIL-SQL against C3, as in the README
    on_exec = t.check_filters(b, t.expected_counts(recs[0], recs[1], "exec"), "spider (exec)", "exec")
    on_exact = t.check_filters(b, t.expected_counts(recs[0], recs[1], "exact"), "spider (exact)", "exact")
    check(on_exec["failed"] != on_exact["failed"], "spider: failed exec and failed exact are different filters")
    t.set_select(b, "#inst-metric", "exec")
    t.check_against_diff(b, files[:2], "spider")
    b.js("window.scrollTo(0, 0)")
    b.screenshot(os.path.join(shots, "report-overview.png"))
    b.screenshot(os.path.join(shots, "report-comparison.png"), b.find("#comparison"))
    b.click(b.find('button[data-filter="regressed"]'))
    b.js("document.getElementById('instance-section').scrollIntoView()")
    detail = t.open_first_row(b)
    check("SELECT" in b.js("return arguments[0].querySelector('pre.sql.gold').textContent", {webdriver.ELEMENT: detail}),
          "spider: drill-down shows the gold SQL")
    check(len(b.find_all("#instances tr.detail .rows-wrap table")) >= 2, "spider: drill-down shows gold and predicted rows")
    check(b.js("return arguments[0].querySelector('.question') !== null", {webdriver.ELEMENT: detail}), "spider: drill-down shows the question")
    b.js("document.getElementById('instance-section').scrollIntoView()")
    b.screenshot(os.path.join(shots, "report-instances.png"))
    check(not t.console_errors(b), "spider: no console errors after interaction")
    return True


def test_bird(b, tmp, out, shots, t):
    files = bird_runs(t, tmp)
    if not files:
        print("skip BIRD part: BIRD Mini-Dev data not found (set SQLGRADE_DATA)")
        return
    recs = [json.load(open(f, encoding="utf-8")) for f in files]
    check(all(i.get("question") for i in recs[0]["instances"]), "bird: every instance has its question")
    html = os.path.join(out, "bird-minidev-report.html")
    t.sqlgrade("report", *files, "-o", html)
    b.open(html)
    check(not t.console_errors(b), "bird: no console errors")
    t.check_layout(b, "bird", len(files))
    total = recs[0]["summary"]["total"]["score"]
    big = b.js("return document.querySelector('.card .big').textContent")
    check(big == f"{total:.2f}", f"bird: headline {big} is the official table's total {total:.2f}")
    t.check_against_diff(b, files, "bird")
    b.js("window.scrollTo(0, 0)")
    b.screenshot(os.path.join(shots, "report-bird.png"))
