"""Drop-in replacements for functions harnesses import from the official evaluators.

``eval_exec_match`` has the signature of test-suite-sql-eval's ``exec_eval.eval_exec_match``
(taoyds/test-suite-sql-eval): ``db`` is the path of one ``.sqlite`` file and every ``*.sqlite``
in its folder is a test-suite database; ``p_str`` and ``g_str`` are SQL (no extraction); the
result is 1 when the prediction is equivalent to the gold on every database, else 0. It differs
where the original hurts: every query is read-only with a deadline (the original has none), the
progress bar is never printed, and a failing gold raises :class:`~sqlgrade.GoldError`, a subclass
of AssertionError like the original's ``assert``. ``plug_value=True`` / ``keep_distinct=True``
need the native backend (``sqlgrade serve`` grades with the test-suite defaults).

::

    # before: from exec_eval import eval_exec_match
    from sqlgrade.compat import eval_exec_match
"""

from __future__ import annotations

from . import api
from .errors import GoldError, InputError

__all__ = ["eval_exec_match"]


def eval_exec_match(db: str, p_str: str, g_str: str, plug_value: bool = False, keep_distinct: bool = False,
                    progress_bar_for_each_datapoint: bool = False) -> int:
    """1 if ``p_str`` and ``g_str`` are denotationally equivalent on every database next to ``db``, else 0."""
    del progress_bar_for_each_datapoint  # a library never prints
    if not isinstance(p_str, str) or not isinstance(g_str, str):
        raise InputError("eval_exec_match: p_str and g_str must be strings")
    v = api.verdict(p_str, db=db, gold_sql=g_str, benchmark="spider", extract=False, plug_value=plug_value,
                    keep_distinct=keep_distinct)
    if v.failure_reason == "gold_execution_error":
        raise GoldError(f"gold query {g_str!r} has an error on {db}: {v.failure_detail}")
    return 1 if v.execution_match else 0
