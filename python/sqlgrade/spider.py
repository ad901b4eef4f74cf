"""Spider 1.0 (and SParC/CoSQL): ``sqlgrade.spider.evaluate()`` = ``sqlgrade spider`` in-process.

>>> import sqlgrade.spider
>>> run = sqlgrade.spider.evaluate(gold="dev_gold.sql", pred="pred.txt", db_dir="database",
...                                table="tables.json", etype="all")
>>> run.summary["all"]["exec"], run.summary["all"]["exact"]
>>> print(run)          # the official table, exactly as the CLI prints it
>>> run.to_dict()       # the CLI's --json report

See docs/python.md ("Whole-benchmark evaluation").
"""

from __future__ import annotations

from typing import Any, Optional, Union
import os

from ._bounds import check
from ._evaluate import BenchmarkRun, call_native, fspath, shard_pair

__all__ = ["evaluate", "SpiderRun"]

PathLike = Union[str, "os.PathLike[str]"]


class SpiderRun(BenchmarkRun):
    """A Spider evaluation.

    ``summary``: ``{"easy"|"medium"|"hard"|"extra"|"all"|"joint_all": {"count", "exact", "exec"[, "partial"]}}``
    (fractions in [0, 1], as the official scripts compute them; ``"turns"`` for interaction files);
    ``instances``: one dict per gold/prediction pair (``db_id``, ``hardness``, ``exact``, ``exec`` —
    1/0, or None when not evaluated — ``exec_reason``, ``pred_sql``, ...).
    """

    benchmark = "spider"

    def __init__(self, raw: Any) -> None:
        super().__init__(raw)
        self.n_interactions: int = raw.get("n_interactions", 0)

    @property
    def exec_accuracy(self) -> float:
        return float(self.summary["all"]["exec"])

    @property
    def exact_match(self) -> float:
        return float(self.summary["all"]["exact"])


def evaluate(*, gold: PathLike, pred: PathLike, db_dir: PathLike, table: Optional[PathLike] = None,
             etype: str = "exec", compat: str = "test-suite", plug_value: bool = False, keep_distinct: bool = False,
             timeout: float = 30, jobs: int = 0, shard: Optional[str] = None, shard_by: str = "id") -> SpiderRun:
    """Runs ``sqlgrade spider --gold --pred --db [--table] --etype --compat ...`` in-process.

    The defaults are the CLI's (``etype="exec"``, ``compat="test-suite"``, 30 s per query, all
    cores). ``table`` (tables.json) is needed for ``etype="match"``/``"all"`` and ``compat="spider"``.
    ``shard="i/n"`` and ``shard_by`` ("id" | "db") are ``--shard``/``--shard-by``: grade one shard, whose
    record (``run.json``) ``sqlgrade merge`` combines with the others.
    The GIL is released while it runs; nothing is printed (warnings are in ``run.warnings``).
    Raises :class:`sqlgrade.InputError` with the CLI's message for unusable inputs.
    """
    check("timeout", timeout), check("jobs", jobs)
    return SpiderRun(call_native(
        "spider_evaluate", fspath(gold, "gold"), fspath(pred, "pred"), fspath(db_dir, "db_dir"),
        fspath(table, "table", required=False), str(etype), str(compat), bool(plug_value), bool(keep_distinct),
        float(timeout), int(jobs), *shard_pair(shard), str(shard_by)))
