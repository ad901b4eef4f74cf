"""OpenRLHF: the file-mode ``reward_func`` for ``--remote_rm_url /path/reward_func.py``.

OpenRLHF loads ``reward_func`` from the file and calls ``reward_func(queries, prompts, labels)``
positionally on chunks of a rollout batch (``RemoteRewardModel.get_rewards``, through
``ray.remote``): ``queries`` are prompt + response as decoded text, ``prompts`` the prompts,
``labels`` the ``--label_key`` column. It expects ``{"rewards", "scores", "extra_logs"}``:
rewards for the advantage, scores in [0, 1] for ``--dynamic_filtering``, extra_logs for wandb.

The reward file is two lines::

    # reward_func.py
    from sqlgrade.openrlhf import reward_func

Each label is a dict, or a JSON object string, with the shared data contract (``gold_sql``,
``db_path`` or ``db_id``, optional ``benchmark``, ``alternative_answers``, ...). The response is
the query after its prompt (the whole query when it does not start with the prompt).

Returned: ``rewards`` = shaped scores, ``scores`` = the rewards (1.0/0.0), ``extra_logs`` =
``{"sql_acc", "sql_found", "sql_executed", "sql_refuted", "sql_unverified"}`` per sample (sql_acc:
the official verdict; the same keys as ``sqlgrade serve``'s /get_reward); torch float32 tensors when
torch can be imported (OpenRLHF always has it), plain lists otherwise. Shaping comes from the
process-wide settings (``sqlgrade.configure(...)`` or ``SQLGRADE_CONFIG`` in the Ray runtime env) or
keywords; a label's own ``shaping``/``order`` apply over them.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from . import api
from ._rows import as_mapping, row_kwargs, row_shaping, verdict_extras
from ._unicode import check_text
from .config import config
from .errors import InputError
from .shaping import SHAPING_KWARGS

__all__ = ["reward_func"]


def _response(query: str, prompt: Any) -> str:
    if isinstance(prompt, str) and prompt and query.startswith(prompt):
        return query[len(prompt):]
    return query


def _tensor(values: List[float]) -> Any:
    try:
        import torch  # type: ignore[import-not-found]
    except ImportError:
        return values
    return torch.tensor(values, dtype=torch.float32)


def reward_func(queries: Sequence[str], prompts: Sequence[Any], labels: Sequence[Any], **kwargs: Any) -> Dict[str, Any]:
    """Rewards for a chunk of OpenRLHF rollouts (see the module docstring)."""
    unknown = set(kwargs) - set(SHAPING_KWARGS)
    if unknown:
        raise TypeError(f"reward_func() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    shaping = config().shaping.with_kwargs(dict(kwargs))
    n = len(queries)
    if len(prompts) != n or len(labels) != n:
        raise InputError(f"reward_func: {n} queries but {len(prompts)} prompts and {len(labels)} labels")
    items = []
    for i in range(n):
        if not isinstance(queries[i], str):
            raise InputError(f"labels[{i}]: the query must be a string, got {type(queries[i]).__name__}")
        kw = row_kwargs(as_mapping(labels[i], f"labels[{i}]"), what=f"labels[{i}]")
        if kw is None:
            raise InputError(f"labels[{i}]: no gold_sql")
        check_text(prompts[i], f"prompts[{i}]")  # the query is model output; the prompt is not (issue 19)
        kw["output"] = _response(queries[i], prompts[i])
        kw["shaping"] = row_shaping(kw, shaping)
        items.append(kw)
    verdicts = api.verdicts(items) if items else []
    extras = [verdict_extras(v) for v in verdicts]
    return {
        "rewards": _tensor([v.score for v in verdicts]),
        "scores": _tensor([v.reward for v in verdicts]),
        "extra_logs": {name: _tensor([e[k] for e in extras])
                       for name, k in (("sql_acc", "acc"), ("sql_found", "sql_found"), ("sql_executed", "sql_executed"),
                                       ("sql_refuted", "sql_refuted"), ("sql_unverified", "sql_unverified"))},
    }
