"""The data contract the adapters share: one dataset row -> :func:`sqlgrade.verdict` arguments.

A row (verl ``extra_info`` + ``ground_truth``, a TRL dataset row, an OpenRLHF label, an AReaL data
dict, SkyRL ``extras``, inspect_ai sample metadata) carries the label keys of the library's one
table (src/sqlgrade/verdict/request.hpp ``label_keys``; ``/get_reward`` reads the same, and
``LABEL_KEYS`` below is read from it, sqlgrade._tables):

``gold_sql``             the gold query (verl: ``ground_truth``); a list = gold + alternatives
``alternative_answers``  more gold queries; any match counts
``db_path``              the database file (spider: the file or its folder)
``db_id``                instead of ``db_path``: resolved under ``db_root`` (or by the server)
``benchmark``            ``spider2`` (default) | ``spider`` | ``bird``
``gold_result``, ``ignore_order``, ``condition_cols``, ``instance_id``, ``gold_single_file``,
``extract`` (an object of extraction options), ``timeout``, ``plug_value``, ``keep_distinct``,
``verify``               as the :func:`sqlgrade.verdict` arguments (and the /verify fields) of the same name
``shaping``, ``order``   the row's own reward shaping ({correct, wrong_result, error, no_sql,
                         gold_error}) and order rule, over the adapter's
``reward_components``    a reply field of the reward server (/verify, /get_reward: the reward's terms,
                         docs/serve.md); a Python verdict has no such field and leaves it unread

Any other key of the row is data (a question, an id), not a grading rule. Missing gold or database
is bad input (:class:`InputError`); a bad model output is a verdict.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, Dict, List, Mapping, Optional

from . import _tables
from .config import normalize_benchmark
from .errors import InputError
from .results import Verdict
from .shaping import Shaping

__all__ = ["completion_text", "row_kwargs", "benchmark_from_source", "as_mapping", "verdict_extras",
           "row_shaping", "LABEL_KEYS", "VERL_INTERNAL_KWARGS"]

# The library's table of label keys, in its order (src/sqlgrade/verdict/request.cpp label_keys()), read
# from the native module or the build's copy (sqlgrade._tables); Python keeps none of its own.
LABEL_KEYS = _tables.label_keys()

# The label keys passed to sqlgrade.verdict() as they are (the others: golds, database, benchmark, shaping).
PASSTHROUGH = ("gold_result", "ignore_order", "condition_cols", "instance_id", "gold_single_file", "timeout",
               "plug_value", "keep_distinct", "verify")

_SHAPING_FIELDS = ("correct", "wrong_result", "error", "no_sql", "gold_error")

# Keyword arguments verl's reward managers pass to compute_score that sqlgrade does not use.
VERL_INTERNAL_KWARGS = ("reward_router_address", "reward_model_tokenizer", "reward_model", "sandbox_fusion_url",
                        "concurrent_semaphore", "memory_limit_mb")


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or a chat-message list (every assistant message's
    content, in order; content may be a string or a list of ``{"type": "text", "text": ...}``)."""
    if completion is None:
        return ""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        completion = [completion]
    if isinstance(completion, (list, tuple)):
        parts: List[str] = []
        for m in completion:
            if not isinstance(m, Mapping):
                raise InputError(f"a chat completion must be a list of messages (dicts), got {type(m).__name__}")
            if m.get("role", "assistant") != "assistant":
                continue
            content = m.get("content")
            if isinstance(content, str):
                parts.append(content)
            elif isinstance(content, list):
                parts.extend(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
        return "\n".join(parts)
    raise InputError(f"a completion must be a string or a list of chat messages, got {type(completion).__name__}")


def benchmark_from_source(data_source: Any, default: str) -> str:
    """The benchmark a verl ``data_source`` names (``spider2``/``spider 2.0`` -> spider2, ``bird``,
    ``spider``), else ``default``."""
    s = str(data_source or "").lower().replace(" ", "").replace(".0", "")
    for token, bench in (("spider2", "spider2"), ("spider_2", "spider2"), ("spider-2", "spider2"),
                         ("bird", "bird"), ("spider", "spider")):
        if token in s:
            return bench
    return default


def as_mapping(value: Any, what: str) -> Mapping[str, Any]:
    """A dict, or a JSON object in a string (OpenRLHF labels are often strings)."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str):
        try:
            obj = json.loads(value)
        except ValueError:
            raise InputError(f"{what}: expected a JSON object with gold_sql and db_path, got {value[:60]!r}") from None
        if isinstance(obj, Mapping):
            return obj
    raise InputError(f"{what}: expected a dict (or a JSON object string), got {type(value).__name__}")


def _gold_list(value: Any, what: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if hasattr(value, "tolist"):  # numpy arrays from parquet columns
        value = value.tolist()
    if isinstance(value, (list, tuple)) and all(isinstance(g, str) for g in value):
        return list(value)
    raise InputError(f"{what} must be a string or a list of strings, got {type(value).__name__}")


def row_kwargs(row: Mapping[str, Any], *, gold: Any = None, benchmark: Optional[str] = None,
               what: str = "row") -> Optional[Dict[str, Any]]:
    """:func:`sqlgrade.verdict` keyword arguments for a row, or None when the row has no gold
    (not a SQL task). ``gold`` overrides ``row["gold_sql"]`` (verl's ground_truth). A row's
    ``shaping``/``order`` come back under ``"shaping"`` as a dict of overrides: give it to
    :func:`row_shaping` with the adapter's own shaping."""
    golds = _gold_list(gold if gold is not None else row.get("gold_sql"), f"{what}: gold_sql")
    golds += _gold_list(row.get("alternative_answers"), f"{what}: alternative_answers")
    golds = [g for g in golds if g.strip()]
    if not golds and row.get("gold_result") is None and row.get("instance_id") is None:
        return None
    db = row.get("db_path") or row.get("db_id")
    if not db:
        raise InputError(f"{what}: no database: give db_path (the .sqlite file) or db_id (with db_root)")
    bench = row.get("benchmark") or benchmark
    kw: Dict[str, Any] = {"db": db, "gold_sql": golds or None}
    if bench is not None:
        kw["benchmark"] = normalize_benchmark(bench)
    for k in PASSTHROUGH:
        if row.get(k) is not None:
            kw[k] = row[k]
    if row.get("extract") is not None:
        if not isinstance(row["extract"], Mapping):  # the /verify field: an object of extraction options
            raise InputError(f"{what}: `extract` must be an object")
        kw["extract"] = dict(row["extract"])
    overrides = _shaping_overrides(row, what)
    if overrides:
        kw["shaping"] = overrides
    return kw


def _shaping_overrides(row: Mapping[str, Any], what: str) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    shaping = row.get("shaping")
    if shaping is not None:
        if not isinstance(shaping, Mapping):
            raise InputError(f"{what}: `shaping` must be an object of {', '.join(_SHAPING_FIELDS)}")
        unknown = [str(k) for k in shaping if k not in _SHAPING_FIELDS]
        if unknown:
            raise InputError(f"{what}: `shaping`: unknown option(s) {', '.join(sorted(unknown))} "
                             f"({', '.join(_SHAPING_FIELDS)})")
        out.update({k: v for k, v in shaping.items() if v is not None})
    if row.get("order") is not None:
        out["order"] = row["order"]
    return out


def row_shaping(kw: Dict[str, Any], base: Shaping) -> Shaping:
    """The shaping of one row: ``base`` (the adapter's) with the row's own ``shaping``/``order``
    (popped from ``kw``, as :func:`row_kwargs` left them) applied; ``base`` itself when it has none."""
    overrides = kw.pop("shaping", None)
    if not overrides:
        return base
    if isinstance(overrides, Shaping):
        return overrides
    return dataclasses.replace(base, **overrides)  # Shaping checks each value (row "score" of the bounds)


def verdict_extras(v: Verdict) -> Dict[str, float]:
    """Numeric per-rollout values for logging (the same keys for every rollout): ``acc`` the
    official verdict, ``sql_found``, ``sql_executed``, ``sql_refuted`` (the ``verify`` option refuted
    the match: stage ``refuted``) and ``sql_unverified`` (its search was cut before it found anything)."""
    checked = v.verify or {}
    return {"acc": float(v.execution_match), "sql_found": float(v.outcome != "no_sql"),
            "sql_executed": float(bool(v.executed)), "sql_refuted": float(v.stage == "refuted"),
            "sql_unverified": float(checked.get("status") == "unverified")}
