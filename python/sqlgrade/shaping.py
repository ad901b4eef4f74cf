"""Reward shaping: how a verdict becomes a training score.

The verdict itself is always the benchmark's official 1/0. Shaping maps its outcome to a score:

====================  ==========================================================  =========
outcome               when                                                        option
====================  ==========================================================  =========
correct               the result matches the gold                                 correct
wrong result          the prediction executed, but its result differs             wrong_result
error                 SQL error, refused statement (DROP, ATTACH, ...), timeout   error
no SQL                nothing extractable in the model output                     no_sql
gold error            the gold query itself failed (a dataset problem)            gold_error
====================  ==========================================================  =========

``order="top_level"`` makes row order matter exactly when the gold has an ORDER BY at its top
level (not inside a subquery or CTE). It applies where the comparison takes an order flag:
Spider 2.0 and Spider with ``gold_result``. Spider with ``gold_sql`` keeps the test-suite rule
(``'order by'`` anywhere in the gold) and BIRD keeps set semantics (order never matters).

Options live in one frozen dataclass. The process-wide default is ``sqlgrade.config().shaping``
(set with ``sqlgrade.configure(wrong_result_score=0.1, ...)``); every adapter also accepts the
same options as keyword arguments (``correct_score``, ``wrong_result_score``, ``error_score``,
``no_sql_score``, ``gold_error_score``, ``order``), which win over the default for that call.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, MutableMapping

from .errors import InputError

__all__ = ["Shaping", "SHAPING_KWARGS", "has_top_level_order_by"]

ORDER_MODES = ("benchmark", "top_level")

# Keyword argument name -> Shaping field.
SHAPING_KWARGS = {
    "correct_score": "correct",
    "wrong_result_score": "wrong_result",
    "error_score": "error",
    "no_sql_score": "no_sql",
    "gold_error_score": "gold_error",
    "order": "order",
}


@dataclass(frozen=True)
class Shaping:
    """Scores for each verdict outcome (see the module docstring)."""

    correct: float = 1.0
    wrong_result: float = 0.0
    error: float = 0.0
    no_sql: float = 0.0
    gold_error: float = 0.0
    order: str = "benchmark"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            if f.name == "order":
                continue
            v = getattr(self, f.name)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise InputError(f"shaping: {f.name} must be a number, got {v!r}")
            object.__setattr__(self, f.name, float(v))
        if self.order not in ORDER_MODES:
            raise InputError(f"shaping: order must be one of {', '.join(ORDER_MODES)}, got {self.order!r}")

    def with_kwargs(self, kwargs: MutableMapping[str, Any]) -> "Shaping":
        """A copy with the shaping keyword arguments found in ``kwargs`` applied (and removed from it)."""
        changes = {SHAPING_KWARGS[k]: kwargs.pop(k) for k in list(kwargs) if k in SHAPING_KWARGS}
        return dataclasses.replace(self, **changes) if changes else self

    def score(self, outcome: str) -> float:
        """The score of an outcome: ``correct``, ``wrong_result``, ``error``, ``no_sql`` or ``gold_error``."""
        return float(getattr(self, outcome))

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Shaping":
        return from_checked_dict(cls, d, "shaping: unknown option(s)")


def from_checked_dict(cls: Any, d: Mapping[str, Any], unknown_message: str) -> Any:
    """``cls(**d)`` for a dataclass, with InputError naming the keys it does not have."""
    unknown = set(d) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise InputError(f"{unknown_message} {', '.join(sorted(unknown))}")
    return cls(**d)


def has_top_level_order_by(sql: str) -> bool:
    """True when ``sql`` has ORDER BY outside every parenthesis (subqueries, CTE bodies, window
    ``OVER (...)`` clauses), ignoring string literals, quoted identifiers and comments."""
    depth = 0
    i, n = 0, len(sql)
    words: list[str] = []  # the last two words at depth 0
    while i < n:
        c = sql[i]
        if c in "'\"`[":
            close = "]" if c == "[" else c
            j = i + 1
            while j < n:
                if sql[j] == close:
                    if close != "]" and j + 1 < n and sql[j + 1] == close:  # doubled quote
                        j += 2
                        continue
                    break
                j += 1
            i = j + 1
            words.clear()
            continue
        if sql.startswith("--", i):
            j = sql.find("\n", i)
            i = n if j < 0 else j + 1
            continue
        if sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            i = n if j < 0 else j + 2
            continue
        if c == "(":
            depth += 1
            words.clear()
        elif c == ")":
            depth = max(depth - 1, 0)
            words.clear()
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (sql[j].isalnum() or sql[j] == "_"):
                j += 1
            if depth == 0:
                words.append(sql[i:j].lower())
                if words[-2:] == ["order", "by"]:
                    return True
                del words[:-1]
            i = j
            continue
        elif not c.isspace():
            words.clear()
        i += 1
    return False
