#!/usr/bin/env python3
"""Browser test of `sqlgrade report` (ctest runs.browser.report).

Loads reports in Debian's headless Chromium through chromedriver (W3C WebDriver over HTTP, driven by
tests/tools/webdriver.py, stdlib only) and asserts: no console errors (a CSP violation, a network
attempt or a script error is one), hostile instance text is displayed literally and never runs,
each filter (All / Failed / Regressed / Improved / Different; Refuted on a --verify record,
report_browser_verify.py) shows the number of rows computed
here in Python from the run records, the search box narrows the rows, a click opens the drill-down
with the gold and predicted SQL and the first result rows. With the Spider data present
(SQLGRADE_DATA) it also grades the real Spider dev systems and BIRD Mini-Dev baselines and checks
their reports the same way (report_browser_real.py).

Screenshots go to --out; set SQLGRADE_SCREENSHOT_DIR=docs/img to refresh the committed ones.
Exit 77 (ctest: skipped) when chromium or chromedriver is missing.
"""
import argparse
import csv
import io
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
from report_browser_uda import test_uda_player  # noqa: E402
from report_browser_real import test_bird, test_spider  # noqa: E402
from checks import check, verdict  # noqa: E402
import data_rule  # noqa: E402

CLI = os.environ.get("SQLGRADE_CLI", "sqlgrade")
SRC = os.environ.get("SQLGRADE_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
HOSTILE = '</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> & <b>bold</b> \u202e done'
def sqlgrade(*args):
    r = subprocess.run([CLI, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"sqlgrade {' '.join(args)} failed ({r.returncode}): {r.stderr}")
    return r.stdout


# Long names and ids, as real runs have them (the layout must hold at 1280 and 1920 px).
BASE = "baseline-model-gpt-4o-2024-08-06-few-shot-temperature-0.2-with-schema-linking"
NEW = "new-model-qwen2.5-coder-32b-instruct-self-consistency-8-samples-with-execution-guided-decoding"


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
    for system in (BASE, NEW):
        insts = []
        for i in range(150):
            exec_ = 1 if rnd.random() < (0.55 if system == BASE else 0.7) else 0
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
    for system, insts in zip((BASE, NEW), runs):
        path = os.path.join(tmp, system + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(envelope(system, insts), f)
        files.append(path)
    return files, [envelope(s, i) for s, i in zip((BASE, NEW), runs)]


def expected_counts(a, b, metric=None):
    """Filter counts computed from the records (independently of the page's script), on one metric:
    failed = the compared run scores 0 on it (below 1 for a continuous metric), whatever the others."""
    ia, ib = a["instances"], b["instances"]
    p = metric or a["primary_metric"]
    binary = next(m["kind"] for m in a["metrics"] if m["name"] == p) == "binary"
    counts = {"all": len(ia), "failed": 0, "regressed": 0, "improved": 0, "different": 0}
    for x, y in zip(ia, ib):
        sa, sb = x["scores"].get(p), y["scores"].get(p)
        counts["failed"] += sb is not None and (sb == 0 if binary else sb < 1)
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


def set_select(b, css, value):
    b.js("const s = document.querySelector(arguments[0]); s.value = arguments[1]; s.dispatchEvent(new Event('change'));", css, value)


def check_filters(b, counts, label, metric=None, distinct=4):
    if metric:
        set_select(b, "#inst-metric", metric)
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
    check(len(set(seen.values())) >= distinct, f"{label}: the filters change the visible rows ({seen})")
    b.click(b.find('button[data-filter="all"]'))
    return seen


LAYOUT_JS = """
const out = {overflow: document.documentElement.scrollWidth - window.innerWidth, problems: []};
const W = window.innerWidth;
// Every header cell shows its whole text (nothing clipped under a neighbour) and lies inside the window.
for (const th of document.querySelectorAll('#instances thead th, table.category-table thead th, #runs-table thead th')) {
  const r = th.getBoundingClientRect();
  if (th.scrollWidth > th.clientWidth + 1) out.problems.push('clipped header: ' + th.textContent);
  if (r.right > W + 0.5 || r.width < 8) out.problems.push('header outside the window: ' + th.textContent + ' ' + r.right);
}
// Header cells of one row never overlap.
for (const tr of document.querySelectorAll('thead tr')) {
  const cells = Array.from(tr.children).map((c) => c.getBoundingClientRect());
  for (let i = 1; i < cells.length; i++) if (cells[i].left < cells[i - 1].right - 0.5) out.problems.push('overlapping headers in ' + tr.closest('table').id);
}
// Every run's column of the instance table and of each category table is visible.
out.runHeads = Array.from(document.querySelectorAll('#instances thead th[data-col^=run]')).map((th) => th.getBoundingClientRect().right <= W);
out.catHeads = Array.from(document.querySelectorAll('table.category-table thead th.run-head')).map((th) => th.getBoundingClientRect().right <= W);
// Ids wrap rather than being cut.
for (const td of document.querySelectorAll('#instances td.id')) if (td.scrollWidth > td.clientWidth + 1) out.problems.push('cut id ' + td.textContent);
// Each run's scores are shown whole: every metric's name and value inside its cell (nothing cut, so no
// ellipsis or half-shown label), the cell's content no wider than the cell.
out.scoreCells = 0;
for (const td of document.querySelectorAll('#instances td.scores')) {
  out.scoreCells++;
  const c = td.getBoundingClientRect();
  if (td.scrollWidth > td.clientWidth + 1) out.problems.push('scores overflow their cell: ' + td.textContent);
  for (const s of td.querySelectorAll('.score, .score-head, .score-name')) {
    const r = s.getBoundingClientRect();
    if (r.left < c.left - 0.5 || r.right > c.right + 0.5 || r.width < 1) out.problems.push('cut score label ' + s.textContent + ' in ' + td.textContent);
  }
}
out.height = document.documentElement.scrollHeight;
// Axis labels of the charts stay inside their SVG.
for (const svg of document.querySelectorAll('.chart svg')) {
  const s = svg.getBoundingClientRect();
  for (const t of svg.querySelectorAll('text')) {
    const r = t.getBoundingClientRect();
    if (r.left < s.left - 0.5 || r.bottom > s.bottom + 0.5) out.problems.push('clipped axis label ' + t.textContent);
  }
}
return out;
"""


def check_layout(b, label, n_runs, shots=None, name=None):
    """At 1280 and 1920 px: no sideways page scroll, no clipped or overlapping header, every run's column
    visible, every score of every run whole in its cell. Returns the page's height at each width."""
    heights = {}
    for width in (1280, 1920):
        b.set_viewport(width, 900)
        b.js("window.scrollTo(0, 0)")
        r = b.js(LAYOUT_JS)
        check(r["overflow"] <= 0, f"{label} @{width}px: the page does not scroll sideways (overflow {r['overflow']} px)")
        check(not r["problems"], f"{label} @{width}px: headers, ids and axis labels fit ({r['problems'][:5]})")
        check(len(r["runHeads"]) == n_runs and all(r["runHeads"]), f"{label} @{width}px: every run's instance column is visible {r['runHeads']}")
        check(all(r["catHeads"]) and len(r["catHeads"]) % n_runs == 0, f"{label} @{width}px: every run's category column is visible")
        check(r["scoreCells"] > 0, f"{label} @{width}px: the instance table shows score cells")
        heights[width] = r["height"]
        if shots and name:
            b.js("document.getElementById('instance-section').scrollIntoView()")
            b.screenshot(os.path.join(shots, f"{name}-{width}.png"))
    b.set_viewport(1280, 900)
    return heights


def check_sort_and_export(b, rec_a, label):
    """Sorting by id (natural order, both directions) and by a run's score; CSV export of the rows shown."""
    ids = lambda: [b.js("return arguments[0].getAttribute('data-id')", {webdriver.ELEMENT: e}) for e in b.find_all("#instances tbody tr.inst")]
    b.click(b.find('#instances th[data-col="id"]'))
    asc = ids()
    b.click(b.find('#instances th[data-col="id"]'))
    desc = ids()
    key = lambda s: [int(t) if t.isdigit() else t for t in __import__("re").split(r"(\d+)", s)]
    all_ids = sorted((i["id"] for i in rec_a["instances"]), key=key)
    check(asc == all_ids[:len(asc)], f"{label}: sorting by id gives the natural order")
    check(desc == list(reversed(all_ids))[:len(desc)], f"{label}: a second click reverses it")
    b.click(b.find('#instances th[data-col="run0"]'))
    prim = rec_a["primary_metric"]
    by_id = {i["id"]: i["scores"].get(prim) for i in rec_a["instances"]}
    scores = [by_id[i] for i in ids()]
    check(scores == sorted(scores), f"{label}: sorting by the first run's column orders its {prim} scores")
    b.click(b.find('button[data-filter="failed"]'))
    matching = int(b.js("return document.getElementById('instances').getAttribute('data-matching')"))
    b.click(b.find("#inst-export"))
    text = b.js("return window.sqlgradeLastCsv")
    rows = list(csv.reader(io.StringIO(text)))
    check(len(rows) == matching + 1, f"{label}: the CSV holds the {matching} filtered rows and a header ({len(rows)} lines)")
    check(all(f"{r}:{m['name']}" in rows[0] for r in [rec_a["system"]] for m in rec_a["metrics"]), f"{label}: CSV columns of every metric")
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
    check(b.js("return document.title") == f"toy: {BASE} vs {NEW}", "synthetic: title")
    check(len(b.find_all("#categories svg rect")) == 6, "synthetic: one bar per run and hardness")
    check(len(b.find_all("#comparison table.comparison tbody tr")) == 2 + 3, "synthetic: comparison rows (2 metrics, 3 categories)")
    check(len(b.find_all("#feature-table tbody tr")) == 6, "synthetic: six SQL feature rows (5 features + none)")
    check_layout(b, "synthetic", 2)
    counts = expected_counts(*recs)
    on_exec = check_filters(b, counts, "synthetic")
    # f1 is continuous: every score is below 1 (all "failed") and differs, so three distinct counts.
    on_f1 = check_filters(b, expected_counts(*recs, "f1"), "synthetic (f1)", "f1", distinct=3)
    check(on_exec["failed"] != on_f1["failed"], "synthetic: Failed depends on the metric chosen")
    set_select(b, "#inst-metric", "exec")
    check_sort_and_export(b, recs[0], "synthetic")
    texts = b.js("return Array.from(document.querySelectorAll('#comparison td')).map(e => e.textContent)")
    check(not any("-0.0000" in t for t in texts), "synthetic: no -0.0000 in the comparison")
    sig_ci = b.js("return Array.from(document.querySelectorAll('#comparison tr.sig td:nth-child(6)')).map(e => e.textContent)")
    check(all("[0.0000" not in t and "+0.0000," not in t and "-0.0000]" not in t and ", 0.0000]" not in t for t in sig_ci),
          f"synthetic: no highlighted interval reads as touching 0 ({sig_ci})")
    check_against_diff(b, files, "synthetic", "--bootstrap", "500")
    holm = b.js("return document.querySelectorAll('#comparison .holm-note').length")
    check(holm >= 1, "synthetic: the per-category tests note the number of comparisons (Holm)")
    check(b.js("return document.querySelectorAll('.card .ci').length") == 2, "synthetic: each headline has an interval")
    # Show more: 150 instances, pages of 100.
    check(visible_rows(b) == 100, "synthetic: first page of 100 rows")
    b.set_viewport(1280, 900)
    first = b.js("return document.documentElement.scrollHeight")
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


def check_against_diff(b, files, label, *args):
    """The comparison table shows exactly the strings `sqlgrade diff` prints (one rounding rule)."""
    text = sqlgrade("diff", *files, "--list", "0", *args)
    page = b.js("return Array.from(document.querySelectorAll('#comparison table.comparison')[0].querySelectorAll('tbody tr'))"
                ".map(tr => Array.from(tr.children).map(td => td.textContent))")
    for row in page:
        metric = row[0].rstrip(" *")
        line = next((l for l in text.splitlines() if l.split() and l.split()[0] == metric), None)
        check(line is not None, f"{label}: diff prints the row of {metric}")
        if line is None:
            continue
        for cell in row[1:6] + row[7:8]:
            if cell not in ("–",):
                check(cell in line, f"{label}: '{cell}' ({metric}) is what diff prints: {line.strip()}")


def test_bird_scale(b, tmp, out):
    """BIRD on the official table's 0-100 scale in the headline, tables and comparisons."""
    files, recs = synthetic(tmp)
    bird = []
    for f, r in zip(files, recs):
        r = json.loads(json.dumps(r))
        r["benchmark"] = "bird"
        for m in r["metrics"]:
            if m["name"] == "exec":
                m["name"] = "ex"
        r["primary_metric"] = "ex"
        for i in r["instances"]:
            i["scores"]["ex"] = i["scores"].pop("exec")
        path = f.replace(".json", ".bird.json")
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(r, fh)
        bird.append((path, r))
    html = os.path.join(out, "bird-report.html")
    sqlgrade("report", *[p for p, _ in bird], "-o", html)
    b.open(html)
    mean = sum(i["scores"]["ex"] for i in bird[0][1]["instances"]) / len(bird[0][1]["instances"])
    big = b.js("return document.querySelector('.card .big').textContent")
    check(big == f"{100 * mean:.2f}", f"bird: headline in percent ({big} vs {100 * mean:.2f})")
    check_against_diff(b, [p for p, _ in bird], "bird")


def test_uda(b, tmp, out):
    rec = envelope("uda-system", [])
    rec["benchmark"] = "uda"
    rec["metrics"] = [{"name": "f1", "kind": "continuous", "label": "macro F1"}]
    rec["primary_metric"] = "f1"
    rec["category_axes"] = []
    for i, (ds, task) in enumerate([("Player", "Select"), ("Player", "Agg"), ("Art", "Filter")]):
        rec["instances"].append({"id": f"{ds}/{task}/{task.lower()}_queries_with_a_long_file_name/{i}", "scores": {"f1": 0.5 + i / 10}, "category": {"dataset": ds, "task": task},
                                 "gold_sql": "SELECT name FROM player", "pred_sql": None,
                                 "columns": {"name": {"precision": 1, "recall": 0.5, "f1": 0.667}, "team": {"precision": 0.2, "recall": 0.4, "f1": 0.267}},
                                 "rows": {"gold": [["Ann", "Bulls"]], "pred": [["Ann", "Lakers"]], "gold_columns": ["name", "team"],
                                          "pred_columns": ["name", "team"], "truncated": False},
                                 "detail": {"cells": {"columns": ["name", "team"], "pairs_total": 1,
                                                      "pairs": [{"gold": ["Ann", "Bulls"], "pred": ["Ann", "Lakers"], "p": [1, 0], "r": [1, 0]}]}}})
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
    check(len(b.find_all("#instances tr.detail table.col-scores")) == 1, "uda: drill-down shows the per-column table")
    check("no prediction" not in b.text(detail), "uda: a submitted result is never called 'no prediction'")
    verdicts = b.js("return Array.from(document.querySelectorAll('#instances tr.detail .cell-table td.cell')).map(td => td.className)")
    check(verdicts == ["cell pass", "cell fail"], f"uda: cells side by side with their verdicts ({verdicts})")
    check("Lakers" in b.text(detail) and "Bulls" in b.text(detail), "uda: gold and submitted cells shown")
    check(b.js("return document.querySelectorAll('.card .ci').length") == 1, "uda: a single run's headline has an interval")
    check_layout(b, "uda", 1)


def data_root():
    return data_rule.root()


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
        test_uda_player(b, tmp, args.out, shots, sys.modules[__name__])
        test_verified(b, tmp, args.out, CLI, console_errors)  # --verify records: Refuted filter, drill-down
        test_bird_scale(b, tmp, args.out)
        test_bird(b, tmp, args.out, shots, sys.modules[__name__])
        if not test_spider(b, tmp, args.out, shots, sys.modules[__name__]):
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
