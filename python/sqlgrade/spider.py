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
from ._evaluate import (BenchmarkRun, bool_or_none as _bool, call_native, fspath, native_options, shard_fields as _shard,
                        str_or_none as _str)

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
             etype: Optional[str] = None, compat: Optional[str] = None, plug_value: Optional[bool] = None,
             keep_distinct: Optional[bool] = None, timeout: Optional[float] = None,
             jobs: Optional[int] = None, shard: Optional[str] = None, shard_by: Optional[str] = None) -> SpiderRun:
    """Runs ``sqlgrade spider --gold --pred --db [--table] --etype --compat ...`` in-process.

    An option left at None takes the library's default, the CLI's (``etype="exec"``,
    ``compat="test-suite"``, 30 s per query, all cores): the keywords are the fields of
    ``sqlgrade::spider::Options``, bound by the native module. ``table`` (tables.json) is needed for
    ``etype="match"``/``"all"`` and ``compat="spider"``. ``shard="i/n"`` and ``shard_by`` ("id" | "db")
    are ``--shard``/``--shard-by``: grade one shard, whose record (``run.json``) ``sqlgrade merge``
    combines with the others. The GIL is released while it runs; nothing is printed (warnings are in ``run.warnings``). Raises :class:`sqlgrade.InputError` with the CLI's
    message for unusable inputs.
    """
    for name, v in (("timeout", timeout), ("jobs", jobs)):
        if v is not None:
            check(name, v)  # a number (not a bool, not a str), then the table's row
    o = native_options("SpiderOptions", gold=fspath(gold, "gold"), pred=fspath(pred, "pred"),
                       db_dir=fspath(db_dir, "db_dir"), table=fspath(table, "table", required=False),
                       etype=_str(etype), compat=_str(compat), plug_value=_bool(plug_value),
                       keep_distinct=_bool(keep_distinct), timeout=timeout, jobs=jobs, **_shard(shard),
                       shard_by=_str(shard_by))
    return SpiderRun(call_native("spider_evaluate", o))
