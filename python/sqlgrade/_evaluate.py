"""Shared machinery of the whole-benchmark evaluations (``sqlgrade.spider/bird/spider2/uda``).

Each ``evaluate()`` runs the same C++ evaluation as the ``sqlgrade`` CLI subcommand, in-process
through the native module (GIL released, no progress bar, nothing printed), and returns a run object:

* ``str(run)`` / ``run.text``: exactly what the CLI prints on stdout (``render_text``);
* ``run.to_dict()``: exactly what the CLI's ``--json`` file holds (parsed from ``render_json``, so it
  follows that format whatever it becomes);
* ``run.summary``, ``run.warnings``: the headline numbers as Python values;
* ``run.record`` / ``run.instances`` / ``run.to_pandas()``: the run record and its instances, one shape
  for every benchmark (``id``, ``question``, ``scores``, ``category``, ``rows``, ...: ``_records.py``);
  ``run.items``: the benchmark's own per-instance dicts (Spider's ``exec_reason``, BIRD's ``status``, ...).

``sqlgrade.runs.diff/report/merge`` take these run objects as they take record files.

Bad input raises :class:`sqlgrade.InputError` with the CLI's one-line message (what the CLI prints
after ``sqlgrade: ``). Whole-benchmark evaluation needs the native module (not the server backend).
"""

from __future__ import annotations

import copy
import importlib
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._bounds import check
from ._records import RecordView
from ._tables import parse_shard
from ._unicode import check_text
from .errors import BackendUnavailable, InputError

__all__ = ["BenchmarkRun", "call_native", "check_outputs", "fspath", "native_options", "str_or_none", "bool_or_none", "shard_pair", "shard_fields",
           "verify_options", "VERIFY_KEYS"]

# evaluate(verify={...}): the CLI's flags --verify-budget, --verify-candidates, --seed, --counterexamples.
VERIFY_KEYS = ("budget", "candidates", "seed", "counterexamples")


def _native() -> Any:
    try:
        m = importlib.import_module("sqlgrade._native")
    except ImportError as e:
        raise BackendUnavailable(
            "sqlgrade: whole-benchmark evaluate() needs the native module sqlgrade._native, which is not built "
            f"({e}); build it with `cmake --build build --target sqlgrade_native` (docs/python.md)") from e
    if not hasattr(m, "spider_evaluate"):
        raise BackendUnavailable("sqlgrade: sqlgrade._native has no evaluate functions; rebuild the native module "
                                 "from the same checkout")
    return m


def native_options(cls: str, **fields: Any) -> Any:
    """The library's option struct ``_native.<cls>`` (SpiderOptions, BirdOptions, Spider2Options): its
    defaults are the library's (the CLI's); each field given (not None) is set on it, and the module
    checks it there (a number against the table of bounds, a choice through the library's parser, each
    with the message the CLI gives). Only the types are converted here."""
    m = _native()
    o = getattr(m, cls)()
    for name, value in fields.items():
        if value is None:
            continue
        check_text(value, f"option {ascii(value)[:40]}")  # an option holding a surrogate is named by value
        try:
            setattr(o, name, value)
        except m.InputError as e:
            raise InputError(str(e)) from None
    return o


def verify_options(verify: Any) -> Any:
    """``verify=`` of an evaluate(): None/False = no verification; True = the CLI's ``--verify`` with its
    defaults (5 s and 200 candidate databases per match, seed 0); a dict of ``budget``, ``candidates``,
    ``seed``, ``counterexamples`` (a folder: each counterexample written as ``<system>/<id>.sqlite`` +
    ``.json``; a folder that cannot be written raises ``InputError`` before anything runs, with the CLI's
    message, and so does a counterexample that cannot be written during the run, after removing what the
    run wrote). The library's ``_native.VerifyOptions``, each value checked there (the table of bounds)."""
    if verify is None or verify is False:
        return None
    if verify is not True and not isinstance(verify, dict):
        raise InputError(f"verify must be True, False, None or a dict of {', '.join(VERIFY_KEYS)}")
    fields = {} if verify is True else dict(verify)
    bad = [str(k) for k in fields if k not in VERIFY_KEYS]
    if bad:
        raise InputError(f"verify: unknown option(s): {', '.join(bad)} ({', '.join(VERIFY_KEYS)})")
    if "counterexamples" in fields:
        fields["counterexamples"] = fspath(fields["counterexamples"], "verify.counterexamples")
    for k in ("budget", "candidates", "seed"):
        if k in fields and fields[k] is not None:
            check({"budget": "verify_budget", "candidates": "verify_candidates", "seed": "seed"}[k], fields[k], f"verify.{k}")
    return native_options("VerifyOptions", **fields)


def call_native(name: str, *args: Any) -> Dict[str, Any]:
    for a in args:  # the paths are checked by name (fspath); an option holding a surrogate is named by value
        check_text(a, f"option {ascii(a)[:40]}")
    m = _native()
    try:
        return getattr(m, name)(*args)
    except m.InputError as e:
        raise InputError(str(e)) from None


def check_outputs(outputs: Sequence[Tuple[Any, str, bool]], inputs: Sequence[Tuple[Any, str]]) -> None:
    """The library's one check that no output replaces an input (core/fs.hpp check_outputs_spare_inputs,
    as every CLI command makes it): ``outputs`` as (path, role, is_folder), ``inputs`` as (path, role);
    None/"" paths are skipped. :class:`InputError` with the CLI's message ("<out>: the --json output
    would replace the input <in> (--pred); write it elsewhere"), before anything is written."""
    outs = [(fspath(p, role), role, bool(folder)) for p, role, folder in outputs if p not in (None, "")]
    ins = [(fspath(p, role), role) for p, role in inputs if p not in (None, "")]
    if outs:
        call_native("check_outputs", outs, ins)


def str_or_none(v: Any) -> Optional[str]:
    """A choice (``etype``, ``metric``, ...) as the str the library parses; None stays None (the default)."""
    return None if v is None else str(v)


def bool_or_none(v: Any) -> Optional[bool]:
    return None if v is None else bool(v)


def fspath(p: Any, what: str, required: bool = True) -> str:
    """A path argument as a string ("" when None and not required)."""
    if p is None:
        if required:
            raise InputError(f"{what} is required")
        return ""
    try:
        path = os.fspath(p)
    except TypeError:
        raise InputError(f"{what}: expected a path, got {type(p).__name__}") from None
    check_text(path, what)
    return path


def shard_pair(shard: Optional[str]) -> "tuple[int, int]":
    """``shard="i/n"`` (the CLI's --shard) as (i, n); (0, 0) for None (everything); parsed and refused by
    the CLI's own parser (runs::parse_shard, through the native module) with its message; the library
    checks --shard-by."""
    if shard is None or shard == "":
        return 0, 0
    return parse_shard(str(shard))


def shard_fields(shard: Optional[str]) -> Dict[str, Any]:
    """``shard="i/n"`` as the option struct's ``shard_index``/``shard_count`` (none: the default, everything)."""
    if shard is None or shard == "":
        return {}
    i, n = shard_pair(shard)
    return {"shard_index": i, "shard_count": n}


class BenchmarkRun(RecordView):
    """The result of one whole-benchmark evaluation (see the module docstring)."""

    benchmark = ""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._raw = raw
        self.text: str = raw["text"]
        self.summary: Dict[str, Any] = raw.get("summary", {})
        # The benchmark's own per-instance dicts (the record's shape: `instances`, RecordView).
        self.items: List[Dict[str, Any]] = raw.get("instances", [])
        self.warnings: List[str] = list(raw.get("warnings", []))
        self._json: Optional[str] = raw.get("json")
        self._dict: Optional[Dict[str, Any]] = None
        # evaluate(verify=...): the search's report, as `sqlgrade verify --json` writes it for this system
        # (ex, verified_ex, refuted, instances with their counterexamples, ...); None without verify.
        self.verify: Optional[Dict[str, Any]] = json.loads(raw["verify"])[0] if raw.get("verify") else None

    @property
    def json(self) -> Optional[str]:  # type: ignore[override]
        """The CLI's ``--json`` text: the run record (None where the CLI writes no JSON for this run)."""
        return self._json

    def to_dict(self) -> Dict[str, Any]:
        """The CLI's ``--json`` report as Python objects (a fresh copy each call)."""
        if self._json is None:
            raise ValueError(f"sqlgrade.{self.benchmark}: this run has no JSON report (the CLI writes none either)")
        if self._dict is None:
            self._dict = json.loads(self._json)
        return copy.deepcopy(self._dict)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {len(self.instances)} instances>"

    def __reduce__(self) -> Any:
        return (type(self), (self._raw,))
