"""The public API: :func:`verdict`, :func:`verdicts`, :func:`execute` and their async forms.

Every function here is a plain module-level function (picklable by reference), thread-safe, and
backend-agnostic: it builds protocol requests (``_backend.py``), sends them to the selected
backend and returns :class:`~sqlgrade.results.Verdict` / :class:`~sqlgrade.results.ExecResult`.
"""

from __future__ import annotations

import asyncio
import functools
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union

from ._backend import get_backend
from ._bounds import check as _check_bound
from ._clock import now_text
from ._dbref import resolve_db
from ._unicode import check_text
from .config import EXTRACT_KEYS, EXTRACT_PRESETS, Config, config, normalize_benchmark
from .errors import InputError
from .results import ExecResult, Verdict
from .shaping import Shaping

__all__ = ["verdict", "verdicts", "averdict", "averdicts", "execute", "aexecute"]

GoldSql = Union[str, Sequence[str], None]
DbArg = Union[str, "os.PathLike[str]"]


def _shaping(shaping: Optional[Shaping], kwargs: Dict[str, Any], cfg: Config) -> Shaping:
    base = shaping if shaping is not None else cfg.shaping
    if isinstance(base, Mapping):
        base = Shaping.from_dict(base)
    return base.with_kwargs(kwargs)


def _golds(gold_sql: GoldSql) -> Optional[List[str]]:
    """``gold_sql`` as the request's list (the gold, then its alternatives). The library drops blank
    entries and tries the alternatives (src/sqlgrade/verdict/shaping.cpp); here only the types."""
    if gold_sql is None:
        return None
    if isinstance(gold_sql, str):
        check_text(gold_sql, "gold_sql")
        return [gold_sql]
    golds = list(gold_sql) if isinstance(gold_sql, (list, tuple)) else None
    if golds is None or not all(isinstance(g, str) for g in golds):
        raise InputError("gold_sql must be a string or a list of strings")
    for i, g in enumerate(golds):
        check_text(g, f"gold_sql[{i}]")
    return golds


def _extract(extract: Union[bool, Mapping[str, bool]], cfg: Config) -> Optional[Dict[str, bool]]:
    if extract is True:
        return dict(cfg.extract) if cfg.extract else None
    if isinstance(extract, Mapping):
        bad = [k for k, v in extract.items()
               if not (k in EXTRACT_KEYS and isinstance(v, bool)) and not (k == "preset" and v in EXTRACT_PRESETS)]
        if bad:
            raise InputError(f"extract: unknown option or non-boolean value: {', '.join(map(str, bad))}")
        return {**(cfg.extract or {}), **extract}
    raise InputError(f"extract must be True, False or a dict of {', '.join(EXTRACT_KEYS)} (bools) and preset "
                     f"({', '.join(EXTRACT_PRESETS)})")


def _build(output: Optional[str], *, db: DbArg, gold_sql: GoldSql = None, gold_result: Optional[list] = None,
           benchmark: Optional[str] = None, ignore_order: Optional[bool] = None, condition_cols: Any = None,
           instance_id: Optional[str] = None, gold_single_file: Optional[bool] = None,
           extract: Union[bool, Mapping[str, bool]] = True, timeout: Optional[float] = None,
           plug_value: bool = False, keep_distinct: bool = False, verify: Union[bool, Mapping[str, Any], None] = None,
           now: Any = None, rules: Mapping[str, Any], cfg: Config, db_memo: Optional[dict] = None) -> Dict[str, Any]:
    """A protocol request: the golds (alternatives after the first) and the shaping travel with it;
    the library applies them (the order rule, any-match, the scores)."""
    if output is None:
        output = ""
    if not isinstance(output, str):
        raise InputError(f"the model output must be a string, got {type(output).__name__}")
    # Only the model output may hold a lone surrogate (it is graded; _unicode.py): the rest is checked.
    check_text(benchmark, "benchmark")
    check_text(instance_id, "instance_id")
    bench = normalize_benchmark(benchmark if benchmark is not None else cfg.benchmark)
    ref = resolve_db(db, bench, cfg.db_root, db_memo)
    if gold_result is not None and not isinstance(gold_result, list):
        raise InputError("gold_result must be a list of result sets ([alternative][row][cell])")
    if ignore_order is not None and not isinstance(ignore_order, bool):
        raise InputError("ignore_order must be true, false or None")
    if timeout is not None:
        _check_bound("timeout", timeout)
    req: Dict[str, Any] = {"benchmark": bench, "db_id": ref.db_id, "db": ref.path}
    if ref.dialect:
        req["dialect"] = ref.dialect
    if extract is False:
        req["sql"] = output
    else:
        req["model_output"] = output
        req["extract"] = _extract(extract, cfg)
    req.update(gold_sql=_golds(gold_sql), gold_result=gold_result, ignore_order=ignore_order,
               condition_cols=condition_cols, instance_id=instance_id, gold_single_file=gold_single_file,
               timeout=None if timeout is None else float(timeout), plug_value=bool(plug_value),
               keep_distinct=bool(keep_distinct))
    req["verify"] = _verify_option(verify)
    req["now"] = now_text(now)  # SQL's clock for gold and prediction (None: the backend's)
    req.update(rules)  # order and shaping (Shaping.request_fields)
    return req


# The options of `verify` (the library's, verdict/verify_option.cpp).
VERIFY_KEYS = ("budget", "candidates", "seed", "on_unverified")


def _verify_option(verify: Union[bool, Mapping[str, Any], None]) -> Union[bool, Dict[str, Any], None]:
    """The request's ``verify`` (docs/verify.md "For RL"): None/False off, True the defaults (0.2 s,
    50 candidates, seed 0, ``on_unverified="match"``), or a dict of ``budget``, ``candidates``,
    ``seed``, ``on_unverified`` ("match" | "zero": the reward of a match whose search was cut). The
    backend checks the values (the numbers against the table of bounds); here only the shape."""
    if verify is None or verify is False:
        return None
    if verify is True:
        return True
    if isinstance(verify, Mapping):
        bad = [k for k in verify if k not in VERIFY_KEYS]
        if bad:
            raise InputError(f"verify: unknown option(s): {', '.join(map(str, bad))} ({', '.join(VERIFY_KEYS)})")
        return dict(verify)
    raise InputError(f"verify must be True, False, None or a dict of {', '.join(VERIFY_KEYS)}")


def verdict(output: Optional[str] = None, *, db: DbArg, gold_sql: GoldSql = None, gold_result: Optional[list] = None,
            benchmark: Optional[str] = None, ignore_order: Optional[bool] = None, condition_cols: Any = None,
            instance_id: Optional[str] = None, gold_single_file: Optional[bool] = None,
            extract: Union[bool, Mapping[str, bool]] = True, timeout: Optional[float] = None,
            plug_value: bool = False, keep_distinct: bool = False, verify: Union[bool, Mapping[str, Any], None] = None,
            now: Any = None, shaping: Optional[Shaping] = None, **shaping_kwargs: Any) -> Verdict:
    """Grade one model output (or, with ``extract=False``, one SQL query) against a gold.

    ``db`` is the database file (``.sqlite``; for ``benchmark="spider"`` the file or its folder,
    whose every ``*.sqlite`` is a test-suite database) or a bare db_id (resolved under
    ``db_root``, or by the server in its own folders). ``gold_sql`` may be a list: the first is
    the gold, the others are alternatives (any match counts; the verdict is the first matching
    gold's, else the first gold's). ``benchmark`` is ``spider2``
    (default), ``spider`` or ``bird``. Shaping options (``wrong_result_score=0.1``, ...) set
    ``Verdict.score``. ``verify=True`` (or ``{"budget": s, "candidates": n, "seed": k}``) also
    searches, after a match, for a database on which the prediction and ``gold_sql`` differ: a
    refuted match keeps ``execution_match`` but gets reward 0 and stage ``refuted``; a search cut
    before it found anything is ``unverified``, rewarded as ``on_unverified`` says (``Verdict.verify``
    has the outcome; with gold alternatives, any gold the prediction is equivalent to counts).
    ``now`` pins SQL's clock for the gold and the prediction (``date('now')``, ``CURRENT_TIMESTAMP``,
    ...): an ISO 8601 string, a ``datetime`` (naive: UTC) or a ``date``; None: the server's ``--now``,
    else the real clock.
    Raises :class:`InputError` for bad input, never for a bad prediction.
    """
    cfg = config()
    shp = _shaping(shaping, shaping_kwargs, cfg)
    if shaping_kwargs:
        raise TypeError(f"verdict() got unexpected keyword argument(s): {', '.join(shaping_kwargs)}")
    req = _build(output, db=db, gold_sql=gold_sql, gold_result=gold_result, benchmark=benchmark,
                 ignore_order=ignore_order, condition_cols=condition_cols, instance_id=instance_id,
                 gold_single_file=gold_single_file, extract=extract, timeout=timeout, plug_value=plug_value,
                 keep_distinct=keep_distinct, verify=verify, now=now, rules=shp.request_fields(), cfg=cfg)
    return Verdict.from_reply(get_backend(cfg).verdict(req))


def verdicts(items: Iterable[Mapping[str, Any]], *, threads: Optional[int] = None, shaping: Optional[Shaping] = None,
             **common: Any) -> List[Verdict]:
    """Grade a batch. Each item is a dict of :func:`verdict` keyword arguments with the model
    output under ``"output"``; ``common`` keyword arguments apply to every item (an item's own
    value wins). Shaping keyword arguments go in ``common``; an item may carry its own ``shaping``
    (a :class:`Shaping` or a dict of its fields), which replaces the call's for that item. Results
    keep the input order.
    ``threads``: requests in flight (server) or worker threads (native); default automatic.
    A bad item raises :class:`InputError` naming its index, before anything is graded."""
    cfg = config()
    if threads is not None:
        _check_bound("jobs", threads, "threads")
    rules = _shaping(shaping, common, cfg).request_fields()
    item_rules: Dict[int, Any] = {}  # id -> (shaping, request_fields()): once per distinct item Shaping
    requests: List[Dict[str, Any]] = []
    db_memo: dict = {}  # each database of the batch resolved once
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InputError(f"request {i}: expected a dict of verdict() arguments, got {type(item).__name__}")
        kw = {**common, **item}
        output = kw.pop("output", None)
        try:
            own = kw.pop("shaping", None)
            seen = item_rules.get(id(own))
            if own is None:
                r = rules
            elif seen is not None and seen[0] is own:
                r = seen[1]
            else:
                r = _shaping(own, {}, cfg).request_fields()
                if isinstance(own, Shaping):
                    item_rules[id(own)] = (own, r)
            requests.append(_build(output, cfg=cfg, rules=r, db_memo=db_memo, **kw))
        except InputError as e:
            raise InputError(f"request {i}: {e}") from None
        except TypeError as e:
            raise TypeError(f"request {i}: {e}") from None
    n_threads = threads if threads is not None else cfg.threads
    return [Verdict.from_reply(r) for r in get_backend(cfg).verdicts(requests, n_threads)]


async def averdict(output: Optional[str] = None, **kwargs: Any) -> Verdict:
    """:func:`verdict` without blocking the event loop (runs in the default executor)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(verdict, output, **kwargs))


async def averdicts(items: Iterable[Mapping[str, Any]], **kwargs: Any) -> List[Verdict]:
    """:func:`verdicts` without blocking the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(verdicts, list(items), **kwargs))


def execute(db: DbArg, sql: str, *, benchmark: Optional[str] = None, timeout: float = 10.0, max_rows: int = 100,
            max_chars: int = 4000, max_bytes: int = 16 << 20, now: Any = None) -> ExecResult:
    """Run one query read-only, bounded by ``timeout`` seconds, ``max_rows`` rows and
    ``max_bytes`` bytes, for an agent's observation. A failing query gives a result with
    ``status`` error/timeout (not an exception); ``ExecResult.text`` is the observation cut to
    ``max_chars`` characters. ``now`` pins SQL's clock as in :func:`verdict`. Raises
    :class:`InputError` for a missing database or bad limits."""
    cfg = config()
    if not isinstance(sql, str):
        raise InputError(f"sql must be a string, got {type(sql).__name__}")
    check_text(benchmark, "benchmark")
    for name, v in (("timeout", timeout), ("max_rows", max_rows), ("max_chars", max_chars), ("max_bytes", max_bytes)):
        _check_bound(name, v)
    bench = normalize_benchmark(benchmark if benchmark is not None else cfg.benchmark)
    ref = resolve_db(db, bench, cfg.db_root)
    reply = get_backend(cfg).execute({"benchmark": bench, "db_id": ref.db_id, "db": ref.path, "sql": sql,
                                      "timeout": float(timeout), "max_rows": int(max_rows),
                                      "max_bytes": int(max_bytes), "dialect": ref.dialect,
                                      "now": now_text(now)})
    return ExecResult.from_reply(reply, int(max_chars))


async def aexecute(db: DbArg, sql: str, **kwargs: Any) -> ExecResult:
    """:func:`execute` without blocking the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(execute, db, sql, **kwargs))
