"""UDA-Bench / OpenQuest: ``sqlgrade.uda.run()`` = ``sqlgrade uda run`` and ``sqlgrade.uda.eval_query()``
= ``sqlgrade uda eval``, in-process (``sqlgrade.uda.evaluate`` is ``run``).

>>> import sqlgrade.uda
>>> run = sqlgrade.uda.evaluate(dataset_dir="Query/Player", results="runs/lotus")
>>> run.summary["f1"], run.datasets[0]["counts"]

Like the CLI, these write their output files (``acc_result/`` in every statement folder and
``summary.json``/``summary.csv`` per dataset under ``results``; ``eval_query``: acc.json and the
matched CSVs in ``output_dir``): that is what the subcommands are for. ``run.json`` is the run record
``uda run --json`` writes (what ``sqlgrade diff/report/merge`` read); ``to_dict()`` stays the run's own
structure (``summary``, ``datasets``, ``judge_summary``), as it was before the CLI had ``--json``.
"""

from __future__ import annotations

import copy
import json
import os
from typing import Any, Dict, List, Optional, Union

from ._bounds import check
from ._clock import now_text
from ._evaluate import BenchmarkRun, call_native, fspath, native_options, shard_fields
from ._unicode import check_text

__all__ = ["evaluate", "run", "eval_query", "UdaRun", "UdaQueryReport"]

PathLike = Union[str, "os.PathLike[str]"]

_COMMON = ("attributes_file", "gt_dir", "table_map", "memory_limit", "gold_timeout", "primary_key",
           "float_tolerance", "multi_value_sep", "jobs", "judge", "llm_base_url", "llm_model", "llm_api_key",
           "llm_cache", "llm_concurrency", "llm_timeout", "llm_retries", "llm_max_tokens", "llm_max_failures",
           "judge_log", "now")


# Numeric options and their rows of the table of bounds (_bounds.py): the types are checked here, the
# values again by the bound option struct (_native.UdaOptions, python/native/evaluate.cpp).
_BOUNDED = {"gold_timeout": "timeout", "float_tolerance": "float_tolerance", "jobs": "jobs",
            "llm_concurrency": "llm_concurrency", "llm_timeout": "llm_timeout", "llm_retries": "llm_retries",
            "llm_max_tokens": "llm_max_tokens", "llm_max_failures": "llm_max_failures"}


def _common(kw: Dict[str, Any]) -> Dict[str, Any]:
    unknown = sorted(set(kw) - set(_COMMON))
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(unknown)}")
    out: Dict[str, Any] = {}
    for k, v in kw.items():
        if v is None:
            continue
        if k in _BOUNDED:
            check(_BOUNDED[k], v, k)
        out[k] = os.fspath(v) if k in ("attributes_file", "gt_dir", "table_map", "judge_log", "llm_cache") else v
        if k == "now":
            out[k] = now_text(v)  # SQL's clock in DuckDB (a str, datetime or date)
        check_text(out[k], k)
    return out


class UdaRun(BenchmarkRun):
    """A ``uda run``: ``summary`` = the counts and averages over the whole run (``statements``,
    ``scored``, ``result_errors``, ``missing_results``, ``gold_errors``, ``precision``, ``recall``,
    ``f1``, ``scored_*``); ``datasets`` = per dataset ``{"dataset", "counts", "queries", "load_notes"}``
    (``queries``: one dict per statement, also flattened in ``items``; ``instances`` = the run record's)."""

    benchmark = "uda"

    def __init__(self, raw: Any) -> None:
        raw = dict(raw)
        raw.setdefault("instances", [q for d in raw["datasets"] for q in d["queries"]])
        super().__init__(raw)
        self.datasets: List[Dict[str, Any]] = raw["datasets"]
        self.judge_summary: str = raw["judge_summary"]

    def to_dict(self) -> Dict[str, Any]:
        return copy.deepcopy({"summary": self.summary, "datasets": self.datasets, "judge_summary": self.judge_summary})


class UdaQueryReport:
    """A ``uda eval``: ``ok`` (scored; else ``error_kind`` and ``reason`` say why — it scores 0, as the CLI
    exits 1 then), ``to_dict()`` = acc.json, ``text`` = what the CLI prints."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._raw = raw
        self.ok: bool = raw["ok"]
        self.error_kind: Optional[str] = raw["error_kind"]
        self.reason: str = raw["reason"]
        self.text: str = raw["text"]
        self.judge_summary: str = raw["judge_summary"]

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self._raw["acc_json"])

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> Any:
        return (type(self), (self._raw,))


def run(*, dataset_dir: PathLike, results: PathLike, list_errors: bool = False, name: Optional[str] = None,
        shard: Optional[str] = None, shard_by: Optional[str] = None, **options: Any) -> UdaRun:
    """``sqlgrade uda run --dataset-dir --results [--list-errors] [--name] [--shard i/n --shard-by id|db]``
    in-process. ``name`` is the system's label in ``run.json`` (the run record); ``shard`` grades one
    shard (by statement path, or ``shard_by="db"``: by dataset), whose records ``sqlgrade.runs.merge``
    joins.

    ``options`` are the CLI's flags with underscores: ``attributes_file``, ``gt_dir``, ``table_map``,
    ``memory_limit``, ``gold_timeout``, ``primary_key``, ``float_tolerance``, ``multi_value_sep``,
    ``jobs``, ``judge`` ("rules"/"llm"), ``llm_base_url``, ``llm_model``, ``llm_api_key``,
    ``llm_cache``, ``llm_concurrency``, ``llm_timeout``, ``llm_retries``, ``llm_max_tokens``,
    ``llm_max_failures``, ``judge_log``, ``now`` (--now: DuckDB's clock functions return this instant,
    an ISO 8601 string, a datetime or a date). ``list_errors`` only changes ``text``. ``--require-all`` is
    ``run.summary["missing_results"] + run.summary["result_errors"] > 0``.
    """
    check_text(name, "name")
    check_text(shard_by, "shard_by")
    o = native_options("UdaOptions", dataset_dir=fspath(dataset_dir, "dataset_dir"), results=fspath(results, "results"),
                       name=name, shard_by=shard_by, **shard_fields(shard), **_common(options))
    return UdaRun(call_native("uda_run", o, bool(list_errors)))


evaluate = run


def eval_query(*, sql_file: PathLike, dataset_dir: Optional[PathLike] = None, dataset: Optional[str] = None,
               query_root: PathLike = "Query", query_id: int = 0, result_csv: Optional[PathLike] = None,
               output_dir: Optional[PathLike] = None, **options: Any) -> UdaQueryReport:
    """``sqlgrade uda eval`` in-process: one statement's result.csv (``options`` as in :func:`run`)."""
    check_text(dataset, "dataset")
    if query_id != 0:  # 0: not given (sql.json)
        check("query_id", query_id)
    o = native_options("UdaQueryOptions", sql_file=fspath(sql_file, "sql_file"),
                       dataset_dir=fspath(dataset_dir, "dataset_dir", False), dataset=dataset or "",
                       query_root=fspath(query_root, "query_root"), query_id=int(query_id) or None,
                       result_csv=fspath(result_csv, "result_csv", False),
                       output_dir=fspath(output_dir, "output_dir", False), **_common(options))
    return UdaQueryReport(call_native("uda_eval", o))
