"""Text that is not valid Unicode: lone surrogates (issue 19; docs/python.md, "Text that is not valid
Unicode").

A Python ``str`` can hold a surrogate code point (``json.loads('"\\ud83d"')``, a tokenizer or a
stream that cut an emoji in two). Such a string cannot be encoded as UTF-8.

* In a **model output** it is graded, never refused: the backends carry it to the verdict, which
  scores a SQL holding one 0 (an execution error, as Python's sqlite3 refuses the string and the
  official scripts score that exception 0) and ignores one outside the SQL.
* In **anything else** (gold SQL, paths, db ids, prompts): :class:`InputError` naming the field,
  checked here before anything is sent. Values nested in ``gold_result`` are checked by the backends,
  which name them the same way (`` `gold_result[0][1][0]` ``) and cost nothing when they are valid.
"""

from __future__ import annotations

import re
from typing import Any, Optional

from .errors import InputError

__all__ = ["check_text", "first_surrogate"]

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
            raise InputError(f"`{what}`: not valid Unicode: a lone surrogate (U+{ord(value[i]):04X}); "
                             "only the model output may hold one")  # the words of sqlgrade serve
