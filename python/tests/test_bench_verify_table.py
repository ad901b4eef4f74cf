"""bench/verify_table.py (issue 30 item 8): the SpotIt-style table read from `sqlgrade verify --json`."""

from __future__ import annotations

import json
import os
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "verify_table.py")


def _instance(status: str, seconds: float, capped: bool = False) -> dict:
    return {"id": "0", "db": "d", "status": status, "candidates": 10, "seconds": seconds, "time_capped": capped}


def test_the_table_gives_coverage_times_rates_and_statuses(tmp_path):
    report = [{
        "system": "/data/preds/spider_dev/dail-sql_gpt4/pred.txt", "benchmark": "spider", "total": 10, "ex": 4,
        "ex_rate": 0.4, "verified_ex_rate": 0.3,
        "instances": [_instance("refuted", 0.2), _instance("no_counterexample", 0.1), _instance("edge", 0.4, capped=True),
                      _instance("skipped", 0.0)],
    }, {
        "system": "/data/preds/bird_minidev/kg/predict_mini_dev_gpt-4_sqlite.json", "benchmark": "bird", "total": 2, "ex": 1,
        "ex_rate": 0.5, "verified_ex_rate": 0.5, "instances": [_instance("gold_suspect", 1.0)],
    }]
    path = tmp_path / "v.json"
    path.write_text(json.dumps(report))
    out = subprocess.run([sys.executable, SCRIPT, str(path)], capture_output=True, text=True, check=True).stdout
    rows = [line for line in out.splitlines() if line.startswith("| spider") or line.startswith("| bird")]
    # 4 matches: the skipped one and the time-capped one are not searched to completion; median and p95
    # over the 3 searched pairs.
    assert rows[0] == ("| spider | dail-sql_gpt4 | 4 | 2/4 (50.0%) | 0.200 | 0.400 | 40.0 → 30.0 | "
                       "edge 1, no_counterexample 1, refuted 1, skipped 1 |")
    assert rows[1].startswith("| bird | gpt-4_sqlite | 1 | 1/1 (100.0%) | 1.000 | 1.000 | 50.0 → 50.0 | gold_suspect 1 |")


def test_an_unreadable_report_is_one_line_and_exit_code_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    r = subprocess.run([sys.executable, SCRIPT, str(bad)], capture_output=True, text=True)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and str(bad) in r.stderr
