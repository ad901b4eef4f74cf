"""The library's tables, read instead of copied (issue 32, "generated, not copied").

Two tables live once, in C++, and this module is the package's one reader of each:

* the benchmark registry (``src/sqlgrade/verdict/registry.cpp``: every benchmark's name, aliases and
  database layout): ``sqlgrade._native.registry()``, or without the native module (the server-only
  mode) ``_registry.json`` beside this file, the same table written by the build
  (``python/native/registry_table.cpp``) and installed into the wheel;
* the CLI's flag table (``src/cli/flag_table.hpp``: every flag of every subcommand with its names,
  whether it takes a value, its type and its path role — reads a file / writes a file / reads a folder /
  writes a folder / not a path): ``sqlgrade._native.cli_flags()`` (embedded in the module by the
  build), or ``_cli_flags.json`` beside this file. The Ray drivers decide which arguments are paths
  from it (``sqlgrade/ray/batch.py``, ``warm.py``).

``python/tests/test_tables.py`` proves each data file equal to the native export.

A name is looked up as the library looks it up (``verdicts::benchmark_named``): whitespace around it
ignored (``str.strip()``), any case.
"""

from __future__ import annotations

import importlib
import json
import os
import types
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from .errors import BackendUnavailable, InputError

__all__ = ["registry", "benchmark_names", "canonical", "layout", "database_path", "grades_folders", "uri_schemes",
           "shaping_fields", "parse_shard", "cli_flags", "command_flags", "flag_of", "path_arguments"]

_DIR = os.path.dirname(os.path.abspath(__file__))
_REGISTRY = os.path.join(_DIR, "_registry.json")
_CLI_FLAGS = os.path.join(_DIR, "_cli_flags.json")


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
_URI_SCHEMES: Mapping[str, str] = types.MappingProxyType(dict(_TABLE["uri_schemes"]))
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


def label_keys() -> Tuple[str, ...]:
    """The keys of a label (the RL adapters' data contract), the library's ``verdicts::label_keys()``."""
    return tuple(_TABLE["label_keys"])


def extract_keys() -> Tuple[str, ...]:
    """The boolean switches of ``extract`` (``verdicts::extract_switches()``)."""
    return tuple(_TABLE["extract_keys"])


def extract_presets() -> Tuple[str, ...]:
    """The names ``extract["preset"]`` takes (``answer::preset_names()``)."""
    return tuple(_TABLE["extract_presets"])


def default_benchmark() -> str:
    return str(_TABLE["default"])


def layout(benchmark: str) -> str:
    """``nested`` (``<root>/<id>/<id>.sqlite``) or ``flat`` (``<root>/<id>.sqlite``)."""
    return str(_ROWS[canonical(benchmark)]["layout"])


def database_path(benchmark: str, root: str, db_id: str) -> str:
    """The database file of ``db_id`` under ``root`` in the benchmark's layout (``Benchmark::database``)."""
    pattern = str(_ROWS[canonical(benchmark)]["database"]).replace("<id>", db_id)
    return pattern.replace("<root>/", root if root.endswith("/") else root + "/")  # as std::filesystem joins


def uri_schemes() -> Mapping[str, str]:
    """A server database's URI scheme -> its dialect (``postgres`` -> ``postgresql``, ``mariadb`` ->
    ``mysql``): ``engine/server.hpp`` ``server_schemes()``. Read-only, shared (read per reference)."""
    return _URI_SCHEMES


def shaping_fields() -> Tuple[str, ...]:
    """The request's ``shaping`` score fields, in order (``verdicts::shaping_fields()``)."""
    return tuple(f["name"] for f in _TABLE["shaping_fields"])


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


_flags: Optional[Dict[str, Any]] = None


def cli_flags() -> Dict[str, Any]:
    """The CLI's flag table: {"spider": [row, ...], "uda run": [...], ...}, each row {"names", "positional",
    "value", "type", "path"}; read once (native module first, else ``_cli_flags.json``)."""
    global _flags
    if _flags is None:
        mod = native()
        if mod is not None and hasattr(mod, "cli_flags"):
            _flags = json.loads(mod.cli_flags())
        else:
            _flags = _read_json(_CLI_FLAGS, "the CLI's flag table")
    return _flags


def _key(name: str) -> str:
    """A flag's lookup key: without its dashes, hyphen and underscore one character (as the CLI)."""
    return name.lstrip("-").replace("_", "-")


def command_flags(command: str) -> Dict[str, Dict[str, Any]]:
    """The flags of one subcommand (``"spider"``, ``"uda run"``) by every name's key (``db-root-path``,
    ``j``, ...): the CLI's definitions, with the flags it inherits."""
    rows = cli_flags().get(command)
    if rows is None:
        raise InputError(f"sqlgrade: no such command: {command!r}")
    out: Dict[str, Dict[str, Any]] = {}
    for r in rows:
        for n in r["names"]:
            out.setdefault(_key(n), r)
    return out


def flag_of(flags: Dict[str, Dict[str, Any]], word: str) -> Optional[Dict[str, Any]]:
    """The row a command-line word (``--db_root_path``, ``--pred=x``, ``-j``) names, or None."""
    if not word.startswith("-") or word == "-":
        return None
    return flags.get(_key(word.partition("=")[0]))


def path_arguments(command: Sequence[str], head: int) -> List[Tuple[int, str, str, str]]:
    """The arguments of ``command`` (its first ``head`` words the subcommand) that are paths by the CLI's
    definitions: (index of the word holding the value, the flag as typed, the value, the role). A value
    given as ``--flag=value`` is the flag's own word. Unknown flags are left to the CLI."""
    flags = command_flags(" ".join(command[:head]))
    out: List[Tuple[int, str, str, str]] = []
    i = head
    while i < len(command):
        word = command[i]
        row = flag_of(flags, word)
        if row is not None and row["value"]:
            flag, eq, value = word.partition("=")
            j = i if eq else i + 1
            if j < len(command):
                if row["path"] != "value":
                    out.append((j, flag, value if eq else command[j], row["path"]))
                i = j
        i += 1
    return out
