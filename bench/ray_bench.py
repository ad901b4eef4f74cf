"""Measures sqlgrade.ray on a local two-node Ray cluster (docs/ray.md, "Measured"):

1. per-rollout cost of a 2,048-rollout reward step (256 Spider dev prompts x 8 samples): in-process
   (native module), one `sqlgrade serve` over HTTP, and the Ray path (one server per node, routed by
   database from the client);
2. 10 x Spider dev (10,340 questions, dail-sql predictions) graded on one node, then on two, against
   one process (`sqlgrade spider --jobs 1` and default jobs): as CLI shard tasks (`grade`), and with warm
   graders (`grade_warm`: a pool started for the run, then a kept pool's second run);
3. the overhead of one 2,048-rollout step graded as a batch (a Spider gold/prediction pair of 2,048
   lines): in-process `sqlgrade.spider.evaluate` vs shard tasks vs a kept pool of warm graders;
4. `import ray` time.
Each line ends with the 1-minute load average (the machine is shared).

    SQLGRADE_BIN=build/sqlgrade .venv/bin/python bench/ray_bench.py [--steps 3] [--skip-batch] [--skip-rewards]

Needs the Spider data (SQLGRADE_DATA) and Ray (.venv). Starts and stops its own cluster.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "python", "tests", "ray"))
DATA = os.environ.get("SQLGRADE_DATA") or os.path.join(HERE, "..", "..", "shared", "data")
SPIDER = os.path.join(DATA, "spider")
PRED = os.path.join(DATA, "preds", "spider_dev", "dail-sql_gpt4", "pred.txt")
BIN = os.environ.get("SQLGRADE_BIN") or os.path.join(HERE, "..", "build", "sqlgrade")


def step_items(cheap: bool):
    """2,048 rollouts: 256 dev questions x 8 samples (the gold, or a wrong query every third sample).
    cheap: `SELECT 1` against gold `SELECT 1` on the same databases, so that the grading itself costs
    almost nothing and the step time is the path's own overhead."""
    with open(os.path.join(SPIDER, "dev.json"), encoding="utf-8") as f:
        dev = json.load(f)
    items = []
    for q in range(256):
        r = dev[(q * 4) % len(dev)]
        gold = "SELECT 1" if cheap else r["query"]
        for s in range(8):
            items.append({"output": gold if s % 3 else "SELECT 2", "db": r["db_id"], "gold_sql": gold})
    return items


def time_step(label, fn, steps):
    fn()  # warm: connections, gold caches
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        vs = fn()
        times.append(time.perf_counter() - t0)
    assert len(vs) == 2048
    med = statistics.median(times)
    print(f"{label:<34} step {med * 1000:8.1f} ms  per rollout {med / 2048 * 1e6:7.1f} us  "
          f"(median of {steps}; rewards {sum(v.reward for v in vs):.0f}/2048)", flush=True)
    return med


def rewards(args, cluster):
    for cheap in (True, False):
        print("-- " + ("SELECT 1 vs SELECT 1 (the path's own cost)" if cheap else "Spider dev golds"), flush=True)
        reward_paths(args, cluster, step_items(cheap))


def reward_paths(args, cluster, items):
    import sqlgrade
    from sqlgrade.ray import Fleet

    db = os.path.join(SPIDER, "database")
    common = dict(extract=False, benchmark="spider")
    sqlgrade.configure(server=None, backend="native", db_root=db)
    native = time_step("in-process (native module)", lambda: sqlgrade.verdicts(items, **common), args.steps)
    srv = subprocess.Popen([BIN, "serve", "--port", "0", "--db-dir", db, "--spider-db-dir", db],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    url = srv.stdout.readline().split("listening on ", 1)[1].split()[0]
    try:
        sqlgrade.configure(server=url, backend="server", db_root=None)
        http = time_step("HTTP, one sqlgrade serve", lambda: sqlgrade.verdicts(items, **common), args.steps)
    finally:
        srv.terminate()
        srv.wait(20)
    fleet = Fleet.start(["--db-dir", db, "--spider-db-dir", db], address=cluster.address, check_timeout_s=180)
    try:
        urls = ",".join(fleet.urls().values())
        sqlgrade.configure(server=urls, backend="server", db_root=None)
        routed = time_step(f"Ray path ({len(fleet.urls())} nodes, routed)",
                           lambda: sqlgrade.verdicts(items, **common), args.steps)
    finally:
        fleet.stop()
    print(f"overhead per rollout vs in-process: HTTP {(http - native) / 2048 * 1e6:.1f} us, "
          f"Ray path {(routed - native) / 2048 * 1e6:.1f} us", flush=True)


def load() -> str:
    return f"[load {os.getloadavg()[0]:.1f}]"


def write_pair(tmp, name, gold_lines, pred_lines):
    gold, pred = os.path.join(tmp, name + "_gold.sql"), os.path.join(tmp, name + "_pred.txt")
    for path, lines in ((gold, gold_lines), (pred, pred_lines)):
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
    return ["spider", "--gold", gold, "--pred", pred, "--db", os.path.join(SPIDER, "database"), "--etype", "exec"]


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().rstrip("\n").split("\n")


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def batch(args, cluster, tmp, pool):
    """Without a pool: one process, the shard tasks and warm graders on a pool of the run; with a kept
    pool (which holds every CPU: the shard tasks could not run beside it), two runs on it."""
    from sqlgrade.ray import grade, grade_warm

    cmd = write_pair(tmp, "x10", read_lines(os.path.join(SPIDER, "dev_gold.sql")) * 10, read_lines(PRED) * 10)
    for jobs in (["--jobs", "1"], []) if pool is None else ([],):
        wall, _ = timed(lambda: subprocess.run([BIN, *cmd, *jobs, "--json", os.path.join(tmp, "one.json")], check=True,
                                               capture_output=True))
        print(f"10x Spider dev, one process {' '.join(jobs) or '(all cores)':<12} {wall:6.2f} s {load()}", flush=True)
    with open(os.path.join(tmp, "one.json"), encoding="utf-8") as f:
        ref = json.load(f)["summary"]
    label = "two nodes" if len(cluster.procs) > 1 else "one node"
    runs = [("shard tasks (8 shards, --jobs 1)",
             lambda: grade([*cmd, "--jobs", "1"], json_out=os.path.join(tmp, "ray.json"), address=cluster.address,
                           shards=8)),
            ("warm graders, pool for the run",
             lambda: grade_warm(cmd, json_out=os.path.join(tmp, "warm.json"), address=cluster.address)),
            ("warm graders, kept pool, 1st run",
             lambda: grade_warm(cmd, json_out=os.path.join(tmp, "w1.json"), pool=pool)),
            ("warm graders, kept pool, 2nd run",
             lambda: grade_warm(cmd, json_out=os.path.join(tmp, "w2.json"), pool=pool))]
    for what, fn in runs:
        if ("kept" in what) != (pool is not None):
            continue
        wall, out = timed(fn)
        assert out["record"]["summary"] == ref
        nodes = len({p["node"] for p in out["parts"]})
        print(f"10x Spider dev, {label}, {what:<34} {wall:6.2f} s ({len(out['parts'])} parts on {nodes} node(s), "
              f"sum of part times {sum(p['seconds'] for p in out['parts']):.2f} s) {load()}", flush=True)


def step_overhead(args, cluster, tmp, pool, base):
    """One 2,048-rollout step (256 dev questions x 8 samples: the gold, or SELECT 2 every third) graded
    as a batch by each path; the median step time over args.steps, and its excess over in-process
    (base["in-process"]). Without a pool: in-process and shard tasks; with one: the warm graders."""
    import sqlgrade.spider
    from sqlgrade.ray import grade, grade_warm

    golds = read_lines(os.path.join(SPIDER, "dev_gold.sql"))
    g, p = [], []
    for q in range(256):
        line = golds[(q * 4) % len(golds)]
        for s in range(8):
            g.append(line)
            p.append(line.rsplit("\t", 1)[0] if s % 3 else "SELECT 2")
    cmd = write_pair(tmp, "step", g, p)
    kw = dict(gold=cmd[2], pred=cmd[4], db_dir=cmd[6], etype="exec", jobs=1)
    paths = [("in-process sqlgrade.spider.evaluate (jobs 1)", lambda: sqlgrade.spider.evaluate(**kw)),
             ("shard tasks (one per CPU)", lambda: grade([*cmd, "--jobs", "1"], json_out=os.path.join(tmp, "s.json"),
                                                        address=cluster.address)),
             ("warm graders, kept pool", lambda: grade_warm(cmd, json_out=os.path.join(tmp, "w.json"), pool=pool))]
    for what, fn in paths:
        if ("warm" in what) != (pool is not None):
            continue
        fn()  # warm
        med = statistics.median(timed(fn)[0] for _ in range(args.steps))
        base.setdefault("in-process", med)
        print(f"2,048-rollout step as a batch, {what:<46} {med * 1000:8.1f} ms a step "
              f"(+{(med - base['in-process']) * 1000:.0f} ms over in-process; median of {args.steps}) {load()}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--skip-batch", action="store_true")
    ap.add_argument("--skip-rewards", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import ray"], check=True)
    print(f"import ray: {time.perf_counter() - t0:.2f} s (a fresh interpreter, bytecode compiled)", flush=True)
    from _local_cluster import LocalCluster

    os.environ["SQLGRADE_BIN"] = os.path.abspath(BIN)
    t0 = time.perf_counter()
    cluster = LocalCluster(workers=0)
    os.environ.update(cluster.driver_env())
    print(f"ray start --head: {time.perf_counter() - t0:.1f} s", flush=True)
    pool = None
    try:
        with tempfile.TemporaryDirectory() as tmp:
            from sqlgrade.ray import GraderPool

            for nodes in (1, 2):
                if nodes == 2:
                    t0 = time.perf_counter()
                    cluster.add_node("node2", "127.0.0.3", {"node_b": 1})
                    print(f"ray start --address (second node): {time.perf_counter() - t0:.1f} s", flush=True)
                if args.skip_batch:
                    continue
                base = {}
                batch(args, cluster, tmp, None)
                step_overhead(args, cluster, tmp, None, base)
                pool = GraderPool.start(cluster.address)
                batch(args, cluster, tmp, pool)
                step_overhead(args, cluster, tmp, pool, base)
                pool.close()
            if not args.skip_rewards:
                rewards(args, cluster)
    finally:
        if pool is not None:
            pool.close()
        import ray

        if ray.is_initialized():
            ray.shutdown()
        cluster.stop()


if __name__ == "__main__":
    main()
