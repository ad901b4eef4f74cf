#!/usr/bin/env python3
"""The UDA part of the report browser test (report_browser_test.py, ctest runs.browser.report; issue 34
item 9): two runs of the real UDA-Bench Player dataset (132 statements) graded by the CLI, their report
checked at 1280 and 1920 px (the layout check of report_browser_test.py, every run's six metrics whole
in its cell as the macro/row x F1/P/R matrix), its height, and the screenshots report-uda-1280.png /
report-uda-1920.png. `t` is the main test module (its CLI runner, layout check and data root)."""
import csv
import os
import shutil

from checks import check


# The UDA Player report's height at 1280 px, all 132 statements listed ("Show more" clicked), must stay
# under this (issue 34 item 9: measured 11,591 px with the score matrix, 9,732 px as the page opens with
# its first 100 rows; before, when each run's six metrics took a line each, 25,606 px for those 100 rows).
UDA_PLAYER_MAX_HEIGHT = 12000


def uda_player_runs(t, tmp):
    """Two systems on the real UDA-Bench Player dataset (132 statements), graded by the CLI with --name:
    the gold as a result (`uda gold --as-result`) and a copy altered deterministically (every 11th
    result.csv removed, every 3rd cut to two thirds of its rows with every other row's last cell
    changed). None without the data."""
    src = os.path.join(t.data_root(), "uda-bench", "Query", "Player")
    if not os.path.isdir(src):
        return None
    ds = os.path.join(tmp, "uda-player", "Player")
    shutil.copytree(src, ds)
    a, b = os.path.join(tmp, "uda-player", "A"), os.path.join(tmp, "uda-player", "B")
    t.sqlgrade("uda", "gold", "--dataset-dir", ds, "--out", a, "--as-result")
    shutil.copytree(a, b)
    files = sorted(os.path.join(r, f) for r, _, fs in os.walk(b) for f in fs if f == "result.csv")
    check(len(files) == 132, f"uda player: 132 statements ({len(files)})")
    for k, path in enumerate(files):
        if k % 11 == 0:
            os.remove(path)
        elif k % 3 == 0:
            with open(path, newline="", encoding="utf-8") as f:
                rows = list(csv.reader(f))
            body = rows[1:][: (len(rows) - 1) * 2 // 3]
            for r in body[::2]:
                if r:
                    r[-1] = str(float(r[-1]) * 2) if r[-1].replace(".", "", 1).isdigit() else r[-1] + "x"
            with open(path, "w", newline="", encoding="utf-8") as f:
                csv.writer(f).writerows([rows[0]] + body)
    out = []
    for name, results in (("gold-as-result", a), ("altered-system-qwen2.5-72b-instruct-with-long-name", b)):
        rec = os.path.join(tmp, "uda-player", name + ".json")
        t.sqlgrade("uda", "run", "--dataset-dir", ds, "--results", results, "--name", name, "--json", rec)
        out.append(rec)
    return out


def test_uda_player(b, tmp, out, shots, t):
    """The real 132-statement Player report of two runs: the layout check at 1280 and 1920 px (every
    run's six metrics whole in its cell), the page's height, screenshots of the instance table."""
    files = uda_player_runs(t, tmp)
    if not files:
        print("skip UDA Player part: UDA-Bench data not found (set SQLGRADE_DATA)")
        return
    html = os.path.join(out, "uda-player-report.html")
    t.sqlgrade("report", *files, "-o", html)
    b.open(html)
    check(not t.console_errors(b), "uda player: no console errors")
    check(b.js("return document.querySelectorAll('#instances td.scores .score-grid').length") == 200,
          "uda player: each run's scores as a matrix (100 rows shown x 2 runs)")
    heads = b.js("return Array.from(document.querySelector('#instances td.scores .score-grid').children).map(e => e.textContent)")
    check(heads[:4] == ["", "F1", "P", "R"] and heads[4] == "macro" and heads[8] == "row", f"uda player: matrix macro/row x F1/P/R ({heads[:9]})")
    b.set_viewport(1280, 900)
    first = b.js("return document.documentElement.scrollHeight")
    b.click(b.find("#inst-more"))
    check(len(b.find_all("#instances tbody tr.inst")) == 132, "uda player: all 132 statements listed after Show more")
    heights = t.check_layout(b, "uda player", 2, shots, "report-uda")
    check(heights[1280] <= UDA_PLAYER_MAX_HEIGHT, f"uda player: the page is {heights[1280]} px high at 1280 px (at most {UDA_PLAYER_MAX_HEIGHT})")
    print(f"uda player: page height {first} px at 1280 as opened (100 rows), all 132 statements listed: "
          f"{heights[1280]} px at 1280, {heights[1920]} px at 1920 (2 runs)")
