"""Run records in-process: ``sqlgrade.runs.merge`` / ``diff`` / ``report`` = ``sqlgrade merge`` /
``diff`` / ``report`` (the same C++ calls through the native module, GIL released, nothing printed).

>>> import sqlgrade.runs
>>> m = sqlgrade.runs.merge(["part-1-of-2.json", "part-2-of-2.json"], output="run.json")
>>> m.record["summary"], print(m.text)
>>> d = sqlgrade.runs.diff("baseline.json", "candidate.json", agree="exec,exact")
>>> print(d), d.to_dict()["metrics"]
>>> sqlgrade.runs.report(["baseline.json", "candidate.json"], output="report.html")

The shards of one run (graded with ``--shard i/n`` or ``evaluate(shard="i/n")``) become the record one
process would have written: the library checks that every id is in the shard its part claims and
appears once, and recomputes the summary with the benchmark's summarizer (docs/comparing-runs.md §5).
The same C++ call as the CLI's ``merge`` (native module, GIL released); bad parts raise
:class:`sqlgrade.InputError` with the CLI's one-line message.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

from ._bounds import check
from ._evaluate import call_native, fspath, native_options
from ._unicode import check_text
from .errors import InputError

__all__ = ["merge", "MergedRun", "diff", "RunDiff", "report", "RunReport"]

PathLike = Union[str, "os.PathLike[str]"]


class MergedRun:
    """A merged run: ``json`` = the record's text (what ``-o`` gets), ``record`` = it parsed, ``text`` =
    the printed summary ``sqlgrade merge`` rebuilds (None for a benchmark without one), ``parts`` and
    ``instances`` = how many were merged."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._raw = raw
        self.json: str = raw["record"]
        self.record: Dict[str, Any] = json.loads(self.json)
        self.text: Optional[str] = raw["text"]
        self.parts: int = raw["parts"]
        self.instances: int = raw["instances"]

    def __str__(self) -> str:
        return self.text or ""

    def __repr__(self) -> str:
        return f"<MergedRun {self.parts} parts, {self.instances} instances>"

    def __reduce__(self) -> Any:
        return (type(self), (self._raw,))


def merge(parts: Sequence[PathLike], output: Optional[PathLike] = None,
          command: Optional[Sequence[str]] = None) -> MergedRun:
    """``sqlgrade merge PARTS -o OUTPUT``: the run records at ``parts`` (shards 1/n … n/n) as one record,
    written atomically to ``output`` when given (nothing half-written; an output that is one of the
    parts is refused, as by the CLI). ``command`` is recorded in the merged record (default: this call
    as ``["sqlgrade.runs.merge", ...parts]``)."""
    paths = _paths(parts, "parts")
    if not paths:
        raise InputError("sqlgrade.runs.merge: no parts given")
    cmd = [str(c) for c in command] if command is not None else ["sqlgrade.runs.merge", *paths]
    for c in cmd:
        check_text(c, "command")
    return MergedRun(call_native("merge", paths, cmd, fspath(output, "output", False)))


def _paths(runs: Sequence[PathLike], what: str) -> List[str]:
    if isinstance(runs, (str, bytes, os.PathLike)):
        raise InputError(f"sqlgrade.runs: {what} must be a list of run record files")
    return [fspath(p, what) for p in runs]


class RunDiff:
    """``sqlgrade diff A B``: ``text`` = the terminal table it prints, ``json`` = its ``--json`` output
    (the comparison; ``to_dict()`` parses it: docs/comparing-runs.md)."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._raw = raw
        self.text: str = raw["text"]
        self.json: str = raw["json"]

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.json)

    def __str__(self) -> str:
        return self.text

    def __reduce__(self) -> Any:
        return (type(self), (self._raw,))


def diff(a: PathLike, b: PathLike, *, bootstrap: int = 1000, seed: int = 12345, confidence: float = 0.95,
         common: bool = False, axes: Sequence[str] = (), agree: Optional[str] = None, list: int = 20,  # noqa: A002
         json_out: Optional[PathLike] = None) -> RunDiff:
    """``sqlgrade diff A B``: run record ``b`` compared with the baseline ``a`` instance by instance
    (paired bootstrap intervals, McNemar). The keywords are the CLI's flags (``--bootstrap``, ``--seed``,
    ``--confidence``, ``--common``, ``--axis`` (repeatable: ``axes``), ``--agree "x,y"``, ``--list``);
    ``json_out`` also writes the JSON comparison there (atomically; never over ``a`` or ``b``)."""
    for row, v in (("bootstrap", bootstrap), ("seed", seed), ("confidence", confidence), ("list", list)):
        check(row, v, f"--{row}")
    if isinstance(axes, str):
        axes = [axes]
    for x in (*axes, agree):
        check_text(x, "axes/agree")
    o = native_options("DiffOptions", a=fspath(a, "a"), b=fspath(b, "b"), bootstrap=int(bootstrap), seed=int(seed),
                       confidence=float(confidence), common=bool(common), axes=[str(x) for x in axes],
                       agree=agree or "", list=int(list), json_out=fspath(json_out, "json_out", False))
    return RunDiff(call_native("diff", o))


class RunReport:
    """``sqlgrade report``: ``html`` = the self-contained page, ``runs`` and ``instances`` (of the first
    run) = what the CLI's "wrote ..." line counts."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._raw = raw
        self.html: str = raw["html"]
        self.runs: int = raw["runs"]
        self.instances: int = raw["instances"]

    def __repr__(self) -> str:
        return f"<RunReport {self.runs} runs, {self.instances} instances, {len(self.html)} characters>"

    def __reduce__(self) -> Any:
        return (type(self), (self._raw,))


def report(runs: Sequence[PathLike], output: Optional[PathLike] = None, *, title: Optional[str] = None,
           bootstrap: int = 1000, seed: int = 12345, common: bool = False) -> RunReport:
    """``sqlgrade report RUNS -o OUTPUT``: one self-contained HTML page of the run records (the first is
    the baseline of the comparisons), written atomically to ``output`` when given (never over a run)."""
    paths = _paths(runs, "runs")
    if not paths:
        raise InputError("sqlgrade.runs.report: no runs given")
    for row, v in (("bootstrap", bootstrap), ("seed", seed)):
        check(row, v, f"--{row}")
    check_text(title, "title")
    o = native_options("ReportOptions", runs=paths, title=title or "", bootstrap=int(bootstrap), seed=int(seed),
                       common=bool(common), output=fspath(output, "output", False))
    return RunReport(call_native("report", o))
