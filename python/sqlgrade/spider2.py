"""Spider 2.0-Lite: ``sqlgrade.spider2.evaluate()`` = ``sqlgrade spider2`` in-process.

>>> import sqlgrade.spider2
>>> run = sqlgrade.spider2.evaluate(result_dir="preds", gold_dir="spider2-lite/evaluation_suite/gold")
>>> run.summary["score"], run.summary["n_correct"]

Unlike the CLI it writes nothing unless ``write_outputs=True`` (then the files the official script
writes: ``<result_dir>_csv/``, ``<result_dir>-ids.csv``, and with ``v2`` the detailed metrics and
``errors_log``). See docs/python.md ("Whole-benchmark evaluation").
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Union
import os

from ._bounds import check
from ._clock import now_text
from ._evaluate import (BenchmarkRun, bool_or_none as _bool, call_native, fspath, native_options, str_or_none as _str,
                        verify_options)

__all__ = ["evaluate", "Spider2Run"]

PathLike = Union[str, "os.PathLike[str]"]


class Spider2Run(BenchmarkRun):
    """A Spider 2.0-Lite evaluation.

    ``summary``: ``{"n_gold_ids", "n_pred_ids", "n_evaluated", "n_correct", "score"}`` (``score``: the
    mean over the evaluated ids, by the official rule, or the v2 rule with ``v2=True``; None when no
    id overlaps); ``items``: the benchmark's own dict per evaluated id (``instance_id``, ``score``, ``error_info``,
    ``pred_sql``, ``messages``; ``strict...`` with ``strict``; ``v2`` metrics with ``v2``; ``outcome``: how
    the check ended, ``{"stage", "failure_reason", "status", "score", "detail", "deadline_hit"}``, the
    same for every benchmark).
    ``to_dict()`` raises ValueError when no id overlaps (the CLI then writes no --json file).
    """

    benchmark = "spider2"

    @property
    def score(self) -> Optional[float]:
        return self.summary["score"]


def evaluate(*, result_dir: PathLike, gold_dir: PathLike, mode: Optional[str] = None, db_dir: Optional[PathLike] = None,
             meta: Optional[PathLike] = None, jobs: Optional[int] = None, timeout: Optional[float] = None,
             strict: Optional[bool] = None, v2: Optional[bool] = None, write_outputs: bool = False,
             errors_log: Optional[PathLike] = "errors.log", shard: Optional[str] = None,
             shard_by: Optional[str] = None, name: Optional[str] = None,
             verify: Union[bool, Dict[str, Any], None] = None, now: Any = None) -> Spider2Run:
    """Runs ``sqlgrade spider2 --mode --result_dir --gold_dir ...`` in-process.

    ``mode``: ``sql`` (run ``<id>.sql`` on ``db_dir``, default ``<gold_dir>/../databases``) or
    ``exec_result`` (compare ``<id>.csv``); ``meta`` --meta; ``jobs`` --max_workers; ``timeout`` per
    query; ``strict`` --strict; ``v2`` --v2; ``shard`` ("i/n") --shard; ``shard_by`` ("id" | "db")
    --shard-by; ``now`` --now (SQL's clock: an ISO 8601 string, a datetime or a date; recorded as
    options.now). An option left at None takes the library's default, the
    CLI's (``mode="sql"``, 60 s per query, all cores): the keywords are the fields of
    ``sqlgrade::spider2::Options``, bound by the native module. ``write_outputs=True`` also writes the
    official output files, as the CLI always does (``errors_log``: --errors_log, "" or None = none). The
    GIL is released while it runs; nothing is printed. Raises :class:`sqlgrade.InputError` for unusable
    inputs.

    ``name`` is ``--name`` (the system's name in the run record); ``verify`` is ``--verify``
    (``mode="sql"`` only; a match is searched when the public gold SQL exists, docs/verify.md): True or a
    dict of ``budget``, ``candidates``, ``seed``, ``counterexamples``, as in
    :func:`sqlgrade.spider.evaluate`.
    """
    for option, v in (("jobs", jobs), ("timeout", timeout)):
        if v is not None:
            check(option, v)  # a number (not a bool, not a str), then the table's row
    o = native_options("Spider2Options", result_dir=fspath(result_dir, "result_dir"), gold_dir=fspath(gold_dir, "gold_dir"),
                       mode=_str(mode), db_dir=fspath(db_dir, "db_dir", required=False),
                       meta=fspath(meta, "meta", required=False), jobs=jobs, timeout=timeout, strict=_bool(strict),
                       v2=_bool(v2), errors_log=fspath(errors_log, "errors_log", required=False), shard=_str(shard),
                       shard_by=_str(shard_by), name=_str(name), now=now_text(now))
    return Spider2Run(call_native("spider2_evaluate", o, bool(write_outputs), verify_options(verify)))
