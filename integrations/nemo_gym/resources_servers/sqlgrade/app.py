"""NeMo Gym resources server `sqlgrade`: runs `sqlgrade serve` where Gym expects its resources server.

NeMo Gym starts a resources server as `cd resources_servers/<name> && source .venv/bin/activate &&
NEMO_GYM_CONFIG_DICT=<yaml of the whole config> NEMO_GYM_CONFIG_PATH=<top-level key> python app.py`
(nemo_gym/cli/env.py, 0.4.0), then polls `GET /` on the host and port it put in that config. This file
reads the server's own entry from there and replaces itself (exec) with

    sqlgrade serve --host H --port P --benchmark B --db-dir D [--spider-db-dir ...] [--bird-db-dir ...]
                   [--timeout T] [--max-concurrency N] [--spider2-gold-dir G] [extra_args ...]

which speaks the /verify, /aggregate_metrics, /seed_session and /reverify_mode contract of Gym's
spider2_lite and bird_sql servers (docs/python.md, "NeMo Gym"). Its replies carry the verdict's
`stage` (what happened: equal, different, timeout, refuted, ...) and a `failure_reason` in Gym's own
words only (`--failure-codes gym`: none, no_sql_extracted, execution_error, gold_execution_error,
unknown_error; with extract_preset gym-bird-0.7 also result_mismatch, execution_timeout), because Gym
validates a reply with its server's response model; docs/serve.md has the table. Config keys (configs/*.yaml):

    benchmark               spider2 | bird | spider (the rows Gym sends carry none)
    db_dir                  the benchmark's databases (spider2: <id>.sqlite; bird: <id>/<id>.sqlite;
                            spider: <id>/*.sqlite); relative paths are relative to Gym's root folder
                            (the one holding resources_servers/), as Gym's own servers resolve theirs
    spider2_gold_dir        optional official Spider 2.0-Lite gold folder (rows with only an instance_id)
    sql_execution_timeout_s per-query deadline (Gym's key; --timeout)
    max_concurrency         verifies at once (Gym's key; --max-concurrency)
    verify_timeout_s        the whole verify's deadline, from when a worker takes it (--request-budget;
                            the shipped configs say 30.0, the verify timeout Gym and axolotl default to)
    queue_timeout_s         longest wait for a worker; then HTTP 503 with Retry-After (--queue-timeout)
    extract_preset          sqlgrade (default) | gym-bird-0.4 | gym-bird-0.7: NeMo Gym bird_sql's own
                            extraction and failure codes of that version (--extract-preset)
    reward_components       true: every reply carries reward_components (--reward-components)
    sqlgrade_bin            the sqlgrade CLI (default: $SQLGRADE_BIN, else `sqlgrade` on PATH: the
                            console command of the sqlgrade wheel in this server's venv)
    extra_args              more `sqlgrade serve` flags, e.g. ["--keep-think"]
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any, Dict, List

GYM_ROOT = Path(__file__).resolve().parent.parent.parent  # <root>/resources_servers/sqlgrade/app.py


def server_config() -> Dict[str, Any]:
    """This server's entry: config[NEMO_GYM_CONFIG_PATH][<server type>][<server name>]."""
    text, key = os.environ.get("NEMO_GYM_CONFIG_DICT"), os.environ.get("NEMO_GYM_CONFIG_PATH")
    if not text or not key:
        sys.exit("sqlgrade app.py: NEMO_GYM_CONFIG_DICT / NEMO_GYM_CONFIG_PATH not set (NeMo Gym starts this file)")
    try:  # Gym's venv has OmegaConf (interpolations resolved as Gym resolves them); PyYAML otherwise
        from omegaconf import OmegaConf
        full = OmegaConf.to_container(OmegaConf.create(text), resolve=True)
    except ImportError:
        import yaml
        full = yaml.safe_load(text)
    node: Any = full.get(key) if isinstance(full, dict) else None
    for _ in range(2):  # resources_servers -> sqlgrade
        if not isinstance(node, dict) or not node:
            sys.exit(f"sqlgrade app.py: no server entry under {key!r} in NEMO_GYM_CONFIG_DICT")
        node = next(iter(node.values()))
    return node


def _path(p: str) -> str:
    return str(p if os.path.isabs(p) else GYM_ROOT / p)


def serve_args(cfg: Dict[str, Any]) -> List[str]:
    bench = str(cfg.get("benchmark") or "spider2")
    db_dir = cfg.get("db_dir")
    if not db_dir:
        sys.exit("sqlgrade app.py: the config needs `db_dir` (the benchmark's database folder)")
    db = _path(str(db_dir))
    args = ["serve", "--host", str(cfg.get("host") or "127.0.0.1"), "--port", str(cfg.get("port") or 0),
            "--benchmark", bench, "--db-dir", db]
    if bench in ("spider", "testsuite", "test-suite"):
        args += ["--spider-db-dir", db]
    elif bench == "bird":
        args += ["--bird-db-dir", db]
    if cfg.get("spider2_gold_dir"):
        args += ["--spider2-gold-dir", _path(str(cfg["spider2_gold_dir"]))]
    if cfg.get("sql_execution_timeout_s"):
        args += ["--timeout", str(cfg["sql_execution_timeout_s"])]
    if cfg.get("max_concurrency"):
        args += ["--max-concurrency", str(cfg["max_concurrency"])]
    if cfg.get("verify_timeout_s"):
        args += ["--request-budget", str(cfg["verify_timeout_s"])]
    if cfg.get("queue_timeout_s"):
        args += ["--queue-timeout", str(cfg["queue_timeout_s"])]
    if cfg.get("extract_preset"):
        args += ["--extract-preset", str(cfg["extract_preset"])]
    if cfg.get("reward_components"):
        args += ["--reward-components"]
    # Gym validates a reply with its own response model, whose failure_reason enum holds none of
    # sqlgrade's finer codes (result_mismatch, timeout, refuted, ...); `stage` keeps them.
    args += ["--failure-codes", "gym"]
    return args + [str(a) for a in (cfg.get("extra_args") or [])]


def sqlgrade_bin(cfg: Dict[str, Any]) -> str:
    exe = cfg.get("sqlgrade_bin") or os.environ.get("SQLGRADE_BIN") or shutil.which("sqlgrade")
    if not exe:
        sys.exit("sqlgrade app.py: no sqlgrade CLI: install the sqlgrade wheel into this server's venv "
                 "(requirements.txt), or set `sqlgrade_bin` in the config or SQLGRADE_BIN")
    return str(exe)


def main() -> None:
    cfg = server_config()
    exe, args = sqlgrade_bin(cfg), serve_args(cfg)
    print(f"sqlgrade app.py: exec {exe} {' '.join(args)}", flush=True)
    os.execv(exe, [exe, *args])


if __name__ == "__main__":
    main()
