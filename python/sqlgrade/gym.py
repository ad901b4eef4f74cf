"""``python -m sqlgrade.gym install GYM_ROOT``: writes sqlgrade's NeMo Gym resources-server folder into a
Gym root (the folder ``ng_run`` runs in), so a user who installed the wheel has it without the repository.

The wheel carries the folder as ``sqlgrade/gym_server/`` (in a source checkout it is
``integrations/nemo_gym/resources_servers/sqlgrade/``): ``app.py`` (execs ``sqlgrade serve`` where Gym
expects its resources server), ``requirements.txt`` and ``configs/`` (``spider2_lite.yaml``, ``bird_sql.yaml``
and ``spider.yaml``: drop-in swaps of Gym's own configs, agents and policy model included).
``install`` copies it to ``GYM_ROOT/resources_servers/sqlgrade/`` and, for a run without network
(docs/python.md, "NeMo Gym"), also:

* writes ``configs/local.yaml``: the resources server alone (no agent, no model server), with the
  benchmark and database folder given here and ``sqlgrade_bin`` set to this package's CLI, so
  ``ng_run "+config_paths=[resources_servers/sqlgrade/configs/local.yaml]"`` starts it with nothing else;
* links ``resources_servers/sqlgrade/.venv`` to the environment of the Python running this command
  (where the wheel is installed; Gym's own venv, which has the OmegaConf ``app.py`` reads the config
  with), where Gym looks for the server's venv: with ``+skip_venv_if_present=true`` Gym then uses it
  and does not build one with ``uv`` (which needs the network). ``--no-venv`` leaves it out.

    python -m sqlgrade.gym install GYM_ROOT [--benchmark spider2|bird|spider] [--db-dir DIR] [--force] [--no-venv]
    python -m sqlgrade.gym path          # the shipped folder
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from typing import List, Optional

__all__ = ["folder", "install", "main"]

SERVER_NAME = "sqlgrade"
# Top-level key of configs/local.yaml per benchmark: Gym's own names for spider2_lite and bird_sql, so
# an agent block of Gym's config (e.g. resources_servers/spider2_lite/configs/spider2_lite.yaml) finds it.
_CONFIG_KEYS = {"spider2": "spider2_lite_resources_server", "bird": "bird_sql_resources_server",
                "spider": "spider_resources_server"}


def folder() -> str:
    """The shipped resources-server folder: the wheel's ``sqlgrade/gym_server``, else the checkout's
    ``integrations/nemo_gym/resources_servers/sqlgrade``. FileNotFoundError when neither exists."""
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "gym_server"),
                 os.path.join(here, "..", "..", "integrations", "nemo_gym", "resources_servers", SERVER_NAME)):
        if os.path.isfile(os.path.join(cand, "app.py")):
            return os.path.normpath(cand)
    raise FileNotFoundError(f"sqlgrade.gym: the NeMo Gym folder is not in this installation ({here}/gym_server)")


def _local_config(benchmark: str, db_dir: str, cli: Optional[str]) -> str:
    """configs/local.yaml: one resources server, nothing that needs a model or the network."""
    key = _CONFIG_KEYS[benchmark]
    lines = [
        "# Written by `python -m sqlgrade.gym install`: sqlgrade's resources server alone (no agent, no",
        "# model server), for `ng_run \"+config_paths=[resources_servers/sqlgrade/configs/local.yaml]\"`.",
        f"{key}:",
        "  resources_servers:",
        f"    {SERVER_NAME}:",
        "      entrypoint: app.py",
        f"      benchmark: {benchmark}",
        f"      db_dir: {_yaml_str(db_dir)}",
        "      max_concurrency: 32",
        "      sql_execution_timeout_s: 30.0",
        "      verify_timeout_s: 30.0",
    ]
    if cli:
        lines.append(f"      sqlgrade_bin: {_yaml_str(cli)}")
    lines += ["      domain: coding", "      verified: false",
              "      description: Official-evaluator text-to-SQL verdicts, served by sqlgrade (C++).",
              "      value: Official-evaluator rewards for text-to-SQL, with bounded time and memory per query.", ""]
    return "\n".join(lines)


def _yaml_str(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"  # YAML single-quoted scalar: any path as written


def _cli() -> Optional[str]:
    try:
        from ._cli import binary
        return binary()
    except FileNotFoundError:
        return None


def install(gym_root: str, *, benchmark: str = "spider2", db_dir: Optional[str] = None, force: bool = False,
            venv: bool = True) -> str:
    """Writes the folder into ``gym_root/resources_servers/sqlgrade``; returns that path. ``db_dir``
    (made absolute) goes into ``configs/local.yaml``; without it the file is not written. ValueError for a
    bad benchmark, FileExistsError when the folder exists and ``force`` is false."""
    if benchmark not in _CONFIG_KEYS:
        raise ValueError(f"sqlgrade.gym: unknown benchmark {benchmark!r} (one of {', '.join(_CONFIG_KEYS)})")
    if not os.path.isdir(gym_root):
        raise FileNotFoundError(f"sqlgrade.gym: {gym_root}: no such folder (the Gym root: where ng_run runs)")
    if db_dir is not None and not os.path.isdir(db_dir):
        raise FileNotFoundError(f"sqlgrade.gym: {db_dir}: no such folder (--db-dir: the benchmark's databases)")
    dest = os.path.join(os.path.abspath(gym_root), "resources_servers", SERVER_NAME)
    if os.path.lexists(dest):
        if not force:
            raise FileExistsError(f"sqlgrade.gym: {dest} exists (--force replaces it)")
        shutil.rmtree(dest) if os.path.isdir(dest) and not os.path.islink(dest) else os.remove(dest)
    tmp = dest + ".partial"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(folder(), tmp, ignore=shutil.ignore_patterns("__pycache__", ".venv"))
    if db_dir is not None:
        with open(os.path.join(tmp, "configs", "local.yaml"), "w", encoding="utf-8") as f:
            f.write(_local_config(benchmark, os.path.abspath(db_dir), _cli()))
    if venv:
        os.symlink(sys.prefix, os.path.join(tmp, ".venv"))
    os.rename(tmp, dest)
    return dest


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m sqlgrade.gym", description="sqlgrade's NeMo Gym resources server.")
    sub = p.add_subparsers(dest="cmd", required=True)
    i = sub.add_parser("install", help="write the folder into GYM_ROOT/resources_servers/sqlgrade")
    i.add_argument("gym_root", metavar="GYM_ROOT", help="the folder ng_run runs in")
    i.add_argument("--benchmark", default="spider2", choices=sorted(_CONFIG_KEYS),
                   help="benchmark of configs/local.yaml (default spider2)")
    i.add_argument("--db-dir", help="the benchmark's databases: writes configs/local.yaml (the server alone)")
    i.add_argument("--force", action="store_true", help="replace an existing folder")
    i.add_argument("--no-venv", action="store_true",
                   help="do not link .venv to this Python's environment (Gym then builds one with uv)")
    sub.add_parser("path", help="print the shipped folder")
    return p


def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.cmd == "path":
            print(folder())
            return 0
        dest = install(args.gym_root, benchmark=args.benchmark, db_dir=args.db_dir, force=args.force,
                       venv=not args.no_venv)
    except (OSError, ValueError) as e:
        print(str(e) if str(e).startswith("sqlgrade.gym") else f"sqlgrade.gym: {e}", file=sys.stderr)
        return 2
    print(f"sqlgrade.gym: wrote {dest}")
    if args.db_dir is not None:
        print(f"  run (in {os.path.abspath(args.gym_root)}): ng_run "
              f"\"+config_paths=[resources_servers/{SERVER_NAME}/configs/local.yaml]\" +skip_venv_if_present=true")
    return 0


if __name__ == "__main__":
    sys.exit(main())
