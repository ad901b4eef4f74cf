"""``python -m sqlgrade.ray``: grade a benchmark run on a Ray cluster, or serve rewards from every node.

    python -m sqlgrade.ray grade --address HOST:6379 --json RUN.json [--shards N] -- \\
        spider --gold dev_gold.sql --pred pred.txt --db database --etype exec --jobs 1
    python -m sqlgrade.ray grade --warm --address HOST:6379 --json RUN.json [--batches N] -- \\
        spider --gold dev_gold.sql --pred pred.txt --db database --etype exec
    python -m sqlgrade.ray serve --address HOST:6379 [--urls-file F] -- --spider-db-dir DIR ...

``grade`` prints what ``sqlgrade merge`` prints (the run's table) and writes the merged record;
``serve`` prints the comma-separated URLs (for ``SQLGRADE_SERVER``) and supervises the servers until
SIGINT/SIGTERM. Errors: one line on stderr naming the node, exit 2.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from typing import List, Optional

from ..errors import SqlgradeError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m sqlgrade.ray", description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("grade", help="grade a benchmark run as shards on the cluster, merged into one record")
    g.add_argument("--address", default=None, help="Ray cluster: HOST:PORT, ray://HOST:PORT or auto (RAY_ADDRESS)")
    g.add_argument("--json", required=True, help="the merged run record (written when every shard is graded)")
    g.add_argument("--shards", type=int, default=0, help="number of shards (default: one per CPU of the cluster)")
    g.add_argument("--retries", type=int, default=3, help="times a shard lost with its worker or node is re-run")
    g.add_argument("--timeout", type=float, default=3600.0, help="seconds for the whole run")
    g.add_argument("--connect-timeout", type=float, default=30.0, help="seconds to reach the cluster")
    g.add_argument("--warm", action="store_true",
                   help="warm graders (Ray actors grading in-process) over batches of databases "
                        "(UDA: datasets); spider, bird, spider2, uda run")
    g.add_argument("--batches", type=int, default=0, help="--warm: number of batches (default: two per grader)")
    g.add_argument("--per-node", type=int, default=0, help="--warm: graders per node (default: one per CPU)")
    g.add_argument("--grader-cpus", type=float, default=1.0,
                   help="--warm: Ray CPUs each grader holds (default 1; 0 reserves none, see docs/ray.md)")
    s = sub.add_parser("serve", help="one sqlgrade serve per node, supervised, until SIGINT/SIGTERM")
    s.add_argument("--address", default=None)
    s.add_argument("--interval", type=float, default=2.0, help="seconds between health checks")
    s.add_argument("--urls-file", default=None, help="also write the URLs (comma-separated) to this file")
    s.add_argument("--connect-timeout", type=float, default=30.0)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    rest: List[str] = []
    if "--" in args:
        i = args.index("--")
        args, rest = args[:i], args[i + 1:]
    ns = _parser().parse_args(args)
    try:
        if ns.cmd == "grade":
            return _grade(ns, rest)
        return _serve(ns, rest)
    except SqlgradeError as e:
        msg = str(e)  # the API's messages may already name sqlgrade.ray: once is enough
        print(msg if msg.startswith("sqlgrade.ray: ") else f"sqlgrade.ray: {msg}", file=sys.stderr)
        return 2


def _grade(ns: argparse.Namespace, command: List[str]) -> int:
    if ns.warm:
        from .warm import grade_warm

        out = grade_warm(command, json_out=ns.json, address=ns.address, batches=ns.batches, per_node=ns.per_node,
                         num_cpus=ns.grader_cpus,
                         retries=ns.retries, timeout_s=ns.timeout, connect_timeout_s=ns.connect_timeout)
    else:
        from .batch import grade

        out = grade(command, json_out=ns.json, address=ns.address, shards=ns.shards, retries=ns.retries,
                    timeout_s=ns.timeout, connect_timeout_s=ns.connect_timeout)
    sys.stdout.write(out["text"])
    nodes = sorted({p["node"] for p in out["parts"]})
    what = "batches by database, warm graders" if ns.warm else "shards"
    print(f"sqlgrade.ray: {len(out['parts'])} {what} on {len(nodes)} node(s), merged into {ns.json}", file=sys.stderr)
    return 0


def _serve(ns: argparse.Namespace, serve_args: List[str]) -> int:
    from .serve import Fleet

    if ns.urls_file:  # not over a database or file the servers read (issue 31)
        from .batch import check_output

        check_output(ns.urls_file, "--urls-file", ["serve", *serve_args], 1)
    fleet = Fleet.start(serve_args, address=ns.address, connect_timeout_s=ns.connect_timeout)
    urls = ",".join(fleet.urls().values())
    print(urls, flush=True)
    if ns.urls_file:
        with open(ns.urls_file, "w", encoding="utf-8") as f:
            f.write(urls + "\n")
    done = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: done.set())
    fleet.supervise(ns.interval)
    done.wait()
    fleet.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
