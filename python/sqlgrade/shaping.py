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
level (not inside a subquery, CTE or window). It applies to Spider 2.0 with ``gold_sql`` (each gold
alternative decides for itself); Spider with ``gold_sql`` keeps the test-suite rule (``'order by'``
anywhere in the gold) and BIRD keeps set semantics (order never matters). An explicit
``ignore_order`` wins.

The rules and the scores are applied by the C++ library (src/sqlgrade/verdict/shaping.cpp), whichever
backend grades: the request carries ``order`` and ``shaping`` (docs/serve.md), the reply its
``score`` and ``outcome``. Here only the types are converted; the scores are checked against the
library's table of bounds (row ``score``), the order mode by the library when a verdict is asked.

Options live in one frozen dataclass. The process-wide default is ``sqlgrade.config().shaping``
(set with ``sqlgrade.configure(wrong_result_score=0.1, ...)``); every adapter also accepts the
same options as keyword arguments (``correct_score``, ``wrong_result_score``, ``error_score``,
``no_sql_score``, ``gold_error_score``, ``order``), which win over the default for that call.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Mapping, MutableMapping

from . import _tables
from ._bounds import check as _check_bound
from .errors import InputError

__all__ = ["Shaping", "SHAPING_KWARGS"]

# The request's `shaping` fields, in order: the library's list (verdict/request.hpp shaping_fields(), in
# the registry). The dataclass below declares them for the Python API; a test checks that its fields and
# defaults are the library's.
SCORE_FIELDS = _tables.shaping_fields()

# Keyword argument name -> Shaping field: each score field as ``<field>_score``, and ``order``.
SHAPING_KWARGS = {**{f + "_score": f for f in SCORE_FIELDS}, "order": "order"}


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
            v = _check_bound("score", getattr(self, f.name), f"shaping.{f.name}")
            object.__setattr__(self, f.name, float(v))
        if not isinstance(self.order, str):
            raise InputError(f"shaping: order must be a string, got {self.order!r}")

    def with_kwargs(self, kwargs: MutableMapping[str, Any]) -> "Shaping":
        """A copy with the shaping keyword arguments found in ``kwargs`` applied (and removed from it)."""
        changes = {SHAPING_KWARGS[k]: kwargs.pop(k) for k in list(kwargs) if k in SHAPING_KWARGS}
        return dataclasses.replace(self, **changes) if changes else self

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def request_fields(self) -> dict[str, Any]:
        """What a verdict request carries (docs/serve.md): ``order`` and the ``shaping`` scores. Built
        once per call and shared by its requests (asdict per rollout cost ~10% of a native batch)."""
        return {"order": self.order, "shaping": {f: getattr(self, f) for f in SCORE_FIELDS}}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Shaping":
        return from_checked_dict(cls, d, "shaping: unknown option(s)")


def from_checked_dict(cls: Any, d: Mapping[str, Any], unknown_message: str) -> Any:
    """``cls(**d)`` for a dataclass, with InputError naming the keys it does not have."""
    unknown = set(d) - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        raise InputError(f"{unknown_message} {', '.join(sorted(unknown))}")
    return cls(**d)
