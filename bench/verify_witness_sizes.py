#!/usr/bin/env python3
"""Witness sizes of a `sqlgrade verify --json` report (docs/verify.md "Which witnesses count").

For every system of the report: how many matches ended in each status (refuted = clean refutation,
edge, ...), and the distribution of the witness size (rows of the counterexample database) of the
clean refutations and of the edge findings: how many have 0, 1, 2, ... rows, the median and the
largest. A report written before edges existed has refutations only; its 0-row witnesses are the
degenerate ones (an empty database) that are edge findings today.

usage: bench/verify_witness_sizes.py VERIFY_JSON [VERIFY_JSON_AFTER]
       (two reports: printed side by side as before -> after)
"""
import collections
import json
import os
import statistics
import sys


def sizes(report):
    out = []
    for rep in json.load(open(report)):
        name = os.path.basename(os.path.dirname(rep["system"])) or rep["system"]
        status = collections.Counter(i["status"] for i in rep["instances"])
        by = collections.defaultdict(list)
        for i in rep["instances"]:
            cex = i.get("counterexample")
            if cex is not None:
                by[i["status"]].append(len(cex["rows"]))
        out.append((name, status, by))
    return out


def dist(v):
    if not v:
        return "-"
    c = collections.Counter(min(n, 6) for n in v)
    cells = " ".join(f"{k if k < 6 else '6+'}:{c[k]}" for k in range(7) if c[k])
    return f"{cells} (median {statistics.median(v):g}, max {max(v)})"


def main():
    runs = [sizes(p) for p in sys.argv[1:3]]
    if not runs:
        sys.exit(__doc__)
    for k, (name, status, by) in enumerate(runs[0]):
        print(name)
        for label, run in zip(("before", "after") if len(runs) == 2 else ("",), runs):
            _, st, b = run[k]
            head = f"  {label:6s} " if label else "  "
            print(head + "statuses: " + ", ".join(f"{s} {n}" for s, n in sorted(st.items())))
            for s in sorted(b):
                print(head + f"  witness rows ({s}): {dist(b[s])}")


if __name__ == "__main__":
    main()
