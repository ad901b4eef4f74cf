"""Spider 1.0 (and SParC/CoSQL): ``sqlgrade.spider.evaluate()`` = ``sqlgrade spider`` in-process.

>>> import sqlgrade.spider
>>> run = sqlgrade.spider.evaluate(gold="dev_gold.sql", pred="pred.txt", db_dir="database",
...                                table="tables.json", etype="all")
>>> run.summary["all"]["exec"], run.summary["all"]["exact"]
>>> print(run)          # the official table, exactly as the CLI prints it
>>> run.to_dict()       # the CLI's --json report
>>> both = sqlgrade.spider.evaluate(gold="dev_gold.sql", pred="pred.txt", db_dir="database",
...                                 table="tables.json", compat="both")   # --compat both: one pass
>>> both.spider.exec_accuracy, both.test_suite.exec_accuracy, both.statements["lent"]

See docs/python.md ("Whole-benchmark evaluation").
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, Union, overload
import os

from ._bounds import check
from ._clock import now_text
from ._evaluate import (BenchmarkRun, bool_or_none as _bool, call_native, fspath, native_options, shard_fields as _shard,
                        str_or_none as _str, verify_options)

__all__ = ["evaluate", "SpiderRun", "SpiderBoth"]

PathLike = Union[str, "os.PathLike[str]"]


class SpiderRun(BenchmarkRun):
    """A Spider evaluation.

    ``summary``: ``{"easy"|"medium"|"hard"|"extra"|"all"|"joint_all": {"count", "exact", "exec"[, "partial"]}}``
    (fractions in [0, 1], as the official scripts compute them; ``"turns"`` for interaction files);
    ``items``: the benchmark's own dict per gold/prediction pair (``db_id``, ``hardness``, ``exact``, ``exec`` —
    1/0, or None when not evaluated — ``exec_reason``, ``pred_sql``, ..., and ``outcome``: how the
    execution check ended, ``{"stage", "failure_reason", "status", "score", "detail", "deadline_hit"}``,
    the same for every benchmark; None when not evaluated).
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


class SpiderBoth:
    """``evaluate(compat="both")``: both official scripts' runs from one pass (``sqlgrade spider --compat both``).

    ``spider`` / ``test_suite``: each a :class:`SpiderRun`, equal to what ``evaluate(compat="spider")`` /
    ``evaluate(compat="test-suite")`` return with the same other options (text, summary, instances,
    warnings and record); the test-suite pass borrows the spider pass's result of a statement run on
    the same database file when it is what its own reading returns (docs/comparing-runs.md §8).
    ``statements``: ``{"executed", "spider", "test_suite", "lent"}``, the numbers of the CLI's stderr line:
    statements executed in all, by the spider pass, by the test-suite pass, and results the test-suite
    pass borrowed instead of executing (each of these a statement two separate calls would run twice).
    ``text`` (= ``str()``): exactly what the CLI prints on stdout — ``==> --compat spider <==``, the spider
    run's text, an empty line, ``==> --compat test-suite <==``, the test-suite run's text. ``warnings``:
    each mode's warnings, a line both modes give once (as the CLI prints them on stderr).
    ``to_dict()``: ``{"spider": record, "test-suite": record, "statements": {...}}``, the two records being
    what the CLI writes as ``NAME.spider.json`` and ``NAME.test-suite.json``.
    """

    benchmark = "spider"

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._raw = raw
        self.text: str = raw["text"]
        self.spider = SpiderRun(raw["spider"])
        self.test_suite = SpiderRun(raw["test_suite"])
        self.statements: Dict[str, int] = dict(raw["statements"])
        self.warnings: List[str] = self.spider.warnings + [w for w in self.test_suite.warnings
                                                           if w not in self.spider.warnings]

    def to_dict(self) -> Dict[str, Any]:
        """Both records (fresh copies) and the statement counts."""
        return {"spider": self.spider.to_dict(), "test-suite": self.test_suite.to_dict(),
                "statements": dict(self.statements)}

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return (f"<SpiderBoth {len(self.spider.instances)} instances, {self.statements['executed']} statements "
                f"executed, {self.statements['lent']} lent>")

    def __reduce__(self) -> Any:
        return (type(self), (self._raw,))


@overload
def evaluate(*, gold: PathLike, pred: PathLike, db_dir: PathLike, table: Optional[PathLike] = None,
             etype: Optional[str] = None, compat: Literal["both"], plug_value: Optional[bool] = None,
             keep_distinct: Optional[bool] = None, timeout: Optional[float] = None,
             jobs: Optional[int] = None, shard: Optional[str] = None, shard_by: Optional[str] = None,
             name: Optional[str] = None, verify: Union[bool, Dict[str, Any], None] = None, now: Any = None) -> SpiderBoth: ...


@overload
def evaluate(*, gold: PathLike, pred: PathLike, db_dir: PathLike, table: Optional[PathLike] = None,
             etype: Optional[str] = None, compat: Optional[str] = None, plug_value: Optional[bool] = None,
             keep_distinct: Optional[bool] = None, timeout: Optional[float] = None,
             jobs: Optional[int] = None, shard: Optional[str] = None, shard_by: Optional[str] = None,
             name: Optional[str] = None, verify: Union[bool, Dict[str, Any], None] = None, now: Any = None) -> SpiderRun: ...


def evaluate(*, gold: PathLike, pred: PathLike, db_dir: PathLike, table: Optional[PathLike] = None,
             etype: Optional[str] = None, compat: Optional[str] = None, plug_value: Optional[bool] = None,
             keep_distinct: Optional[bool] = None, timeout: Optional[float] = None,
             jobs: Optional[int] = None, shard: Optional[str] = None,
             shard_by: Optional[str] = None, name: Optional[str] = None,
             verify: Union[bool, Dict[str, Any], None] = None, now: Any = None) -> Union[SpiderRun, SpiderBoth]:
    """Runs ``sqlgrade spider --gold --pred --db [--table] --etype --compat ...`` in-process.

    An option left at None takes the library's default, the CLI's (``etype="exec"``,
    ``compat="test-suite"``, 60 s per query, all cores): the keywords are the fields of
    ``sqlgrade::spider::Options``, bound by the native module. ``table`` (tables.json) is needed for
    ``etype="match"``/``"all"`` and ``compat="spider"``. ``shard="i/n"`` and ``shard_by`` ("id" | "db")
    are ``--shard``/``--shard-by``: grade one shard, whose record (``run.json``) ``sqlgrade merge``
    combines with the others. ``now`` is ``--now``: SQL's clock (``date('now')``, ``CURRENT_TIMESTAMP``,
    ...) returns this instant (an ISO 8601 string, a datetime or a date; recorded as options.now; None:
    the real clock). The GIL is released while it runs; nothing is printed (warnings are in
    ``run.warnings``). Raises :class:`sqlgrade.InputError` with the CLI's message for unusable inputs.

    ``compat="both"`` is ``--compat both``: one pass of the library's ``evaluate_both`` grades under
    both scripts' rules (``table`` is needed, as for ``compat="spider"``), the test-suite pass
    borrowing the spider pass's results, and returns a :class:`SpiderBoth` (``.spider``,
    ``.test_suite``: the two :class:`SpiderRun`; ``.statements``; ``text``: the CLI's stdout). Every
    other option, ``shard``/``shard_by`` included, applies to both modes, as in the CLI.

    ``name`` is ``--name``: the system's name in the run record (default: the prediction's file
    name). ``verify`` is ``--verify`` (docs/verify.md): True, or a dict of ``budget`` (seconds per
    match, default 5), ``candidates`` (default 200), ``seed`` (default 0) and ``counterexamples`` (a
    folder); after the official run every match is searched for a counterexample, ``run.text`` ends
    with the verification lines the CLI prints, ``run.to_dict()`` is the record ``--verify --json``
    writes, and ``run.verify`` the search's report. It needs the test-suite rule (not ``compat="both"``).
    """
    for option, v in (("timeout", timeout), ("jobs", jobs)):
        if v is not None:
            check(option, v)  # a number (not a bool, not a str), then the table's row
    both = compat is not None and str(compat) == "both"  # the CLI's test (spider_cmd.cpp); others: parse_compat
    o = native_options("SpiderOptions", gold=fspath(gold, "gold"), pred=fspath(pred, "pred"),
                       db_dir=fspath(db_dir, "db_dir"), table=fspath(table, "table", required=False),
                       etype=_str(etype), compat=None if both else _str(compat), plug_value=_bool(plug_value),
                       keep_distinct=_bool(keep_distinct), timeout=timeout, jobs=jobs, **_shard(shard),
                       shard_by=_str(shard_by), name=_str(name), now=now_text(now))
    vo = verify_options(verify)
    if both:
        return SpiderBoth(call_native("spider_evaluate_both", o, vo))
    return SpiderRun(call_native("spider_evaluate", o, vo))
