#!/usr/bin/env python3
"""One OpenRLHF remote-reward POST of a GRPO step (128 prompts x 16 samples = 2,048 rollouts) to
`sqlgrade serve`'s /get_reward: the time of the whole batch, cold and warm gold cache, and the time a
/verify sent meanwhile waits for its answer.

The rollouts are those of bench/python_rewards.py (64 Spider 2.0-Lite and 64 BIRD dev prompts, each
with right, reordered, wrong, failing and no-SQL samples), as OpenRLHF sends them: query = prompt +
response, labels = {"gold_sql", "db_path", "benchmark"}.

    python3 bench/serve_get_reward.py [--server build/sqlgrade] [--repeat 3] [-- serve flags...]

Not a test: prints the figures (docs/serve.md quotes them with this command).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from python_rewards import REPO, batch, prompts  # noqa: E402  (the same rollouts)


def post(url: str, body: bytes, timeout: float = 600) -> dict:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def openrlhf_body(items: list) -> bytes:
    prompt = "Question: answer with SQL.\n"
    return json.dumps({
        "query": [prompt + it["output"] for it in items],
        "prompts": [prompt] * len(items),
        "labels": [{"gold_sql": it["gold_sql"], "db_path": it["db"], "benchmark": it["benchmark"]} for it in items],
    }).encode()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(REPO, "build", "sqlgrade"), help="sqlgrade binary")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("serve_flags", nargs="*", help="extra `sqlgrade serve` flags (after --)")
    args = ap.parse_args()
    data = os.environ.get("SQLGRADE_DATA") or os.path.join(REPO, "..", "shared", "data")
    items = batch(prompts(data, 64, random.Random(7)))
    body = openrlhf_body(items)
    s2 = os.path.join(data, "spider2lite", "databases")
    bird = os.path.join(data, "bird", "dev_databases")
    proc = subprocess.Popen([args.server, "serve", "--port", "0", "--db-dir", s2, "--bird-db-dir", bird, *args.serve_flags],
                            stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        url = line.split("listening on ", 1)[1].split()[0]
        print(f"{len(items)} rollouts in one POST /get_reward ({len(body):,} bytes); {line.strip()}")
        t0 = time.perf_counter()
        reply = post(url + "/get_reward", body)
        cold = time.perf_counter() - t0
        mean = sum(reply["rewards"]) / len(reply["rewards"])
        best, wall, cpu0 = float("inf"), 0.0, cpu_seconds(proc.pid)
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            again = post(url + "/get_reward", body)
            best = min(best, time.perf_counter() - t0)
            wall += time.perf_counter() - t0
            assert again["rewards"] == reply["rewards"], "rewards differ between runs"
        cpu = cpu_seconds(proc.pid) - cpu0
        digest = hashlib.sha256(json.dumps(reply["rewards"]).encode()).hexdigest()[:12]
        print(f"/get_reward: cold {cold:.3f} s, warm {best:.3f} s ({len(items) / best:,.0f} rollouts/s); "
              f"mean reward {mean:.3f}, rewards sha256 {digest}; server CPU / wall {cpu / wall:.2f} "
              f"(cores busy on average; load average {os.getloadavg()[0]:.1f})")

        # A /verify sent while the batch grades: how long does it wait?
        it = items[0]
        verify = json.dumps({"db_id": os.path.basename(it["db"])[:-len(".sqlite")], "benchmark": it["benchmark"],
                             "gold_sql": it["gold_sql"], "model_output": it["output"]}).encode()
        waits = []
        for _ in range(args.repeat):
            th = threading.Thread(target=post, args=(url + "/get_reward", body))
            th.start()
            time.sleep(0.05)
            t0 = time.perf_counter()
            post(url + "/verify", verify)
            waits.append(time.perf_counter() - t0)
            th.join()
        print(f"/verify sent 50 ms into a warm batch: answered after {min(waits) * 1e3:.1f}-{max(waits) * 1e3:.1f} ms")
    finally:
        proc.terminate()
        proc.wait()


if __name__ == "__main__":
    main()
