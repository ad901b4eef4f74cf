"""Run records: ``sqlgrade.runs.merge`` = ``sqlgrade merge`` in-process.

>>> import sqlgrade.runs
>>> m = sqlgrade.runs.merge(["part-1-of-2.json", "part-2-of-2.json"], output="run.json")
>>> m.record["summary"], print(m.text)

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

from ._evaluate import call_native, fspath
from ._unicode import check_text
from .errors import InputError

__all__ = ["merge", "MergedRun"]

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
    if isinstance(parts, (str, bytes, os.PathLike)):
        raise InputError("sqlgrade.runs.merge: parts must be a list of run record files")
    paths: List[str] = [fspath(p, "parts") for p in parts]
    if not paths:
        raise InputError("sqlgrade.runs.merge: no parts given")
    cmd = [str(c) for c in command] if command is not None else ["sqlgrade.runs.merge", *paths]
    for c in cmd:
        check_text(c, "command")
    return MergedRun(call_native("merge", paths, cmd, fspath(output, "output", False)))
