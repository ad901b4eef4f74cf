"""Result objects: :class:`Verdict` (one graded rollout) and :class:`ExecResult` (one executed query)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .errors import BackendUnsupported

__all__ = ["Verdict", "ExecResult", "FAILURE_REASONS", "STAGES", "STAGE_FAILURE_REASON"]

# Where a verdict ended (the reply's `stage`, set by the library: src/sqlgrade/verdict/, never read
# from the English `failure_detail`). Its shaping `outcome` and `score` come from the library too
# (src/sqlgrade/verdict/shaping.cpp), from the `shaping` the request carried.
STAGES = ("no_sql", "pred_failed", "timeout", "too_large", "gold_failed", "different", "equal", "refuted",
          "unverified")

# The failure_reason of each stage: the library's one table (sqlgrade::failure_reason, docs/serve.md),
# NeMo Gym's words where it has one (none, no_sql_extracted, execution_error, gold_execution_error),
# plus timeout, result_mismatch (ran, other rows), refuted and unverified (the `verify` option).
STAGE_FAILURE_REASON = {"equal": "none", "no_sql": "no_sql_extracted", "pred_failed": "execution_error",
                        "too_large": "execution_error", "timeout": "timeout", "gold_failed": "gold_execution_error",
                        "different": "result_mismatch", "refuted": "refuted", "unverified": "unverified"}
FAILURE_REASONS = ("none", "no_sql_extracted", "execution_error", "gold_execution_error", "timeout", "result_mismatch",
                   "refuted", "unverified")


@dataclass(frozen=True)
class Verdict:
    """One graded rollout.

    ``reward`` is 1.0 when the verdict ended at stage ``equal``, else 0.0 (the benchmark's official
    verdict, ``execution_match``, unless the ``verify`` option refuted the match); ``score`` is the
    shaped training score (see :mod:`sqlgrade.shaping`); ``failure_reason`` is the stage's
    (:data:`STAGE_FAILURE_REASON`). ``raw`` is the backend's reply as a dict (the ``sqlgrade serve``
    /verify reply in server mode).
    """

    reward: float
    score: float
    execution_match: bool
    extracted_sql: Optional[str]
    failure_reason: str
    failure_detail: str
    executed: Optional[bool]  # the prediction ran to a result (None: unknown)
    stage: str  # no_sql | pred_failed | timeout | too_large | gold_failed | different | equal | refuted | unverified
    outcome: str  # correct | wrong_result | error | no_sql | gold_error
    benchmark: str
    timings: Mapping[str, float] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    # verify=True: {"status": refuted | unverified | no_counterexample | skipped | (another class of the
    # search: gold_suspect, edge, tie), "reason", "candidates", "seconds", "time_capped",
    # "counterexample"?}; None when not asked
    verify: Optional[Mapping[str, Any]] = field(default=None, repr=False)

    @classmethod
    def from_reply(cls, reply: Mapping[str, Any], timings: Optional[Mapping[str, float]] = None) -> "Verdict":
        """The Verdict of a /verify reply to a request that carried ``shaping`` (every request the
        API builds does): ``score`` and ``outcome`` are the library's."""
        if "score" not in reply:  # a server from before issue 20 ignores `shaping` (and gold lists are a 400 there)
            raise BackendUnsupported("sqlgrade: the backend's /verify reply has no `score`: the server is older "
                                     "than this package (reward shaping moved into the library); upgrade sqlgrade serve")
        match = bool(reply.get("execution_match", False))
        reason = str(reply.get("failure_reason") or STAGE_FAILURE_REASON.get(str(reply["stage"]), "execution_error"))
        executed = reply.get("pred_executed")
        executed = None if executed is None else bool(executed)
        checked = reply.get("verify")
        t = dict(reply.get("timings") or {})
        t.update(timings or {})
        return cls(
            reward=float(reply.get("reward", 1.0 if match else 0.0)),
            score=float(reply["score"]),
            execution_match=match,
            extracted_sql=reply.get("extracted_sql"),
            failure_reason=reason,
            failure_detail=str(reply.get("failure_detail") or ""),
            executed=executed,
            stage=str(reply["stage"]),
            outcome=str(reply["outcome"]),
            benchmark=str(reply.get("benchmark") or ""),
            timings=t,
            raw=dict(reply),
            verify=dict(checked) if isinstance(checked, Mapping) else None,
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able dict (``raw`` included)."""
        return {
            "reward": self.reward, "score": self.score, "execution_match": self.execution_match,
            "extracted_sql": self.extracted_sql, "failure_reason": self.failure_reason,
            "failure_detail": self.failure_detail, "executed": self.executed, "stage": self.stage,
            "outcome": self.outcome,
            "benchmark": self.benchmark, "timings": dict(self.timings), "raw": dict(self.raw),
            "verify": None if self.verify is None else dict(self.verify),
        }


@dataclass(frozen=True)
class ExecResult:
    """One query executed read-only under a deadline (for agent observations).

    ``status`` is ``ok``, ``error``, ``timeout`` or ``too_large``; a failing query is a result with
    ``error`` set, not an exception. ``text`` is the observation: a table of at most ``max_rows``
    rows cut to ``max_chars`` characters, or the error message.
    """

    status: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    truncated: bool
    error: str
    text: str
    timings: Mapping[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @classmethod
    def from_reply(cls, reply: Mapping[str, Any], max_chars: int, timings: Optional[Mapping[str, float]] = None) -> "ExecResult":
        status = str(reply.get("status", "error"))
        columns = tuple(str(c) for c in reply.get("columns") or ())
        rows = tuple(tuple(r) for r in reply.get("rows") or ())
        error = str(reply.get("error") or "")
        truncated = bool(reply.get("truncated", False))
        text = render_table(columns, rows, truncated, max_chars) if status == "ok" else f"{status}: {error}"[:max_chars]
        t = dict(reply.get("timings") or {})
        t.update(timings or {})
        return cls(status, columns, rows, truncated, error, text, t)

    def to_dict(self) -> dict[str, Any]:
        return {"status": self.status, "columns": list(self.columns), "rows": [list(r) for r in self.rows],
                "truncated": self.truncated, "error": self.error, "text": self.text, "timings": dict(self.timings)}


def _cell(v: Any) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, bytes):
        return "x'" + v.hex() + "'"
    return str(v).replace("\n", "\\n").replace("|", "\\|")


def render_table(columns: tuple[str, ...], rows: tuple[tuple[Any, ...], ...], truncated: bool, max_chars: int) -> str:
    """``a | b`` header, one line per row, a note when rows were cut; at most ``max_chars`` characters."""
    lines = [" | ".join(_cell(c) for c in columns)] if columns else []
    used = len(lines[0]) if lines else 0
    shown = 0
    for r in rows:
        line = " | ".join(_cell(v) for v in r)
        if used + 1 + len(line) > max_chars:
            break
        lines.append(line)
        used += 1 + len(line)
        shown += 1
    if shown < len(rows):
        lines.append(f"... {len(rows) - shown} more row(s) not shown")
    if truncated:
        lines.append(f"... the result has more than {len(rows)} rows")
    if not rows:
        lines.append("(no rows)")
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[: max(max_chars - 3, 0)] + "..."
