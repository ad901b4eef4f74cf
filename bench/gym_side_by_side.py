"""Speed beside NeMo Gym, in one run (issue 34 item 5): the same 2,048 rollouts graded through Gym's own
spider2_lite and bird_sql resources servers and through sqlgrade's folder (integrations/nemo_gym/
resources_servers/sqlgrade), all four launched by one Gym `ng_run` (python/tests/hosts/gym_run.py), for
each installed Gym: nemo-gym 0.4.0 (.venv-gym) and 0.7.0 (.venv-gym7). Gym's own client
(ServerClient, through Gym's head server; gym_client.py) sends the rollouts, 32 in flight, golds warm
(32 rollouts through each server first); the rollouts are Gym's example tasks (5 spider2_lite, 5 bird_sql
on the shared sample databases) x 5 answers each: the recorded one, the gold, a wrong, a failing and a
no-SQL answer.

    .venv/bin/python bench/gym_side_by_side.py [--n 2048] [--gym .venv-gym --gym .venv-gym7]

Prints one markdown row per (Gym version, benchmark): seconds and rollouts/s through Gym's server and
through sqlgrade's, the ratio, and how many of the 2,048 rewards differ (the parity tables of
docs/python.md explain the rows that do). Needs build/sqlgrade (or SQLGRADE_BIN) and SQLGRADE_DATA.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(REPO, "python", "tests", "hosts"))
import gym_run  # noqa: E402


def _one_gym(venv: str, data: str, exe: str, n: int) -> list:
    work = tempfile.mkdtemp(prefix="gym-bench-")
    g = gym_run.start(os.path.join(work, "root"), venv, data, exe)
    try:
        s2 = gym_run.bench_rows(gym_run.spider2_rows(g["site"]), "gold_sql", n)
        bird = gym_run.bench_rows(gym_run.bird_rows(g["site"]), "gt_sql", n)
        spec = {"concurrency": 32, "parity": [],
                "benches": [{"gym": "gym_spider2_lite", "ours": "sqlgrade_spider2_lite", "rows": s2},
                            {"gym": "gym_bird_sql", "ours": "sqlgrade_bird_sql", "rows": bird}]}
        out = gym_run.client(g, spec, work, timeout=3600)["bench"]
    finally:
        gym_run.stop(g)
    rows = []
    for bench in ("spider2_lite", "bird_sql"):
        theirs, ours = out[f"gym_{bench}"], out[f"sqlgrade_{bench}"]
        differ = sum(1 for a, b in zip(theirs["rewards"], ours["rewards"]) if a != b)
        rows.append((g["version"], bench, theirs["seconds"], ours["seconds"], differ, g["seconds"]))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=2048, help="rollouts per benchmark (default 2048)")
    ap.add_argument("--gym", action="append", help="a NeMo Gym venv (default: .venv-gym and .venv-gym7)")
    args = ap.parse_args()
    venvs = args.gym or [os.path.join(REPO, v) for v in (".venv-gym", ".venv-gym7")]
    data = os.environ.get("SQLGRADE_DATA") or os.path.join(REPO, "..", "shared", "data")
    exe = os.environ.get("SQLGRADE_BIN") or os.path.join(REPO, "build", "sqlgrade")
    for need in (exe, os.path.join(data, "spider2lite"), os.path.join(data, "bird", "dev_databases")):
        if not os.path.exists(need):
            print(f"gym_side_by_side: {need} missing (build/sqlgrade, SQLGRADE_DATA)", file=sys.stderr)
            return 2
    rows = []
    for v in venvs:
        if not os.path.exists(gym_run.gym_python(v)):
            print(f"gym_side_by_side: skipping {v} (not installed: scripts/setup.sh)", file=sys.stderr)
            continue
        t0 = time.monotonic()
        rows += _one_gym(v, data, exe, args.n)
        print(f"gym_side_by_side: {v} done in {time.monotonic() - t0:.0f} s", file=sys.stderr)
    print(f"| Gym | benchmark | rollouts | Gym's server | sqlgrade's folder | ratio | rewards differing | ng_run start |")
    print("|---|---|---|---|---|---|---|---|")
    for version, bench, t_gym, t_ours, differ, start in rows:
        print(f"| {version} | {bench} | {args.n} | {t_gym:.2f} s ({args.n / t_gym:,.0f}/s) | "
              f"{t_ours:.2f} s ({args.n / t_ours:,.0f}/s) | **{t_gym / t_ours:.1f}x** | {differ} | {start:.0f} s |")
    return 0 if rows else 2


if __name__ == "__main__":
    sys.exit(main())
