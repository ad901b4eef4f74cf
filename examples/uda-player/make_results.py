#!/usr/bin/env python3
"""Regenerates the deliberately imperfect example results from gold results written by
`sqlgrade uda gold --dataset-dir <Query>/Player --out GOLD` (run: make_results.py GOLD/Player).
The committed CSVs were made this way; the script documents exactly what was changed."""
import csv, os, random, sys

src = sys.argv[1]
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "Player")
rnd = random.Random(7)

def read(rel):
    rows = list(csv.reader(open(os.path.join(src, rel, "gold_result.csv"), newline="")))
    return rows[0], rows[1:]

def write(rel, hdr, rows):
    os.makedirs(os.path.join(out, rel), exist_ok=True)
    with open(os.path.join(out, rel, "result.csv"), "w", newline="") as f:
        w = csv.writer(f); w.writerow(hdr); w.writerows(rows)

def ids_to_files(hdr, rows):
    idx = [i for i, h in enumerate(hdr) if h == "id" or h.endswith(".id")]
    hdr = [h[:-2] + "file_name" if i in idx else h for i, h in enumerate(hdr)]
    rows = [[v + ".txt" if i in idx and v else v for i, v in enumerate(r)] for r in rows]
    return hdr, rows

# 1. Select: dates rewritten as YYYY-MM-DD (still correct), names lower-cased (still correct),
#    every 10th mvp_awards off by one, 3 rows missing, 2 invented rows.
hdr, rows = read("Select/select_queries_player/2")
new = []
for k, r in enumerate(rows):
    r = list(r)
    if k in (5, 50, 100): continue
    y, m, d = (r[4].split("/") + ["", "", ""])[:3]
    if y and m and d: r[4] = "%s-%02d-%02d" % (y, int(m), int(d))
    r[2] = r[2].lower()
    if k % 10 == 0: r[3] = str(int(r[3]) + 1)
    new.append(r)
new += [["900", "Boston Celtics", "Invented Player", "0", "1990-01-01"], ["901", "", "Another One", "1", ""]]
write("Select/select_queries_player/2", *ids_to_files(hdr, new))

# 2. Filter: one wrong draft_pick, one missed row, two false positives.
hdr, rows = read("Filter/filter_queries_player/3")
new = [list(r) for r in rows[1:]]
new[0][2] = "99"
new += [["3", "0", "40", "Nikola Radicevic"], ["7", "0", "12", "Someone Else"]]
write("Filter/filter_queries_player/3", *ids_to_files(hdr, new))

# 3. Aggregation: group keys in other case, one aggregate 50% off.
hdr, rows = read("Agg/agg_queries/1")
new = [[r[0].lower(), r[1]] for r in rows]
new[-1][1] = str(float(new[-1][1] or 0) * 1.5 + 1)
write("Agg/agg_queries/1", hdr, new)

# 4. Join: every 7th player age off by one, 5 joined rows missing.
hdr, rows = read("Join/join_queries/1")
new = []
for k, r in enumerate(rows):
    if k % 17 == 3: continue
    r = list(r)
    if k % 7 == 0: r[4] = str(int(r[4]) + 1)
    new.append(r)
write("Join/join_queries/1", *ids_to_files(hdr, new))
