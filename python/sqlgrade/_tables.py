"""The library's tables, read instead of copied (issue 32, "generated, not copied").

The tables below live once, in C++, and this module is the package's one reader of each:

* the benchmark registry (``src/sqlgrade/verdict/registry.cpp``: every benchmark's name, aliases and
  database layout): ``sqlgrade._native.registry()``, or without the native module (the server-only
  mode) ``_registry.json`` beside this file, the same table written by the build
  (``python/native/registry_table.cpp``) and installed into the wheel;
* the CLI's ``--shard i/n`` parser (``runs::parse_shard``): ``sqlgrade._native.parse_shard``.

``python/tests/test_tables.py`` proves each data file equal to the native export.

A name is looked up as the library looks it up (``verdicts::benchmark_named``): whitespace around it
ignored (``str.strip()``), any case.
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any, Dict, Optional, Tuple

from .errors import BackendUnavailable, InputError

__all__ = ["registry", "benchmark_names", "canonical", "layout", "database_path", "database_paths", "grades_folders", "parse_shard"]

_DIR = os.path.dirname(os.path.abspath(__file__))
_REGISTRY = os.path.join(_DIR, "_registry.json")


def native() -> Optional[Any]:
    """``sqlgrade._native``, or None when it is not built (server-only mode)."""
    try:
        return importlib.import_module(__package__ + "._native")
    except ImportError:
        return None


def _read_json(path: str, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError:
        raise BackendUnavailable(f"sqlgrade: {what} is missing: neither the native module nor {path} is built "
                                 "(scripts/setup.sh, or pip install the package)") from None


def _load_registry() -> Dict[str, Any]:
    mod = native()
    if mod is not None and hasattr(mod, "registry"):
        return json.loads(mod.registry())
    return _read_json(_REGISTRY, "the registry of benchmarks")


_TABLE: Dict[str, Any] = _load_registry()  # read at import: the package's names come from it
_ROWS: Dict[str, Dict[str, Any]] = {r["name"]: r for r in _TABLE["benchmarks"]}
_NAMES: Dict[str, str] = {n: r["name"] for r in _TABLE["benchmarks"] for n in [r["name"], *r["aliases"]]}


def registry() -> Dict[str, Any]:
    """The registry as the library exports it (a fresh copy)."""
    return json.loads(json.dumps(_TABLE))


def benchmark_names() -> Tuple[str, ...]:
    """The canonical names, in the registry's order (spider2, spider, bird)."""
    return tuple(_ROWS)


def expected() -> str:
    """``spider2, spider or bird``: the names as the library's messages list them."""
    names = list(_ROWS)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


def canonical(name: Any) -> str:
    """The canonical name of a benchmark name or alias; InputError otherwise."""
    if isinstance(name, str):
        key = name.strip().lower()
        if key in _NAMES:
            return _NAMES[key]
    raise InputError(f"unknown benchmark {name!r} (expected {expected()})")


def default_benchmark() -> str:
    return str(_TABLE["default"])


def layout(benchmark: str) -> str:
    """``nested`` (``<root>/<id>/<id>.sqlite``) or ``flat`` (``<root>/<id>.sqlite``)."""
    return str(_ROWS[canonical(benchmark)]["layout"])


def database_path(benchmark: str, root: str, db_id: str) -> str:
    """The database file of ``db_id`` under ``root`` in the benchmark's layout (``Benchmark::database``)."""
    pattern = str(_ROWS[canonical(benchmark)]["database"]).replace("<id>", db_id)
    return pattern.replace("<root>/", root if root.endswith("/") else root + "/")  # as std::filesystem joins


def database_paths(benchmark: str, root: str, db_id: str) -> Tuple[str, str]:
    """(the benchmark's own layout, the other layout) for ``db_id`` under ``root``: the reward server's
    lookup order (``Benchmark::locate``)."""
    own = layout(benchmark)
    other = next(b for b in _ROWS if _ROWS[b]["layout"] != own)
    return database_path(benchmark, root, db_id), database_path(other, root, db_id)


def grades_folders(benchmark: str) -> bool:
    """A folder of databases (a test suite) is a database of this benchmark (Spider)."""
    return bool(_ROWS[canonical(benchmark)]["grades_folders"])


def parse_shard(spec: str) -> Tuple[int, int]:
    """``i/n`` as (i, n) by the CLI's own parser (``runs::parse_shard``); InputError otherwise."""
    mod = native()
    if mod is None:
        raise BackendUnavailable("sqlgrade: --shard needs the native module (scripts/setup.sh)")
    try:
        i, n = mod.parse_shard(spec)
    except ValueError as e:
        raise InputError(str(e)) from None
    return int(i), int(n)

