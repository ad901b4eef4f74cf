#!/usr/bin/env python3
"""Browser test of `sqlgrade report` (ctest runs.browser.report).

Loads reports in Debian's headless Chromium through chromedriver (W3C WebDriver over HTTP, driven by
tests/tools/webdriver.py, stdlib only) and asserts: no console errors (a CSP violation, a network
attempt or a script error is one), hostile instance text is displayed literally and never runs,
each filter (All / Failed / Regressed / Improved / Different; Refuted on a --verify record,
report_browser_verify.py) shows the number of rows computed
here in Python from the run records, the search box narrows the rows, a click opens the drill-down
with the gold and predicted SQL and the first result rows. With the Spider data present
(SQLGRADE_DATA) it also grades two real Spider dev systems, converts their JSON into run records
(tests/tools/spider_json_to_run.py) and checks that report the same way.

Screenshots go to --out; set SQLGRADE_SCREENSHOT_DIR=docs/img to refresh the committed ones.
Exit 77 (ctest: skipped) when chromium or chromedriver is missing.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import webdriver  # noqa: E402
from report_browser_verify import test_verified  # noqa: E402
from checks import check, verdict  # noqa: E402

CLI = os.environ.get("SQLGRADE_CLI", "sqlgrade")
SRC = os.environ.get("SQLGRADE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
HOSTILE = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> & <b>bold</b> \u202e done'
def sqlgrade(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"sqlgrade {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r.stdout


def envelope(system, instances):
    return {"schema": "sqlgrade-run", "schema_version": 1, "tool": {"name": "sqlgrade", "version": "0.1.0"},
            "command": ["sqlgrade", "toy", "--pred", system], "benchmark": "toy", "system": system,
            "metrics": [{"name": "exec", "kind": "binary", "label": "Execution accuracy"},
                        {"name": "f1", "kind": "continuous", "label": "Soft F1"}],
            "primary_metric": "exec", "options": {}, "inputs": [{"role": "gold", "side": "gold", "path": "gold.sql", "sha256": "a" * 64}],
            "engines": {"sqlite": "3.40.1"}, "timeout_s": 30, "machine": {"host": "h", "os": "Linux", "cores": 2},
            "started_at": "2025-01-01T00:00:00Z", "wall_s": 1.0,
            "category_axes": [{"name": "hardness", "values": ["easy", "medium", "hard"]}],
            "summary": {}, "summary_text": f"{system}: printed table\n", "instances": instances}


def synthetic(tmp):
    """Two runs of 150 instances; returns their files and the records."""
    rnd = random.Random(7)
    golds = ["SELECT name FROM singer", "SELECT a FROM t JOIN u ON t.id = u.id", "SELECT c, count(*) FROM t GROUP BY c",
             "SELECT x FROM t WHERE y IN (SELECT y FROM u)", "SELECT a FROM t ORDER BY b LIMIT 3", "SELECT a FROM t UNION SELECT a FROM u"]
    runs = []
    for system in ("baseline-model", "new-model"):
        insts = []
        for i in range(150):
            exec_ = 1 if rnd.random() < (0.55 if system == "baseline-model" else 0.7) else 0
            inst = {"id": str(i), "scores": {"exec": exec_, "f1": round(rnd.random(), 3)},
                    "category": {"hardness": ["easy", "medium", "hard"][i % 3]},
                    "question": f"Question number {i}?", "gold_sql": golds[i % len(golds)],
                    "pred_sql": golds[i % len(golds)] if exec_ else f"SELECT wrong_{i} FROM t", "time_s": 0.001 * i}
            if not exec_:
                inst["failure_reason"] = "results differ"
            insts.append(inst)
        runs.append(insts)
    # Planted instances: a unique word, hostile text, kept result rows.
    runs[0][17]["question"] = runs[1][17]["question"] = "Which needle-xyz is unique?"
    for r in runs:
        r[23]["question"] = HOSTILE
        r[23]["rows"] = {"gold": [["Alice", 3], [None, 4.5]], "pred": [["<i>Bob</i>", 1]], "truncated": True,
                         "gold_columns": ["name", "n"], "pred_columns": ["name", "n"]}
    runs[1][23]["pred_sql"] = "SELECT '" + HOSTILE + "'"
    runs[1][23]["failure_reason"] = HOSTILE
    files = []
    for system, insts in zip(("baseline-model", "new-model"), runs):
        path = os.path.join(tmp, system + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(envelope(system, insts), f)
        files.append(path)
    return files, [envelope(s, i) for s, i in zip(("baseline-model", "new-model"), runs)]


def expected_counts(a, b):
    """Filter counts computed from the records (independently of the page's script)."""
    ia, ib = a["instances"], b["instances"]
    p = a["primary_metric"]
    counts = {"all": len(ia), "failed": 0, "regressed": 0, "improved": 0, "different": 0}
    for x, y in zip(ia, ib):
        sa, sb = x["scores"].get(p), y["scores"].get(p)
        counts["failed"] += bool(y.get("failure_reason") is not None or sb == 0)
        if sa is not None and sb is not None:
            counts["regressed"] += sb < sa
            counts["improved"] += sb > sa
        counts["different"] += any(x["scores"].get(m["name"]) != y["scores"].get(m["name"]) for m in a["metrics"])
    return counts


def visible_rows(b):
    return len(b.find_all("#instances tbody tr.inst"))


def set_search(b, text):
    b.js("const s = document.getElementById('inst-search'); s.value = arguments[0];"
         "s.dispatchEvent(new Event('input'));", text)


def console_errors(b):
    return [e for e in b.console() if e.get("level") == "SEVERE"]


def check_filters(b, counts, label):
    seen = {}
    for f in ("all", "failed", "regressed", "improved", "different"):
        b.click(b.find(f'button[data-filter="{f}"]'))
        matching = int(b.js("return document.getElementById('instances').getAttribute('data-matching')"))
        rows = visible_rows(b)
        check(matching == counts[f], f"{label}: filter {f} matches {counts[f]} (page: {matching})")
        check(rows == min(matching, 100), f"{label}: filter {f} shows {min(matching, 100)} rows (page: {rows})")
        button = b.text(b.find(f'button[data-filter="{f}"]'))
        check(button.endswith(f"({counts[f]})"), f"{label}: button '{button}' shows the count")
        seen[f] = matching
    check(len(set(seen.values())) >= 4, f"{label}: the filters change the visible rows ({seen})")
    b.click(b.find('button[data-filter="all"]'))


def open_first_row(b):
    row = b.find("#instances tbody tr.inst")
    b.click(row)
    return b.find("#instances tbody tr.detail")


def test_synthetic(b, tmp, out):
    files, recs = synthetic(tmp)
    html = os.path.join(out, "synthetic-report.html")
    sqlgrade("report", *files, "-o", html, "--bootstrap", "500")
    b.open(html)
    errors = console_errors(b)
    check(not errors, f"synthetic: no console errors {errors}")
    check(b.js("return window.__pwned === undefined"), "synthetic: hostile text did not run")
    check(b.js("return document.title") == "toy: baseline-model vs new-model", "synthetic: title")
    check(len(b.find_all("#categories svg rect")) == 6, "synthetic: one bar per run and hardness")
    check(len(b.find_all("#comparison table.comparison tbody tr")) == 2 + 3, "synthetic: comparison rows (2 metrics, 3 categories)")
    check(len(b.find_all("#feature-table tbody tr")) == 6, "synthetic: six SQL feature rows (5 features + none)")
    counts = expected_counts(*recs)
    check_filters(b, counts, "synthetic")
    # Show more: 150 instances, pages of 100.
    check(visible_rows(b) == 100, "synthetic: first page of 100 rows")
    b.click(b.find("#inst-more"))
    check(visible_rows(b) == 150, "synthetic: 'Show more' shows all 150")
    # Search.
    set_search(b, "needle-xyz")
    ids = [b.js("return arguments[0].getAttribute('data-id')", {webdriver.ELEMENT: e}) for e in b.find_all("#instances tbody tr.inst")]
    check(ids == ["17"], f"synthetic: search finds only instance 17 ({ids})")
    b.type(b.find("#inst-search"), "-not-there")
    check(visible_rows(b) == 0, "synthetic: typing into the search box narrows to nothing")
    # Hostile text: found by search, shown literally, drill-down with SQL and rows.
    set_search(b, "</script>")
    check(visible_rows(b) == 1, "synthetic: search for '</script>' finds the hostile instance")
    detail = open_first_row(b)
    q = b.js("return arguments[0].querySelector('.question').textContent", {webdriver.ELEMENT: detail})
    check(q == HOSTILE, "synthetic: the hostile question is displayed literally")
    gold = b.js("return arguments[0].querySelector('pre.sql.gold').textContent", {webdriver.ELEMENT: detail})
    check(gold == recs[0]["instances"][23]["gold_sql"], "synthetic: drill-down shows the gold SQL")
    preds = b.js("return Array.from(arguments[0].querySelectorAll('pre.sql.pred')).map(e => e.textContent)", {webdriver.ELEMENT: detail})
    check(preds == [recs[0]["instances"][23]["pred_sql"], recs[1]["instances"][23]["pred_sql"]], "synthetic: drill-down shows both predictions")
    cells = b.js("return Array.from(arguments[0].querySelectorAll('.rows-wrap td')).map(e => e.textContent)", {webdriver.ELEMENT: detail})
    check(cells[:4] == ["Alice", "3", "NULL", "4.5"] and "<i>Bob</i>" in cells, f"synthetic: drill-down shows the first rows ({cells})")
    check(b.js("return document.querySelectorAll('#instances b, #instances img, #instances i').length") == 0,
          "synthetic: no markup from instance text reached the DOM")
    check(b.js("return window.__pwned === undefined"), "synthetic: still nothing ran after the drill-down")
    errors = console_errors(b)
    check(not errors, f"synthetic: no console errors after interaction {errors}")
    return html


def test_uda(b, tmp, out):
    rec = envelope("uda-system", [])
    rec["benchmark"] = "uda"
    rec["metrics"] = [{"name": "f1", "kind": "continuous", "label": "macro F1"}]
    rec["primary_metric"] = "f1"
    rec["category_axes"] = []
    for i, (ds, task) in enumerate([("Player", "Select"), ("Player", "Agg"), ("Art", "Filter")]):
        rec["instances"].append({"id": f"{ds}/{task}/q/{i}", "scores": {"f1": 0.5 + i / 10}, "category": {"dataset": ds, "task": task},
                                 "gold_sql": "SELECT name FROM player", "pred_sql": None,
                                 "columns": {"name": {"precision": 1, "recall": 0.5, "f1": 0.667}, "team": {"precision": 0.2, "recall": 0.4, "f1": 0.267}}})
    path = os.path.join(tmp, "uda.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(rec, f)
    html = os.path.join(out, "uda-report.html")
    sqlgrade("report", path, "-o", html)
    b.open(html)
    check(not console_errors(b), "uda: no console errors")
    check(len(b.find_all("#uda-table tbody tr")) == 4, "uda: per dataset/column table has 4 rows (Art, Player × 2 columns)")
    check(len(b.find_all("#features")) == 0, "uda: no SQL-feature section")
    check(b.js("return document.querySelector('button[data-filter=regressed]').disabled") is True, "uda: one run: Regressed disabled")
    detail = open_first_row(b)
    check(len(b.js("return Array.from(arguments[0].querySelectorAll('table')).map(t => t.rows.length)", {webdriver.ELEMENT: detail})) == 1,
          "uda: drill-down shows the per-column table")


def spider_runs(tmp):
    """Two real Spider dev systems as run records, or None without the data."""
    data = os.environ.get("SQLGRADE_DATA") or os.environ.get("SQLGRADE_DEFAULT_DATA", "")
    sp = os.path.join(data, "spider")
    systems = ["c3sql_gpt35", "dail-sql_gpt4"]
    if not all(os.path.exists(os.path.join(data, "preds", "spider_dev", s, "pred.txt")) for s in systems) or not os.path.isdir(sp):
        return None
    out = []
    for s in systems:
        pred = os.path.join(data, "preds", "spider_dev", s, "pred.txt")
        raw, text = os.path.join(tmp, s + ".spider.json"), os.path.join(tmp, s + ".txt")
        with open(text, "w") as f:
            f.write(sqlgrade("spider", "--gold", os.path.join(sp, "dev_gold.sql"), "--pred", pred, "--db", os.path.join(sp, "database"),
                             "--table", os.path.join(sp, "tables.json"), "--etype", "all", "--json", raw, "--quiet", "--no-progress"))
        rec = os.path.join(tmp, s + ".run.json")
        subprocess.run([sys.executable, os.path.join(SRC, "tests", "tools", "spider_json_to_run.py"), raw, rec,
                        "--gold", os.path.join(sp, "dev_gold.sql"), "--pred", pred, "--table", os.path.join(sp, "tables.json"),
                        "--dev", os.path.join(sp, "dev.json"), "--system", s, "--text", text], check=True)
        out.append(rec)
    return out


def test_spider(b, tmp, out, shots):
    files = spider_runs(tmp)
    if not files:
        print("skip spider part: Spider data not found (set SQLGRADE_DATA)")
        return False
    recs = [json.load(open(f, encoding="utf-8")) for f in files]
    html = os.path.join(out, "spider-report.html")
    sqlgrade("report", *files, "-o", html)
    b.open(html)
    check(not console_errors(b), "spider: no console errors")
    check_filters(b, expected_counts(*recs), "spider")
    b.js("window.scrollTo(0, 0)")
    b.screenshot(os.path.join(shots, "report-overview.png"))
    b.screenshot(os.path.join(shots, "report-comparison.png"), b.find("#comparison"))
    b.click(b.find('button[data-filter="regressed"]'))
    b.js("document.getElementById('instance-section').scrollIntoView()")
    detail = open_first_row(b)
    check("SELECT" in b.js("return arguments[0].querySelector('pre.sql.gold').textContent", {webdriver.ELEMENT: detail}),
          "spider: drill-down shows the gold SQL")
    b.js("document.getElementById('instance-section').scrollIntoView()")
    b.screenshot(os.path.join(shots, "report-instances.png"))
    check(not console_errors(b), "spider: no console errors after interaction")
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=tempfile.mkdtemp(prefix="sqlgrade-report-"))
    args = ap.parse_args()
    found = webdriver.find_browser()
    if not found:
        print("SKIP: chromium and chromedriver are needed (Debian packages chromium, chromium-driver)")
        return 77
    os.makedirs(args.out, exist_ok=True)
    shots = os.path.join(args.out, "img")
    os.makedirs(shots, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, webdriver.Browser(*found) as b:
        synthetic_html = test_synthetic(b, tmp, args.out)
        test_uda(b, tmp, args.out)
        test_verified(b, tmp, args.out, CLI, console_errors)  # --verify records: Refuted filter, drill-down
        if not test_spider(b, tmp, args.out, shots):
            b.open(synthetic_html)
            b.screenshot(os.path.join(shots, "report-overview.png"))
    keep = os.environ.get("SQLGRADE_SCREENSHOT_DIR")
    if keep:
        os.makedirs(keep, exist_ok=True)
        for f in os.listdir(shots):
            shutil.copy(os.path.join(shots, f), os.path.join(keep, f))
        print(f"screenshots copied to {keep}")
    print(f"screenshots in {shots}")
    return verdict("all checks passed")


if __name__ == "__main__":
    sys.exit(main())
