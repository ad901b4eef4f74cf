"""BIRD: ``sqlgrade.bird.evaluate()`` = ``sqlgrade bird`` in-process (EX, Soft-F1, EM+F1, VES, R-VES).

>>> import sqlgrade.bird
>>> run = sqlgrade.bird.evaluate(pred="predict_mini_dev_gpt-4_sqlite.json", gold="mini_dev_sqlite_gold.sql",
...                              db_dir="dev_databases", diff_json="mini_dev_sqlite.jsonl", metric="ex")
>>> run.summary["total"]["score"]      # the printed number (x100 for EX / Soft-F1 / EM+F1)

See docs/python.md ("Whole-benchmark evaluation").
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Union
import os

from ._bounds import check
from ._clock import now_text
from ._evaluate import (BenchmarkRun, bool_or_none as _bool, call_native, fspath, native_options, shard_fields as _shard,
                        str_or_none as _str, verify_options)

__all__ = ["evaluate", "BirdRun"]

PathLike = Union[str, "os.PathLike[str]"]


class BirdRun(BenchmarkRun):
    """A BIRD evaluation.

    ``metric``: "EX", "Soft-F1", "EM+F1", "VES" or "R-VES"; ``summary``:
    ``{"simple"|"moderate"|"challenging"|"total": {"count", "score"}}`` with the printed values (None
    for an empty bucket); ``items``: the benchmark's own dict per gold question (``index``, ``question_id``,
    ``db_id``, ``difficulty``, ``correct``, ``score``, ``status``, ``reason``, ..., and ``outcome``: the
    same fields as one ``{"stage", "failure_reason", "status", "score", "detail", "deadline_hit"}``, the
    same for every benchmark);
    ``log_block``: what ``--output_log_path`` would append.
    """

    benchmark = "bird"

    def __init__(self, raw: Any) -> None:
        super().__init__(raw)
        self.metric: str = raw["metric"]
        self.log_block: str = raw["log_block"]

    @property
    def score(self) -> Optional[float]:
        return self.summary["total"]["score"]


def evaluate(*, pred: PathLike, gold: PathLike, db_dir: Optional[PathLike] = None, diff_json: Optional[PathLike] = None,
             metric: Optional[str] = None, pair_by: Optional[str] = None, data_mode: Optional[str] = None,
             jobs: Optional[int] = None, timeout: Optional[float] = None, gold_timeout: Optional[float] = None,
             repeat: Optional[int] = None, sql_dialect: Optional[str] = None, answer_json: Optional[bool] = None,
             max_rows: Optional[int] = None, shard: Optional[str] = None, shard_by: Optional[str] = None,
             name: Optional[str] = None, verify: Union[bool, Dict[str, Any], None] = None,
             dsn: Optional[str] = None, now: Any = None) -> BirdRun:
    """Runs ``sqlgrade bird`` in-process.

    Keywords and the CLI flags they stand for: ``pred`` --predicted_sql_path, ``gold``
    --ground_truth_path, ``db_dir`` --db_root_path, ``diff_json`` --diff_json_path, ``metric``
    (ex | soft-f1 | em-f1 | ves | r-ves), ``pair_by`` --pair-by, ``data_mode`` (original layout),
    ``jobs`` --num_cpus, ``timeout`` --meta_time_out, ``gold_timeout`` --gold_time_out (None: the
    same as ``timeout``), ``repeat``, ``sql_dialect``, ``answer_json`` --answer-json, ``max_rows``
    --max-rows, ``shard`` ("i/n") --shard, ``shard_by`` ("id" | "db") --shard-by, ``dsn`` --dsn (with
    ``sql_dialect="PostgreSQL"`` or ``"MySQL"``: the server database's URI; ``db_dir`` is then not needed), ``now`` --now (SQL's
    clock: an ISO 8601 string, a datetime or a date; recorded as options.now). An option left at None takes the library's default, the CLI's (``metric="ex"``, 30 s,
    100 repeats, 1,000,000 rows, ...): the keywords are the fields of ``sqlgrade::bird::Options``, bound
    by the native module. The GIL is released while it runs; nothing is printed (warnings are in
    ``run.warnings``). Raises :class:`sqlgrade.InputError` with the CLI's message for unusable inputs.

    ``name`` is ``--name`` (the system's name in the run record); ``verify`` is ``--verify``
    (``metric="ex"`` only): True or a dict of ``budget``, ``candidates``, ``seed``, ``counterexamples``,
    as in :func:`sqlgrade.spider.evaluate` (``run.verify``, the verification lines in ``run.text``, the
    record with the verification).
    """
    for option, row, v in (("jobs", "jobs", jobs), ("timeout", "timeout", timeout), ("repeat", "repeat", repeat),
                         ("max_rows", "max_rows", max_rows), ("gold_timeout", "timeout", gold_timeout)):
        if v is not None:
            check(row, v, option)  # a number (not a bool, not a str), then the table's row
    o = native_options("BirdOptions", pred=fspath(pred, "pred"), gold=fspath(gold, "gold"),
                       db_dir=fspath(db_dir, "db_dir", required=dsn is None),
                       diff_json=fspath(diff_json, "diff_json", required=False),
                       metric=_str(metric), pair_by=_str(pair_by), data_mode=_str(data_mode), jobs=jobs,
                       timeout=timeout, gold_timeout=gold_timeout, repeat=repeat, sql_dialect=_str(sql_dialect),
                       answer_json=_bool(answer_json), max_rows=max_rows, **_shard(shard), shard_by=_str(shard_by),
                       name=_str(name), dsn=_str(dsn), now=now_text(now))
    return BirdRun(call_native("bird_evaluate", o, verify_options(verify)))
