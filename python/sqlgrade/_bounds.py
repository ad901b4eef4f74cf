"""Numeric arguments are checked against sqlgrade's one table of bounds (issue 19, finding 9).

The table lives once, in the C++ library (``src/sqlgrade/core/bounds.cpp``): the CLI's flags and the
reward server's request fields are checked against it, and so are the arguments of this package, so
that a bad number is refused before any work with the very message the server answers (HTTP 400)
and the CLI prints (after its ``--``): ``timeout: must be a number of seconds in (0, 86400]; got nan``.

Where the rows come from (docs/python.md, "Numbers and their bounds"):

* the native module, ``sqlgrade._native.bounds()`` (the library's table, row by row, with the text
  of what each row accepts);
* without the native module (the server-only mode), ``_bounds_table.json`` beside this file: the
  same rows as data, written by the build from the library's table (``python/native/bounds_table.cpp``)
  and installed into the wheel. No copy of the table is kept in Python.

NaN and +-inf are refused everywhere; so are ``bool`` values (``True`` is not a timeout).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import threading
from typing import Any, Dict, List, NamedTuple, Optional

from .errors import BackendUnavailable, InputError

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
    accepts: str  # bounds.cpp describe(): "a number of seconds in (0, 86400]"


_U64_MAX = 18446744073709551615.0
_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bounds_table.json")
_lock = threading.Lock()
_table: Optional[Dict[str, Bound]] = None


def _rows() -> List[Any]:
    try:
        native = importlib.import_module(__package__ + "._native")
    except ImportError:
        pass
    else:
        return list(native.bounds())
    try:
        with open(_DATA, encoding="utf-8") as f:
            return json.load(f)
    except OSError:
        raise BackendUnavailable(
            "sqlgrade: the table of numeric bounds is missing: neither the native module nor "
            f"{_DATA} is built (scripts/setup.sh, or pip install the package)") from None


def table() -> Dict[str, Bound]:
    """The library's rows by name, read once."""
    global _table
    if _table is None:
        with _lock:
            if _table is None:
                _table = {r[0]: Bound(*r) for r in _rows()}
    return _table


def __getattr__(name: str) -> Any:  # TABLE, read on first use (PEP 562)
    if name == "TABLE":
        return table()
    raise AttributeError(name)


def _num(v: float) -> str:
    """A number as the library shows it (Python's repr, whole numbers bare)."""
    if v == _U64_MAX:
        return "18446744073709551615"
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == math.floor(v) and abs(v) < 1e16:
        return str(int(v))
    return repr(float(v))


def describe(b: Bound) -> str:
    """``a number of seconds in (0, 86400]``: what a row accepts (the library's text)."""
    return b.accepts


def check(name: str, value: Any, label: str = "") -> Any:
    """``value`` when row ``name`` accepts it, else :class:`InputError` ``"<label>: must be ...; got ..."``."""
    b = table()[name]
    label = label or name
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        shown = repr(value)
        raise InputError(f"{label}: must be {b.accepts}; got {shown[:40] + '...' if len(shown) > 40 else shown}")
    try:
        v = float(value)
    except OverflowError:  # an int beyond a double
        raise InputError(f"{label}: must be {b.accepts}; got {str(value)[:40]}...") from None
    ok = (math.isfinite(v) and (v > b.min if b.min_open else v >= b.min) and (v < b.max if b.max_open else v <= b.max)
          and (not b.integer or v == math.floor(v)))
    if not ok:
        raise InputError(f"{label}: must be {b.accepts}; got {_num(v)}")
    return value
