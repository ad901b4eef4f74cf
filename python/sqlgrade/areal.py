"""AReaL: the ``reward_fn`` of the RLVR workflow.

AReaL's ``RLVRWorkflow`` wraps the reward function in ``AsyncRewardWrapper``, which runs
``reward_fn(prompt, completions, prompt_ids, completion_ids, **data)`` in a
``ProcessPoolExecutor`` (so the function is pickled by reference: it must be importable, as this
module-level function is) and waits at most ``timeout_seconds`` (15 s by default) for it.
``prompt`` and ``completions`` are decoded strings, the ids are token lists, ``data`` is the
dataset row (its ``messages`` and every other column). It expects a float.

Data contract: the row carries ``gold_sql``, ``db_path`` (or ``db_id`` with ``db_root``), and
optionally every other label key of the data contract (``alternative_answers``, ``gold_result``,
``verify``, ``shaping``, ...; docs/python.md). Returns the shaped score. Shaping and the backend come from
the process-wide settings: call ``sqlgrade.configure(...)`` (or set ``SQLGRADE_SERVER`` /
``SQLGRADE_CONFIG``) before AReaL starts its pool, and the workers inherit them.

::

    from sqlgrade.areal import reward_fn
    workflow = RLVRWorkflow(reward_fn=reward_fn, gconfig=..., tokenizer=...)
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

from . import api
from ._rows import completion_text, row_kwargs, row_shaping
from .config import config
from .errors import InputError

__all__ = ["reward_fn"]


def reward_fn(prompt: Optional[str], completions: Any, prompt_ids: Optional[Sequence[int]] = None,
              completion_ids: Optional[Sequence[int]] = None, **data: Any) -> float:
    """Score one AReaL completion (see the module docstring)."""
    kw = row_kwargs(data, what="data")
    if kw is None:
        raise InputError("data: no gold_sql in the dataset row")
    shaping = row_shaping(kw, config().shaping)
    return api.verdict(completion_text(completions), shaping=shaping, **kw).score
