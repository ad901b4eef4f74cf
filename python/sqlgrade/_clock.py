"""SQL's pinned clock (``now=``): the TIMESTAMP text the library reads (docs/cli.md, "--now").

``date('now')``, ``CURRENT_DATE``, ``CURRENT_TIMESTAMP``, ``julianday('now')`` and friends return the
pinned instant instead of the machine's clock, so two runs on different days grade alike. None is the
real clock. A ``str`` goes to the library as written (it checks it: ISO 8601 ``YYYY-MM-DD`` or
``YYYY-MM-DDTHH:MM[:SS[.fff]]``, UTC unless it ends in ``Z`` or an offset); a ``datetime.datetime``
(naive: UTC) or a ``datetime.date`` becomes its ISO 8601 text.
"""

from __future__ import annotations

import datetime
from typing import Any, Optional

from .errors import InputError

__all__ = ["now_text"]


def now_text(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, datetime.datetime):
        return value.isoformat(timespec="milliseconds")
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise InputError(f"now: expected a TIMESTAMP string (ISO 8601), a datetime or a date, got {type(value).__name__}")
