"""Numeric arguments are checked against sqlgrade's one table of bounds (issue 19, finding 9).

The table lives in the C++ library (``src/sqlgrade/core/bounds.cpp``): the CLI's flags and the
reward server's request fields are checked against it. This is its copy for the arguments of the
Python package, so that a bad number is refused before any work, with the very message the server
answers (HTTP 400) and the CLI prints (after its ``--``): ``timeout: must be a number of seconds in
(0, 86400]; got nan``. ``python/tests/test_bounds.py`` checks that the copy equals the library's
table (``sqlgrade._native.bounds()``) row by row and that both format the same messages.

NaN and +-inf are refused everywhere; so are ``bool`` values (``True`` is not a timeout).
"""

from __future__ import annotations

import math
from typing import Any, Dict, NamedTuple

from .errors import InputError

__all__ = ["Bound", "TABLE", "check", "describe"]


class Bound(NamedTuple):
    name: str
    min: float
    max: float
    min_open: bool
    max_open: bool
    integer: bool
    unit: str
    note: str


_DAY = 86400.0
_U64_MAX = 18446744073709551615.0

# Same rows, same order as kTable in src/sqlgrade/core/bounds.cpp.
_ROWS = (
    Bound("timeout", 0, _DAY, True, False, False, "seconds", ""),
    Bound("jobs", 0, 1024, False, False, True, "threads", "0 = all cores"),
    Bound("max_concurrency", 0, 1024, False, False, True, "verifies", "0 = max(4, 2 x cores)"),
    Bound("max_queue", 0, 1e6, False, False, True, "verifies", ""),
    Bound("max_rows", 1, 1e9, False, False, True, "rows", ""),
    Bound("max_bytes", 1, 4294967296.0, False, False, True, "bytes", ""),
    Bound("max_chars", 1, 1e9, False, False, True, "characters", ""),
    Bound("max_batch", 1, 1e6, False, False, True, "rollouts", ""),
    Bound("result_mb", 0, 4096, True, False, False, "MiB", ""),
    Bound("cache_entries", 0, 1e7, False, False, True, "entries", "0 = no cache"),
    Bound("cache_mb", 0, 65536, False, False, False, "MiB", "0 = no cache"),
    Bound("body_mb", 0, 4096, True, False, False, "MiB", ""),
    Bound("buffered_mb", 0, 65536, True, False, False, "MiB", ""),
    Bound("max_connections", 1, 65536, False, False, True, "connections", ""),
    Bound("port", 0, 65535, False, False, True, "", "0 = any free port"),
    Bound("max_input_mb", 1, 4095, False, False, False, "MiB", ""),
    Bound("repeat", 1, 10000, False, False, True, "runs", ""),
    Bound("seed", 0, _U64_MAX, False, False, True, "", ""),
    Bound("count", 0, 1e9, False, False, True, "items", ""),
    Bound("example_rows", 0, 1e6, False, False, True, "rows", ""),
    Bound("query_id", 1, 1e6, False, False, True, "", ""),
    Bound("float_tolerance", 0, 1e6, False, False, False, "", ""),
    Bound("bootstrap", 0, 1e5, False, False, True, "resamples", "0 = no intervals"),
    Bound("confidence", 0, 1, True, True, False, "", ""),
    Bound("list", 0, 1e9, False, False, True, "instances", "0 = all"),
    Bound("shard_count", 1, 1e6, False, False, True, "shards", ""),
    Bound("llm_concurrency", 1, 256, False, False, True, "requests", ""),
    Bound("llm_timeout", 0, 3600, True, False, False, "seconds", ""),
    Bound("llm_retries", 0, 20, False, False, True, "retries", ""),
    Bound("llm_max_tokens", 0, 4096, False, False, True, "tokens", "0 = 8 for YES/NO, 12 for counts"),
    Bound("llm_max_failures", 0, 1e6, False, False, True, "calls", "0 = never stop"),
    Bound("retries", 0, 1000, False, False, True, "retries", ""),
    Bound("connect_retries", 0, 100, False, False, True, "retries", ""),
    Bound("verify_budget", 0, _DAY, True, False, False, "seconds", ""),
    Bound("verify_candidates", 1, 1e7, False, False, True, "databases", ""),
)
TABLE: Dict[str, Bound] = {b.name: b for b in _ROWS}


def _num(v: float) -> str:
    """A number as the library shows it (bounds.cpp number_text: Python's repr, whole numbers bare)."""
    if v == _U64_MAX:
        return "18446744073709551615"
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == math.floor(v) and abs(v) < 1e16:
        return str(int(v))
    return repr(float(v))


def _interval(b: Bound) -> str:
    return ("(" if b.min_open else "[") + _num(b.min) + ", " + _num(b.max) + (")" if b.max_open else "]")


def describe(b: Bound) -> str:
    """``a number of seconds in (0, 86400]``: what a row accepts (bounds.cpp describe)."""
    s = "an integer" if b.integer else "a number"
    if b.unit and not b.integer:
        s += " of " + b.unit
    s += " in " + _interval(b)
    if b.unit and b.integer:
        s += " " + b.unit
    return s + (f" ({b.note})" if b.note else "")


def check(name: str, value: Any, label: str = "") -> Any:
    """``value`` when row ``name`` accepts it, else :class:`InputError` ``"<label>: must be ...; got ..."``."""
    b = TABLE[name]
    label = label or name
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = repr(value)
        raise InputError(f"{label}: must be {describe(b)}; got {shown[:40] + '...' if len(shown) > 40 else shown}")
    try:
        v = float(value)
    except OverflowError:  # an int beyond a double
        raise InputError(f"{label}: must be {describe(b)}; got {str(value)[:40]}...") from None
    ok = (math.isfinite(v) and (v > b.min if b.min_open else v >= b.min) and (v < b.max if b.max_open else v <= b.max)
          and (not b.integer or v == math.floor(v)))
    if not ok:
        raise InputError(f"{label}: must be {describe(b)}; got {_num(v)}")
    return value
