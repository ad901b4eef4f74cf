"""verl: ``custom_reward_function`` entry points.

verl's reward managers call ``compute_score(data_source=..., solution_str=..., ground_truth=...,
extra_info=...)`` with keywords (NaiveRewardManager; the reward loop adds ``reward_model=...`` or
``reward_router_address=...``, and awaits the function when it is a coroutine function);
``custom_reward_function.reward_kwargs`` arrive as more keywords; BatchRewardManager calls
``compute_score(data_sources=..., solution_strs=..., ground_truths=..., extra_infos=...)``.

Data contract (one parquet row): ``reward_model.ground_truth`` = the gold SQL (or a list);
``extra_info.db_path`` = the database file (or ``db_id`` with ``db_root``);
``extra_info.alternative_answers`` = more golds; ``extra_info.benchmark`` or the ``data_source``
name picks the comparison: ``spider2`` (default), ``bird``, ``spider``.

Returned: a dict ``{"score": shaped score, "acc": 1.0/0.0 official verdict, "sql_found",
"sql_executed", "sql_refuted", "sql_unverified"}`` (verl logs the extra keys), or the bare score with
``return_dict=False``. ``extra_info`` may carry every label key of the data contract (docs/python.md),
``verify``, ``keep_distinct``, ``shaping`` ... included.
Keyword options: the shaping ones (``wrong_result_score``, ``no_sql_score``, ``error_score``,
``correct_score``, ``gold_error_score``, ``order``), ``return_dict``; verl's own keywords
(``reward_model``, ``reward_router_address``, ...) and any other unknown keyword are ignored.

::

    custom_reward_function:
      path: /path/to/sqlgrade_reward.py      # contains: from sqlgrade.verl import compute_score
      name: compute_score                     # or compute_score_async / compute_score_batch
      reward_kwargs: {wrong_result_score: 0.1, no_sql_score: -1.0}
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from . import api
from ._rows import as_mapping, benchmark_from_source, row_kwargs, row_shaping, verdict_extras
from .config import config
from .errors import InputError
from .results import Verdict
from .shaping import SHAPING_KWARGS, Shaping

__all__ = ["compute_score", "compute_score_async", "compute_score_batch"]

Score = Union[float, Dict[str, float]]


def _options(kwargs: Dict[str, Any]) -> Tuple[Shaping, bool]:
    return_dict = bool(kwargs.pop("return_dict", True))
    shaping = config().shaping.with_kwargs({k: v for k, v in kwargs.items() if k in SHAPING_KWARGS})
    return shaping, return_dict


def _kwargs(data_source: Any, ground_truth: Any, extra_info: Any, i: Optional[int] = None) -> Dict[str, Any]:
    where = "extra_info" if i is None else f"extra_infos[{i}]"
    info = as_mapping(extra_info, where)
    bench = info.get("benchmark") or benchmark_from_source(data_source, config().benchmark)
    kw = row_kwargs(info, gold=ground_truth, benchmark=bench, what=where)
    if kw is None:
        raise InputError(f"{where}: no gold: ground_truth must be the gold SQL")
    return kw


def _result(v: Verdict, return_dict: bool) -> Score:
    return {"score": v.score, **verdict_extras(v)} if return_dict else v.score


def compute_score(data_source: Any, solution_str: str, ground_truth: Any, extra_info: Optional[Mapping[str, Any]] = None,
                  **kwargs: Any) -> Score:
    """Score one rollout (verl ``custom_reward_function``)."""
    shaping, return_dict = _options(kwargs)
    kw = _kwargs(data_source, ground_truth, extra_info)
    v = api.verdict(solution_str, shaping=row_shaping(kw, shaping), **kw)
    return _result(v, return_dict)


async def compute_score_async(data_source: Any, solution_str: str, ground_truth: Any,
                              extra_info: Optional[Mapping[str, Any]] = None, **kwargs: Any) -> Score:
    """:func:`compute_score` as a coroutine function (verl's reward loop awaits it)."""
    shaping, return_dict = _options(kwargs)
    kw = _kwargs(data_source, ground_truth, extra_info)
    v = await api.averdict(solution_str, shaping=row_shaping(kw, shaping), **kw)
    return _result(v, return_dict)


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[str], ground_truths: Sequence[Any],
                        extra_infos: Optional[Sequence[Any]] = None, **kwargs: Any) -> List[Score]:
    """Score a batch in parallel (verl ``reward_manager: batch``)."""
    shaping, return_dict = _options(kwargs)
    n = len(solution_strs)
    infos = list(extra_infos) if extra_infos is not None else [None] * n
    if not (len(data_sources) == len(ground_truths) == len(infos) == n):
        raise InputError(f"compute_score_batch: {n} solutions but {len(data_sources)} data_sources, "
                         f"{len(ground_truths)} ground_truths, {len(infos)} extra_infos")
    items = []
    for i in range(n):
        kw = _kwargs(data_sources[i], ground_truths[i], infos[i], i)
        kw["shaping"] = row_shaping(kw, shaping)
        items.append(dict(kw, output=solution_strs[i]))
    return [_result(v, return_dict) for v in api.verdicts(items)]
