"""TRL: reward functions for ``GRPOTrainer(reward_funcs=...)``.

GRPOTrainer calls ``reward_func(prompts=..., completions=..., completion_ids=..., **columns)``
where every other dataset column arrives as a list (one value per completion) and it adds
``trainer_state`` (older versions: ``step``, ``run_name``). Completions are strings, or, for a
conversational dataset, lists of chat messages (``[{"role": "assistant", "content": ...}]``).
It expects ``list[float | None]``; None means "not applicable to this sample".

Columns read: the label keys of the data contract (docs/python.md; ``sqlgrade._rows.LABEL_KEYS``,
the library's one table): ``gold_sql`` (required; a row without it gets None), ``db_path`` or
``db_id`` (with ``db_root``: ``sqlgrade.configure(db_root=...)`` or ``RewardFunc(db_root=...)``), and
optionally ``benchmark``, ``alternative_answers``, ``gold_result``, ``ignore_order``,
``condition_cols``, ``instance_id``, ``verify``, ``keep_distinct``, ``shaping``, ... All other keywords
are ignored.

``reward_func`` uses the process-wide settings; ``RewardFunc(wrong_result_score=0.1, ...)`` is a
named, picklable reward function with its own options::

    from sqlgrade.trl import RewardFunc, reward_func
    trainer = GRPOTrainer(model=..., reward_funcs=[RewardFunc(no_sql_score=-1.0)], train_dataset=ds)
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from . import api
from ._dbref import resolve_db
from ._rows import LABEL_KEYS, completion_text, row_kwargs, row_shaping
from .config import config, normalize_benchmark
from .errors import InputError
from .shaping import SHAPING_KWARGS

__all__ = ["reward_func", "RewardFunc"]

_COLUMNS = LABEL_KEYS


class RewardFunc:
    """A TRL reward function with its own options (picklable; ``__name__`` names it in TRL's logs).

    Options: ``db_root`` (folder for ``db_id`` columns), ``benchmark`` (default for rows without a
    ``benchmark`` column), ``name``, and the shaping keywords (``wrong_result_score``, ...).
    """

    def __init__(self, *, db_root: Optional[str] = None, benchmark: Optional[str] = None,
                 name: str = "sqlgrade_reward", **shaping: Any) -> None:
        unknown = set(shaping) - set(SHAPING_KWARGS)
        if unknown:
            raise TypeError(f"RewardFunc() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
        self.db_root = db_root
        self.benchmark = benchmark
        self.shaping = dict(shaping)
        self.__name__ = name

    def __repr__(self) -> str:
        return f"RewardFunc(name={self.__name__!r}, db_root={self.db_root!r}, benchmark={self.benchmark!r}, {self.shaping})"

    def __call__(self, prompts: Optional[Sequence[Any]] = None, completions: Optional[Sequence[Any]] = None,
                 **columns: Any) -> List[Optional[float]]:
        if completions is None:
            raise InputError("reward_func: no completions")
        n = len(completions)
        cols: Dict[str, Sequence[Any]] = {}
        for k in _COLUMNS:
            if columns.get(k) is None:
                continue
            values = columns[k]
            if len(values) != n:
                raise InputError(f"reward_func: column {k} has {len(values)} values for {n} completions")
            cols[k] = values
        if "gold_sql" not in cols and "gold_result" not in cols:
            raise InputError("reward_func: the dataset has no gold_sql column")
        shaping = config().shaping.with_kwargs(dict(self.shaping))
        items: List[Dict[str, Any]] = []
        index: List[int] = []
        for i in range(n):
            row = {k: v[i] for k, v in cols.items()}
            if self.db_root and row.get("db_id") and not row.get("db_path"):
                bench = normalize_benchmark(row.get("benchmark") or self.benchmark or config().benchmark)
                row["db_path"] = resolve_db(str(row["db_id"]), bench, self.db_root).path
            kw = row_kwargs(row, benchmark=self.benchmark, what=f"completion {i}")
            if kw is None:
                continue
            kw["output"] = completion_text(completions[i])
            kw["shaping"] = row_shaping(kw, shaping)
            items.append(kw)
            index.append(i)
        out: List[Optional[float]] = [None] * n
        if items:
            for i, v in zip(index, api.verdicts(items)):
                out[i] = v.score
        return out


def reward_func(prompts: Optional[Sequence[Any]] = None, completions: Optional[Sequence[Any]] = None,
                **columns: Any) -> List[Optional[float]]:
    """TRL reward function with the process-wide settings (``sqlgrade.configure``)."""
    return RewardFunc(db_root=None, benchmark=None)(prompts, completions, **columns)

