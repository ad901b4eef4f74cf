"""Browser checks of verified records in `sqlgrade report` (part of ctest runs.browser.report).

Grades a small Spider layout with `sqlgrade spider --verify --json` (a missing filter, a missing
DISTINCT kept by --keep_distinct and two equivalent predictions), reports the record and asserts in
headless Chromium: the "Refuted" filter shows exactly the instances the record marks refuted, the
drill-down of a refuted instance shows the counterexample database's rows and both queries' results
on it as the record has them, and nothing logs a console error.
"""
import json
import os
import sqlite3
import subprocess

import webdriver
from checks import check

SCHEMA = ("CREATE TABLE shop(id INTEGER PRIMARY KEY, city TEXT NOT NULL);"
          "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, shop_id INT REFERENCES shop(id));"
          "INSERT INTO shop VALUES (1,'Paris'),(2,'Lyon');"
          "INSERT INTO item VALUES (1,'pen',2.5,1),(2,'ink',4.0,1),(3,'cup',7.0,2),(4,'mug',7.5,2);")
PAIRS = [("SELECT name FROM item WHERE price > 1", "SELECT name FROM item"),                   # refuted: missing filter
         ("SELECT count(*) FROM item", "SELECT count(id) FROM item"),                          # equivalent (INTEGER PRIMARY KEY)
         ("SELECT city FROM shop WHERE id = 1", "SELECT city FROM shop WHERE 1 = id"),          # equivalent
         ("SELECT name FROM item WHERE shop_id = 2", "SELECT name FROM item WHERE price > 5")]  # refuted: other filter


def verified_record(cli, tmp):
    db = os.path.join(tmp, "vdb", "shop", "shop.sqlite")
    os.makedirs(os.path.dirname(db), exist_ok=True)
    con = sqlite3.connect(db)
    con.executescript(SCHEMA)
    con.commit()
    con.close()
    gold, pred, rec = (os.path.join(tmp, n) for n in ("vgold.sql", "vpred.sql", "verified.json"))
    with open(gold, "w") as f:
        f.writelines(f"{g}\tshop\n" for g, _ in PAIRS)
    with open(pred, "w") as f:
        f.writelines(f"{p}\n" for _, p in PAIRS)
    subprocess.run([cli, "spider", "--gold", gold, "--pred", pred, "--db", os.path.join(tmp, "vdb"), "--etype", "exec",
                    "--verify", "--verify-candidates", "120", "--json", rec, "--no-progress"],
                   check=True, capture_output=True, text=True)
    with open(rec, encoding="utf-8") as f:
        return rec, json.load(f)


def test_verified(b, tmp, out, cli, console_errors):
    path, rec = verified_record(cli, tmp)
    refuted = [i for i in rec["instances"] if (i.get("detail") or {}).get("verify", {}).get("status") == "refuted"]
    check(len(refuted) == 2, f"verified: the record refutes the two wrong matches ({[i['id'] for i in refuted]})")
    html = os.path.join(out, "verified-report.html")
    subprocess.run([cli, "report", path, "-o", html], check=True, capture_output=True)
    b.open(html)
    check(not console_errors(b), "verified: no console errors")
    button = b.find('button[data-filter="refuted"]')
    b.click(button)
    matching = int(b.js("return document.getElementById('instances').getAttribute('data-matching')"))
    check(matching == len(refuted), f"verified: the Refuted filter matches {len(refuted)} (page: {matching})")
    check(b.text(button).endswith(f"({len(refuted)})"), "verified: the Refuted button shows the count")
    b.click(b.find("#instances tbody tr.inst"))
    detail = b.find("#instances tbody tr.detail")
    first = refuted[0]["detail"]["verify"]["counterexample"]
    got = b.js("const d = arguments[0];"
               "return {status: d.querySelector('.verify').getAttribute('data-status'),"
               " dbRows: d.querySelectorAll('.cex-db tbody tr').length,"
               " results: Array.from(d.querySelectorAll('.cex-results table')).map(t => t.tBodies[0].rows.length),"
               " gold: d.querySelector('pre.cex-gold').textContent}", {webdriver.ELEMENT: detail})
    check(got["status"] == "refuted", f"verified: the drill-down shows the refutation ({got['status']})")
    check(got["dbRows"] == len(first["rows"]), f"verified: the counterexample database's {len(first['rows'])} rows ({got['dbRows']})")
    check(got["results"] == [len(first["gold_result"]["rows"]), len(first["pred_result"]["rows"])],
          f"verified: both queries' results on it ({got['results']})")
    check(got["gold"] == first["gold_sql"], "verified: the gold as searched")
    check(not console_errors(b), "verified: no console errors after interaction")
