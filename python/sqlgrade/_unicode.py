"""Text that is not valid Unicode: lone surrogates (issue 19; docs/python.md, "Text that is not valid
Unicode").

A Python ``str`` can hold a surrogate code point (``json.loads('"\\ud83d"')``, a tokenizer or a
stream that cut an emoji in two). Such a string cannot be encoded as UTF-8.

* In a **model output** it is graded, never refused: the backends carry it to the verdict, which
  scores a SQL holding one 0 (an execution error, as Python's sqlite3 refuses the string and the
  official scripts score that exception 0) and ignores one outside the SQL.
* In **anything else** (gold SQL, gold results, paths, db ids, prompts): :class:`InputError` naming
  the field, before anything is sent.
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Optional

from .errors import InputError

__all__ = ["check_text", "check_tree", "first_surrogate"]

_SURROGATE = re.compile("[\ud800-\udfff]")


def first_surrogate(s: str) -> Optional[int]:
    """Index of the first surrogate code point of ``s``, or None (ASCII strings cost nothing)."""
    if s.isascii():
        return None
    m = _SURROGATE.search(s)
    return m.start() if m else None


def check_text(value: Any, what: str) -> None:
    """Raises InputError when ``value`` is a str holding a surrogate (``what`` names the field)."""
    if isinstance(value, str):
        i = first_surrogate(value)
        if i is not None:
            raise InputError(f"{what}: not valid Unicode: a lone surrogate (U+{ord(value[i]):04X}) at character {i}; "
                             "only the model output may hold one")


def check_tree(value: Any, what: str) -> None:
    """:func:`check_text` over every string of a JSON-like value (lists, tuples, dicts and their keys)."""
    if isinstance(value, str):
        check_text(value, what)
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            if not isinstance(v, (int, float)) and v is not None:
                check_tree(v, f"{what}[{i}]")
    elif isinstance(value, Mapping):
        for k, v in value.items():
            check_text(k, f"a key of {what}")
            check_tree(v, f"{what}.{k}")
