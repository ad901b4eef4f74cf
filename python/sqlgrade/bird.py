"""BIRD: ``sqlgrade.bird.evaluate()`` = ``sqlgrade bird`` in-process (EX, Soft-F1, EM+F1, VES, R-VES).

>>> import sqlgrade.bird
>>> run = sqlgrade.bird.evaluate(pred="predict_mini_dev_gpt-4_sqlite.json", gold="mini_dev_sqlite_gold.sql",
...                              db_dir="dev_databases", diff_json="mini_dev_sqlite.jsonl", metric="ex")
>>> run.summary["total"]["score"]      # the printed number (x100 for EX / Soft-F1 / EM+F1)

See docs/python.md ("Whole-benchmark evaluation").
"""

from __future__ import annotations

from typing import Any, Optional, Union
import os

from ._bounds import check
from ._evaluate import BenchmarkRun, call_native, fspath, shard_pair

__all__ = ["evaluate", "BirdRun"]

PathLike = Union[str, "os.PathLike[str]"]


class BirdRun(BenchmarkRun):
    """A BIRD evaluation.

    ``metric``: "EX", "Soft-F1", "EM+F1", "VES" or "R-VES"; ``summary``:
    ``{"simple"|"moderate"|"challenging"|"total": {"count", "score"}}`` with the printed values (None
    for an empty bucket); ``instances``: one dict per gold question (``index``, ``question_id``,
    ``db_id``, ``difficulty``, ``correct``, ``score``, ``status``, ``reason``, ...);
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


def evaluate(*, pred: PathLike, gold: PathLike, db_dir: PathLike, diff_json: Optional[PathLike] = None,
             metric: str = "ex", pair_by: str = "auto", data_mode: Optional[str] = None, jobs: int = 0,
             timeout: float = 30.0, gold_timeout: Optional[float] = None, repeat: int = 100,
             sql_dialect: str = "SQLite", answer_json: bool = False, max_rows: int = 1_000_000,
             shard: Optional[str] = None, shard_by: str = "id") -> BirdRun:
    """Runs ``sqlgrade bird`` in-process.

    Keywords and the CLI flags they stand for: ``pred`` --predicted_sql_path, ``gold``
    --ground_truth_path, ``db_dir`` --db_root_path, ``diff_json`` --diff_json_path, ``metric``
    (ex | soft-f1 | em-f1 | ves | r-ves), ``pair_by`` --pair-by, ``data_mode`` (original layout),
    ``jobs`` --num_cpus, ``timeout`` --meta_time_out, ``gold_timeout`` --gold_time_out (None: the
    same as ``timeout``), ``repeat``, ``sql_dialect``, ``answer_json`` --answer-json, ``max_rows``
    --max-rows, ``shard`` ("i/n") --shard, ``shard_by`` ("id" | "db") --shard-by. The GIL is released while it runs; nothing is printed (warnings are in
    ``run.warnings``). Raises :class:`sqlgrade.InputError` with the CLI's message for unusable inputs.
    """
    check("jobs", jobs), check("timeout", timeout), check("repeat", repeat), check("max_rows", max_rows)
    if gold_timeout is not None:
        check("timeout", gold_timeout, "gold_timeout")
    return BirdRun(call_native(
        "bird_evaluate", fspath(pred, "pred"), fspath(gold, "gold"), fspath(db_dir, "db_dir"),
        fspath(diff_json, "diff_json", required=False), str(metric), str(pair_by), data_mode or "", int(jobs),
        float(timeout), -1.0 if gold_timeout is None else float(gold_timeout), int(repeat), str(sql_dialect),
        bool(answer_json), int(max_rows), *shard_pair(shard), str(shard_by)))
