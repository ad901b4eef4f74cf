#!/usr/bin/env python3
"""UDA cell verdicts in the run record, on real UDA-Bench data (ctest runs.python.uda_cells_real; issue 22).

A small query subset of the real Player dataset ($SQLGRADE_DATA/uda-bench/Query/Player: its gold
tables and attributes, three query files — Select player, Select city, Agg; 17 statements) is copied to
a temporary folder; `uda gold --as-result` writes a perfect system, then a few cells are altered, a row
removed and a row added; `uda run --json` writes the record. The expected verdicts are recomputed here
from the two CSVs (gold_result.csv, the result.csv as submitted), per the metric of
shared/spec/uda-bench.md §11 and docs/uda.md "Matching and scoring", without sqlgrade:
- rows pair by id (gold `id`, result `file_name` without `.txt`; an aggregation by its group column);
- an untouched cell equals its gold cell (checked) and scores p = r = 1; an altered str/int/float cell
  (a different word, a number 1000 away, a float doubled) scores 0; an altered aggregate
  1 / (1 + |x - g| / |g|);
- column precision = sum of cell p / rows of the result, recall = sum of cell r / rows of the gold,
  F1 = 2PR / (P + R); macro F1 = mean of the column F1s.
Checked against the record: each instance's `columns` P/R/F1 and macro F1, and `detail.cells` — the
scored columns, the first matched pairs in ID order, each gold and submitted cell as in the CSVs and
each cell's p and r; and `sqlgrade report`'s drill-down data holds those cells and the column table.
Exit 77 (skipped) without the data.
"""
import csv
import json
import os
import re
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, report_data, run_cli as run, verdict  # noqa: E402
import data_rule  # noqa: E402

SUBSET = ["Select/select_queries_player.sql", "Select/select_queries_city.sql", "Agg/agg_queries.sql"]
# statement -> {id: {column: new value}}: "+N" adds N, "*F" multiplies by F, else the new text; None
# removes the row; an id "+N" adds a row N.txt copied from the row named (precision: rows of the result,
# recall: rows of the gold — two rows added and one removed make them differ).
ALTER = {
    "Player/Select/select_queries_player/2": {"2": {"team": "Zzyzx Not A Team"}, "4": {"mvp_awards": "+1000"},
                                              "5": {"birth_date": "1800/1/1", "name": "Nobody Atall"},
                                              "7": None, "+9999": "1", "+9998": "3"},
    "Player/Select/select_queries_city/1": {"3": {"city_name": "Nowhere Town"}, "1": {"area": "*2"}},
    "Player/Agg/agg_queries/3": {"Frontcourt": {"avg_age": "*1.25"}},
}


def read_csv(path):
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def group_column(stmt, res):
    """An aggregation's key: its GROUP BY column (one in this subset), from the statement's sql.json."""
    if "/Agg/" not in stmt:
        return None
    sql = json.load(open(os.path.join(res, stmt, "sql.json"), encoding="utf-8"))["sql"]
    m = re.search(r"GROUP BY (\w+)\s*$", sql)
    check(m is not None, f"{stmt}: one GROUP BY column ({sql})", quiet=True)
    return m.group(1) if m else None


def row_key(group, header, row, gold):
    if group:
        return row[header.index(group)]
    v = row[header.index("id" if gold else "file_name")]
    return v[:-4] if v.endswith(".txt") else v


def alter(stmt, path, group):
    """Applies ALTER[stmt] to result.csv; returns {(key, column): (gold text, submitted text)} of altered cells."""
    header, rows = read_csv(path)
    changed, out = {}, []
    for row in rows:
        key = row_key(group, header, row, False)
        spec = ALTER[stmt].get(key, {})
        if spec is None:
            continue
        row = list(row)
        for col, new in spec.items():
            old = row[header.index(col)]
            if new.startswith("+"):
                new = str(int(old) + int(new[1:]))
            elif new.startswith("*"):
                new = repr(float(old) * float(new[1:]))
            row[header.index(col)] = new
            changed[(key, col)] = (old, new)
        out.append(row)
        for added, src in ALTER[stmt].items():
            if added.startswith("+") and key == src:
                extra = list(row)
                extra[header.index("file_name")] = added[1:] + ".txt"
                out.append(extra)
    with open(path, "w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header] + out)
    return changed


def cell_score(group, col, gold, pred, altered):
    if not altered:
        return 1.0
    if group and col != group:
        g, x = float(gold), float(pred)
        return 1.0 / (1.0 + abs(x - g) / abs(g))
    return 0.0


def expected(stmt, folder, changed, group):
    """Per-column P/R/F1 and the per-pair cells, from gold_result.csv and the submitted result.csv."""
    gh, grows = read_csv(os.path.join(folder, "gold_result.csv"))
    ph, prows = read_csv(os.path.join(folder, "result.csv"))
    pred_by = {row_key(group, ph, r, False): r for r in prows}
    cols = [c for c in gh if c != (group or "id")]  # keys are not scored (docs/uda.md)
    pairs = []
    for g in grows:
        k = row_key(group, gh, g, True)
        if k in pred_by:
            p = pred_by[k]
            cells = []
            for c in cols:
                gv, pv = g[gh.index(c)], p[ph.index(c)]
                if (k, c) not in changed:
                    check(gv == pv, f"{stmt} {k} {c}: an untouched cell is its gold cell ({gv!r})", quiet=True)
                cells.append((gv, pv, cell_score(group, c, gv, pv, (k, c) in changed)))
            pairs.append((k, cells))
    per_col = {}
    for i, c in enumerate(cols):
        s = sum(cells[i][2] for _, cells in pairs)
        prec, rec = s / len(prows), s / len(grows)
        per_col[c] = (prec, rec, 2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return cols, pairs, per_col


def near(a, b):
    return abs(a - b) <= 1e-9


def check_instance(stmt, inst, cols, pairs, per_col, group):
    got = inst.get("columns") or {}
    check(list(got.keys()) == cols, f"{stmt}: scored columns {cols} (record: {list(got.keys())})")
    for c, (p, r, f1) in per_col.items():
        g = got.get(c, {})
        check(near(g.get("precision", -1), p) and near(g.get("recall", -1), r) and near(g.get("f1", -1), f1),
              f"{stmt} column {c}: P/R/F1 {p:.6f}/{r:.6f}/{f1:.6f} (record {g})")
    macro = sum(v[2] for v in per_col.values()) / len(per_col)
    check(near(inst["scores"]["macro_f1"], macro), f"{stmt}: macro F1 {macro:.6f} (record {inst['scores']['macro_f1']})")
    cells = inst.get("detail", {}).get("cells") or {}
    check(cells.get("columns") == cols and cells.get("pairs_total") == len(pairs),
          f"{stmt}: detail.cells has the scored columns and {len(pairs)} matched pairs")
    shown = cells.get("pairs") or []
    check(0 < len(shown) <= 10, f"{stmt}: the first matched pairs are shown ({len(shown)})")
    def same(sp, exp):
        return len(exp) == len(cols) and all(
            (sp["gold"][j] or "") == exp[j][0] and (sp["pred"][j] or "") == exp[j][1] and
            near(sp["p"][j], exp[j][2]) and near(sp["r"][j], exp[j][2]) for j in range(len(cols)))
    if not group:  # select/filter: the first pairs in ID order, numbers numerically
        ordered = sorted(pairs, key=lambda kc: int(kc[0]))
        for i, sp in enumerate(shown):
            key, exp = ordered[i]
            check(same(sp, exp), f"{stmt} pair {i} (id {key}): cells and verdicts {[e[2] for e in exp]} (record {sp})",
                  quiet=True)
    else:  # aggregation (the group key is not shown): each shown pair is one expected pair
        left = [exp for _, exp in pairs]
        for i, sp in enumerate(shown):
            hit = next((k for k, exp in enumerate(left) if same(sp, exp)), None)
            check(hit is not None, f"{stmt} pair {i}: an expected (gold, submitted, verdict) pair (record {sp})", quiet=True)
            if hit is not None:
                left.pop(hit)
    return sum(1 for _, cells in pairs for c in cells if c[2] < 1)


def report_checks(tmp, rec_path, by_id):
    """The report's drill-down shows the record's cells and per-column P/R/F1 (the data it is drawn from)."""
    r, data = report_data(rec_path, os.path.join(tmp, "r.html"))
    if not check(r.returncode == 0, f"report exits 0 ({r.stderr.strip()[:200]})"):
        return
    shown = {i["id"]: i["runs"][0] for i in data["instances"]}
    check(all(shown.get(k, {}).get("cells") == v["detail"]["cells"] for k, v in by_id.items()),
          "report: each statement's drill-down holds the record's cells and verdicts")
    cols = {c["column"]: c["runs"][0] for c in data.get("uda_columns") or []}
    team = by_id["Player/Select/select_queries_player/2"]["columns"]["team"]
    check(cols.get("team", {}).get("precision") == team["precision"], f"report: per-column table, team P {team['precision']}")


def main():
    data = data_rule.script_whole(*[os.path.join("uda-bench", "Query", "Player", f) for f in SUBSET])  # or exit 77 / 1
    src = os.path.join(data, "uda-bench", "Query", "Player")
    with tempfile.TemporaryDirectory() as tmp:
        ds = os.path.join(tmp, "Player")
        os.makedirs(ds)
        for f in os.listdir(src):
            if f.endswith(".csv") or f.endswith("_attributes.json"):
                shutil.copy(os.path.join(src, f), ds)
        for f in SUBSET:
            os.makedirs(os.path.join(ds, os.path.dirname(f)), exist_ok=True)
            shutil.copy(os.path.join(src, f), os.path.join(ds, f))
        res = os.path.join(tmp, "sys")
        r = run("uda", "gold", "--dataset-dir", ds, "--out", res, "--as-result")
        check(r.returncode == 0, f"uda gold --as-result on the Player subset ({r.stderr.strip()[:200]})")
        changed = {s: alter(s, os.path.join(res, s, "result.csv"), group_column(s, res)) for s in ALTER}
        rec_path = os.path.join(tmp, "run.json")
        r = run("uda", "run", "--dataset-dir", ds, "--results", res, "--json", rec_path)
        check(r.returncode == 0, f"uda run --json ({r.stderr.strip()[:200]})")
        rec = json.load(open(rec_path, encoding="utf-8"))
        by_id = {x["id"]: x for x in rec["instances"]}
        check(len(by_id) == 17, f"17 statements in the record ({len(by_id)})")
        zeros = 0
        for stmt in sorted(by_id):
            folder = os.path.join(res, stmt)
            group = group_column(stmt, res)
            cols, pairs, per_col = expected(stmt, folder, changed.get(stmt, {}), group)
            z = check_instance(stmt, by_id[stmt], cols, pairs, per_col, group)
            zeros += z
            if stmt not in ALTER:
                check(all(v == (1.0, 1.0, 1.0) for v in per_col.values()) and z == 0, f"{stmt}: untouched, 1.0", quiet=True)
        check(zeros == sum(len(c) for c in changed.values()), f"every altered cell ({zeros}) scores below 1, no other does")
        report_checks(tmp, rec_path, by_id)
    return verdict("UDA cell verdicts on real Player data: all checks passed")


if __name__ == "__main__":
    sys.exit(main())
