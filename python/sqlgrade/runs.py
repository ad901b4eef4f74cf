"""Run records in-process: ``sqlgrade.runs.merge`` / ``diff`` / ``report`` = ``sqlgrade merge`` /
``diff`` / ``report`` (the same C++ calls through the native module, GIL released, nothing printed).

>>> import sqlgrade.runs
>>> m = sqlgrade.runs.merge(["part-1-of-2.json", "part-2-of-2.json"], output="run.json")
>>> m.record["summary"], print(m.text)
>>> d = sqlgrade.runs.diff("baseline.json", "candidate.json", agree="exec,exact")
>>> print(d), d.to_dict()["metrics"]
>>> sqlgrade.runs.report(["baseline.json", "candidate.json"], output="report.html")

Each run may also be a run object — what ``sqlgrade.<benchmark>.evaluate()`` returns, a
:class:`MergedRun`, or a :class:`RunRecord` from :func:`load` — instead of a file (a notebook grades
two systems and compares them without writing records):

>>> a = sqlgrade.spider.evaluate(gold=..., pred="a.txt", db_dir=..., name="A")
>>> b = sqlgrade.spider.evaluate(gold=..., pred="b.txt", db_dir=..., name="B")
>>> print(sqlgrade.runs.diff(a, b)); sqlgrade.runs.report([a, b], output="report.html")
>>> b.to_pandas()       # one row per instance (pandas optional)

The shards of one run (graded with ``--shard i/n`` or ``evaluate(shard="i/n")``) become the record one
process would have written: the library checks that every id is in the shard its part claims and
appears once, and recomputes the summary with the benchmark's summarizer (docs/comparing-runs.md §5).
The same C++ call as the CLI's ``merge`` (native module, GIL released); bad parts raise
:class:`sqlgrade.InputError` with the CLI's one-line message.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from typing import Any, Dict, List, Optional, Sequence, Union

from ._bounds import check
from ._evaluate import call_native, fspath, native_options
from ._records import RecordView
from ._unicode import check_text
from .errors import InputError

__all__ = ["merge", "MergedRun", "diff", "RunDiff", "report", "RunReport", "load", "RunRecord"]

PathLike = Union[str, "os.PathLike[str]"]
# A run: a record file, or an object holding a record (an evaluate() run, MergedRun, RunRecord).
RunLike = Union[str, "os.PathLike[str]", RecordView]


class RunRecord(RecordView):
    """A run record read by :func:`load`: ``json``, ``record``, ``instances``, ``system``, ``to_pandas()``
    (``_records.py``), ``summary`` and ``text`` (the record's ``summary_text``); ``path`` = the file."""

    def __init__(self, text: str, path: Optional[str] = None) -> None:
        self.json: Optional[str] = text
        self.path = path
        rec = self.record
        self.summary: Any = rec["summary"] if rec else None
        self.text: Optional[str] = rec.get("summary_text") if rec else None

    def to_dict(self) -> Dict[str, Any]:
        return json.loads(self.json or "null")

    def __str__(self) -> str:
        return self.text or ""

    def __repr__(self) -> str:
        return f"<RunRecord {self.system!r} {len(self.instances)} instances>"

    def __reduce__(self) -> Any:
        return (type(self), (self.json, self.path))


def load(path: PathLike) -> RunRecord:
    """A run record file (``--json`` of ``spider``/``bird``/``spider2``/``uda run``, ``merge -o``) as a
    :class:`RunRecord`. Only its envelope is checked here (JSON, ``"schema": "sqlgrade-run"``, instances
    with ids and scores; :class:`sqlgrade.InputError` naming the file); ``diff``/``report``/``merge``
    check the whole record with the library's reader, as for a file."""
    p = fspath(path, "path")
    try:
        with open(p, encoding="utf-8") as f:
            text = f.read()
        rec = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(f"{p}: not a readable run record ({e})") from None
    if not isinstance(rec, dict) or rec.get("schema") != "sqlgrade-run":
        raise InputError(f"{p}: not a run record (no \"schema\": \"sqlgrade-run\")")
    insts = rec.get("instances")
    if (not isinstance(insts, list) or not isinstance(rec.get("metrics"), list)
            or not all(isinstance(i, dict) and "id" in i and isinstance(i.get("scores"), dict) for i in insts)):
        raise InputError(f"{p}: instances: each instance needs an id and scores")
    return RunRecord(text, p)


class MergedRun(RecordView):
    """A merged run: ``json`` = the record's text (what ``-o`` gets), ``record`` = it parsed, ``instances``
    = its instances (the record's shape, as on every run object), ``text`` = the printed summary
    ``sqlgrade merge`` rebuilds (None for a benchmark without one), ``parts`` = how many were merged."""

    def __init__(self, raw: Dict[str, Any]) -> None:
        self._raw = raw
        self.json: Optional[str] = raw["record"]
        self.text: Optional[str] = raw["text"]
        self.parts: int = raw["parts"]

    def __str__(self) -> str:
        return self.text or ""

    def __repr__(self) -> str:
        return f"<MergedRun {self.parts} parts, {len(self.instances)} instances>"

    def __reduce__(self) -> Any:
        return (type(self), (self._raw,))


def merge(parts: Sequence[RunLike], output: Optional[PathLike] = None,
          command: Optional[Sequence[str]] = None) -> MergedRun:
    """``sqlgrade merge PARTS -o OUTPUT``: the run records at ``parts`` (shards 1/n … n/n: files or run
    objects) as one record, written atomically to ``output`` when given (nothing half-written; an output
    that is one of the parts is refused, as by the CLI). ``command`` is recorded in the merged record
    (default: this call as ``["sqlgrade.runs.merge", ...parts]``, a run object as ``<run SYSTEM>``)."""
    with _RunFiles(parts, "parts") as files:
        if not files.paths:
            raise InputError("sqlgrade.runs.merge: no parts given")
        cmd = [str(c) for c in command] if command is not None else ["sqlgrade.runs.merge", *files.names]
        for c in cmd:
            check_text(c, "command")
        return MergedRun(files.call("merge", files.paths, cmd, fspath(output, "output", False)))


def _record_text(run: Any, what: str) -> Optional[str]:
    """The record's text of a run object (None for a path); a SpiderBoth is two runs: refused by name."""
    if isinstance(run, RecordView):
        text = run.json
        if text is None:
            raise InputError(f"sqlgrade.runs: {what}: this {type(run).__name__} has no run record (it evaluated nothing)")
        return text
    if hasattr(run, "spider") and hasattr(run, "test_suite"):
        raise InputError(f"sqlgrade.runs: {what}: a compat=\"both\" result holds two runs; pass its .spider or .test_suite")
    return None


class _RunFiles:
    """Runs as files for the library: a path stays as given; a run object's record is written to a
    temporary folder (removed on exit) as ``<k>-<system>.json`` (the name ``report`` shows as its file)."""

    def __init__(self, runs: Any, what: str) -> None:
        if isinstance(runs, (str, bytes, os.PathLike)) or isinstance(runs, RecordView):
            raise InputError(f"sqlgrade.runs: {what} must be a list of run record files or run objects")
        self.runs, self.what = list(runs), what
        self.paths: List[str] = []
        self.names: List[str] = []
        self.display: Dict[str, str] = {}  # temporary file -> <run SYSTEM>
        self._tmp: Optional[tempfile.TemporaryDirectory] = None

    def add(self, run: Any, k: int) -> str:
        text = _record_text(run, self.what)
        if text is None:
            path = fspath(run, self.what)
            self.names.append(path)
            return path
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="sqlgrade-runs-")
        system = str(json.loads(text).get("system") or "run")
        path = os.path.join(self._tmp.name, f"{k}-{re.sub(r'[^A-Za-z0-9._-]+', '_', system)[:80]}.json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.names.append(f"<run {system}>")
        self.display[path] = f"<run {system}>"
        return path

    def fix(self, text: str, escape: str = "") -> str:
        """``text`` (the library's output) with each temporary file named as its run, ``<run SYSTEM>``:
        ``escape="json"`` inside a JSON string, ``"html"`` inside the report's data element (JSON whose
        ``<``, ``>`` and ``&`` are \\u escapes)."""
        for path, name in self.display.items():
            shown = name
            if escape:
                shown = json.dumps(name)[1:-1]
            if escape == "html":
                shown = shown.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            text = text.replace(path, shown)
        return text

    def call(self, name: str, *args: Any) -> Dict[str, Any]:
        """The native call; an error naming a temporary file names its run instead."""
        try:
            return call_native(name, *args)
        except InputError as e:
            raise InputError(self.fix(str(e))) from None

    def rewrite(self, path: str, escape: str) -> None:
        """The file the library wrote at ``path``, its temporary names fixed (atomically: temporary file + rename)."""
        if not path or not self.display:
            return
        with open(path, encoding="utf-8", newline="") as f:
            text = self.fix(f.read(), escape)
        tmp = f"{path}.tmp-{os.getpid()}"
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)

    def __enter__(self) -> "_RunFiles":
        try:
            self.paths = [self.add(r, k) for k, r in enumerate(self.runs, 1)]
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


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


def diff(a: RunLike, b: RunLike, *, bootstrap: int = 1000, seed: int = 12345, confidence: float = 0.95,
         common: bool = False, axes: Sequence[str] = (), agree: Optional[str] = None, list: int = 20,  # noqa: A002
         json_out: Optional[PathLike] = None) -> RunDiff:
    """``sqlgrade diff A B``: run ``b`` compared with the baseline ``a`` instance by instance (paired
    bootstrap intervals, McNemar); each a record file or a run object. The keywords are the CLI's flags (``--bootstrap``, ``--seed``,
    ``--confidence``, ``--common``, ``--axis`` (repeatable: ``axes``), ``--agree "x,y"``, ``--list``);
    ``json_out`` also writes the JSON comparison there (atomically; never over ``a`` or ``b``)."""
    for row, v in (("bootstrap", bootstrap), ("seed", seed), ("confidence", confidence), ("list", list)):
        check(row, v, f"--{row}")
    if isinstance(axes, str):
        axes = [axes]
    for x in (*axes, agree):
        check_text(x, "axes/agree")
    with _RunFiles([a, b], "a/b") as files:
        o = native_options("DiffOptions", a=files.paths[0], b=files.paths[1], bootstrap=int(bootstrap), seed=int(seed),
                           confidence=float(confidence), common=bool(common), axes=[str(x) for x in axes],
                           agree=agree or "", list=int(list), json_out=fspath(json_out, "json_out", False))
        raw = dict(files.call("diff", o))
        raw["text"], raw["json"] = files.fix(raw["text"]), files.fix(raw["json"], "json")
        files.rewrite(o.json_out, "json")
        return RunDiff(raw)


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


def report(runs: Sequence[RunLike], output: Optional[PathLike] = None, *, title: Optional[str] = None,
           bootstrap: int = 1000, seed: int = 12345, common: bool = False) -> RunReport:
    """``sqlgrade report RUNS -o OUTPUT``: one self-contained HTML page of the run records (the first is
    the baseline of the comparisons; files or run objects), written atomically to ``output`` when given
    (never over a run)."""
    for row, v in (("bootstrap", bootstrap), ("seed", seed)):
        check(row, v, f"--{row}")
    check_text(title, "title")
    with _RunFiles(runs, "runs") as files:
        if not files.paths:
            raise InputError("sqlgrade.runs.report: no runs given")
        o = native_options("ReportOptions", runs=files.paths, title=title or "", bootstrap=int(bootstrap), seed=int(seed),
                           common=bool(common), output=fspath(output, "output", False))
        raw = dict(files.call("report", o))
        raw["html"] = files.fix(raw["html"], "html")
        files.rewrite(o.output, "html")
        return RunReport(raw)
