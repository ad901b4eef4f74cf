#!/usr/bin/env python3
"""The SpotIt-style table of verified EX (issue 30 item 8; docs/verify.md "Beside SpotIt and AttestQL").

Reads the `sqlgrade verify --json` reports that bench/verify.sh writes (spider.json, bird.json) and
prints, per system, one Markdown row:

  matched      pairs the benchmark's own check scores as a match (EX-correct)
  coverage     matched pairs searched to completion (neither skipped nor stopped by the time cap)
               / all matched pairs
  median, p95  seconds per searched pair (the search's own wall time per pair, identical pairs
               searched once and counted once per system that sent them)
  EX -> verified EX   rates over all graded instances; verified EX counts clean refutations only
  classes      how many matched pairs ended in each status (refuted = clean, and every other class)

Usage: bench/verify_table.py OUT_DIR/spider.json [OUT_DIR/bird.json ...]
"""

from __future__ import annotations

import collections
import json
import statistics
import sys


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(q / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def short(system: str) -> str:
    """A system's name: the folder of a Spider `pred.*` file, the model in a BIRD `predict_mini_dev_*` name."""
    parts = system.replace("\\", "/").split("/")
    stem = parts[-1].split(".")[0]
    if stem == "pred" and len(parts) >= 2:
        return parts[-2]
    return stem.removeprefix("predict_mini_dev_")


def rows(report: list[dict]) -> list[str]:
    out = []
    for r in report:
        inst = r["instances"]
        matched = len(inst)
        complete = [i for i in inst if i["status"] not in ("skipped", "unverified") and not i["time_capped"]]
        secs = [float(i["seconds"]) for i in inst if i["status"] != "skipped"]
        classes = collections.Counter(i["status"] for i in inst)
        cls = ", ".join(f"{k} {v}" for k, v in sorted(classes.items()))
        med = statistics.median(secs) if secs else 0.0
        p95 = percentile(secs, 95) if secs else 0.0
        out.append(
            f"| {r['benchmark']} | {short(r['system'])} | {matched} | {len(complete)}/{matched} "
            f"({100.0 * len(complete) / max(matched, 1):.1f}%) | {med:.3f} | {p95:.3f} | "
            f"{100.0 * r['ex_rate']:.1f} → {100.0 * r['verified_ex_rate']:.1f} | {cls} |"
        )
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    print("| benchmark | system | matched | searched to completion | median s | p95 s | EX → verified EX (%) | statuses of the matches |")
    print("|---|---|---|---|---|---|---|---|")
    for path in argv:
        try:
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            print(f"verify_table: {path}: {e}", file=sys.stderr)
            return 2
        for line in rows(report):
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
