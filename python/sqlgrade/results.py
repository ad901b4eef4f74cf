"""Result objects: :class:`Verdict` (one graded rollout) and :class:`ExecResult` (one executed query)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from .shaping import Shaping

__all__ = ["Verdict", "ExecResult", "FAILURE_REASONS", "outcome_of"]

# The failure reasons of `sqlgrade serve` (NeMo Gym vocabulary plus `timeout`).
FAILURE_REASONS = ("none", "no_sql_extracted", "execution_error", "gold_execution_error", "timeout")

# failure_detail prefixes that mean the prediction did not run to a result. `sqlgrade serve` keeps
# NeMo's vocabulary, where a wrong result is also "execution_error"; the detail tells them apart.
_NOT_EXECUTED = ("prediction error", "prediction timeout", "prediction failed", "prediction timed out",
                 "prediction is empty", "prediction too_large")


def _executed(reply: Mapping[str, Any]) -> Optional[bool]:
    if "pred_executed" in reply:  # native backend / a server that reports it
        v = reply["pred_executed"]
        return None if v is None else bool(v)
    reason = reply.get("failure_reason")
    if reason == "none":
        return True
    if reason in ("no_sql_extracted", "timeout"):
        return False
    if reason == "execution_error":
        detail = str(reply.get("failure_detail") or "")
        return not detail.startswith(_NOT_EXECUTED)
    return None  # gold_execution_error: the prediction may not have run


def outcome_of(execution_match: bool, failure_reason: str, executed: Optional[bool]) -> str:
    """The shaping outcome: ``correct``, ``wrong_result``, ``error``, ``no_sql`` or ``gold_error``."""
    if execution_match:
        return "correct"
    if failure_reason == "no_sql_extracted":
        return "no_sql"
    if failure_reason == "gold_execution_error":
        return "gold_error"
    return "wrong_result" if executed else "error"


@dataclass(frozen=True)
class Verdict:
    """One graded rollout.

    ``reward`` is the benchmark's official verdict (1.0 or 0.0); ``score`` is the shaped training
    score (see :mod:`sqlgrade.shaping`). ``raw`` is the backend's reply as a dict (the
    ``sqlgrade serve`` /verify reply in server mode).
    """

    reward: float
    score: float
    execution_match: bool
    extracted_sql: Optional[str]
    failure_reason: str
    failure_detail: str
    executed: Optional[bool]  # the prediction ran to a result (None: unknown)
    outcome: str  # correct | wrong_result | error | no_sql | gold_error
    benchmark: str
    timings: Mapping[str, float] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)
    # verify=True: {"status": refuted | no_counterexample | skipped, "reason", "candidates", "seconds",
    # "time_capped", "counterexample"?}; None when not asked
    verify: Optional[Mapping[str, Any]] = field(default=None, repr=False)

    @classmethod
    def from_reply(cls, reply: Mapping[str, Any], shaping: Shaping, timings: Optional[Mapping[str, float]] = None) -> "Verdict":
        match = bool(reply.get("execution_match", False))
        reason = str(reply.get("failure_reason") or ("none" if match else "execution_error"))
        executed = _executed(reply)
        outcome = outcome_of(match, reason, executed)
        checked = reply.get("verify")
        if match and isinstance(checked, Mapping) and checked.get("status") == "refuted":
            outcome = "wrong_result"  # `verify`: a counterexample database shows a wrong result
        t = dict(reply.get("timings") or {})
        t.update(timings or {})
        return cls(
            reward=float(reply.get("reward", 1.0 if match else 0.0)),
            score=shaping.score(outcome),
            execution_match=match,
            extracted_sql=reply.get("extracted_sql"),
            failure_reason=reason,
            failure_detail=str(reply.get("failure_detail") or ""),
            executed=executed,
            outcome=outcome,
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
            "failure_detail": self.failure_detail, "executed": self.executed, "outcome": self.outcome,
            "benchmark": self.benchmark, "timings": dict(self.timings), "raw": dict(self.raw),
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
