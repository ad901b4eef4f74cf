"""The public API: :func:`verdict`, :func:`verdicts`, :func:`execute` and their async forms.

Every function here is a plain module-level function (picklable by reference), thread-safe, and
backend-agnostic: it builds protocol requests (``_backend.py``), sends them to the selected
backend and returns :class:`~sqlgrade.results.Verdict` / :class:`~sqlgrade.results.ExecResult`.
"""

from __future__ import annotations

import asyncio
import functools
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from ._backend import get_backend
from ._bounds import check as _check_bound
from ._dbref import resolve_db
from ._unicode import check_text
from .config import EXTRACT_KEYS, Config, config, normalize_benchmark
from .errors import InputError
from .results import ExecResult, Verdict
from .shaping import Shaping, has_top_level_order_by

__all__ = ["verdict", "verdicts", "averdict", "averdicts", "execute", "aexecute"]

GoldSql = Union[str, Sequence[str], None]
DbArg = Union[str, "os.PathLike[str]"]


def _shaping(shaping: Optional[Shaping], kwargs: Dict[str, Any], cfg: Config) -> Shaping:
    base = shaping if shaping is not None else cfg.shaping
    if isinstance(base, Mapping):
        base = Shaping.from_dict(base)
    return base.with_kwargs(kwargs)


def _golds(gold_sql: GoldSql) -> List[str]:
    if gold_sql is None:
        return []
    if isinstance(gold_sql, str):
        check_text(gold_sql, "gold_sql")
        return [gold_sql] if gold_sql.strip() else []
    golds = list(gold_sql) if isinstance(gold_sql, (list, tuple)) else None
    if golds is None or not all(isinstance(g, str) for g in golds):
        raise InputError("gold_sql must be a string or a list of strings")
    for i, g in enumerate(golds):
        check_text(g, f"gold_sql[{i}]")
    return [g for g in golds if g.strip()]


def _extract(extract: Union[bool, Mapping[str, bool]], cfg: Config) -> Optional[Dict[str, bool]]:
    if extract is True:
        return dict(cfg.extract) if cfg.extract else None
    if isinstance(extract, Mapping):
        bad = [k for k, v in extract.items() if k not in EXTRACT_KEYS or not isinstance(v, bool)]
        if bad:
            raise InputError(f"extract: unknown option or non-boolean value: {', '.join(map(str, bad))}")
        return {**(cfg.extract or {}), **extract}
    raise InputError(f"extract must be True, False or a dict of {', '.join(EXTRACT_KEYS)}")


def _build(output: Optional[str], *, db: DbArg, gold_sql: GoldSql = None, gold_result: Optional[list] = None,
           benchmark: Optional[str] = None, ignore_order: Optional[bool] = None, condition_cols: Any = None,
           instance_id: Optional[str] = None, gold_single_file: Optional[bool] = None,
           extract: Union[bool, Mapping[str, bool]] = True, timeout: Optional[float] = None,
           plug_value: bool = False, keep_distinct: bool = False, verify: Union[bool, Mapping[str, Any], None] = None,
           cfg: Config) -> Tuple[Dict[str, Any], List[str]]:
    """A protocol request for the first gold, and the list of all golds (alternatives after it)."""
    if output is None:
        output = ""
    if not isinstance(output, str):
        raise InputError(f"the model output must be a string, got {type(output).__name__}")
    # Only the model output may hold a lone surrogate (it is graded; _unicode.py): the rest is checked.
    check_text(benchmark, "benchmark")
    check_text(instance_id, "instance_id")
    bench = normalize_benchmark(benchmark if benchmark is not None else cfg.benchmark)
    ref = resolve_db(db, bench, cfg.db_root)
    golds = _golds(gold_sql)
    if gold_result is not None and not isinstance(gold_result, list):
        raise InputError("gold_result must be a list of result sets ([alternative][row][cell])")
    if ignore_order is not None and not isinstance(ignore_order, bool):
        raise InputError("ignore_order must be true, false or None")
    if timeout is not None:
        _check_bound("timeout", timeout)
    req: Dict[str, Any] = {"benchmark": bench, "db_id": ref.db_id, "db": ref.path}
    if extract is False:
        req["sql"] = output
    else:
        req["model_output"] = output
        req["extract"] = _extract(extract, cfg)
    req.update(gold_sql=golds[0] if golds else None, gold_result=gold_result, ignore_order=ignore_order,
               condition_cols=condition_cols, instance_id=instance_id, gold_single_file=gold_single_file,
               timeout=None if timeout is None else float(timeout), plug_value=bool(plug_value),
               keep_distinct=bool(keep_distinct))
    req["verify"] = _verify_option(verify)
    return req, golds


def _verify_option(verify: Union[bool, Mapping[str, Any], None]) -> Union[bool, Dict[str, Any], None]:
    """The request's ``verify`` (docs/verify.md "For RL"): None/False off, True the defaults (0.2 s,
    50 candidates, seed 0), or a dict of ``budget``, ``candidates``, ``seed``. The backend checks the
    values against the table of bounds; here only the shape."""
    if verify is None or verify is False:
        return None
    if verify is True:
        return True
    if isinstance(verify, Mapping):
        bad = [k for k in verify if k not in ("budget", "candidates", "seed")]
        if bad:
            raise InputError(f"verify: unknown option(s): {', '.join(map(str, bad))} (budget, candidates, seed)")
        return dict(verify)
    raise InputError("verify must be True, False, None or a dict of budget, candidates, seed")


def _with_gold(req: Dict[str, Any], gold: str, shaping: Shaping) -> Dict[str, Any]:
    r = dict(req, gold_sql=gold)
    if shaping.order == "top_level" and req["ignore_order"] is None and req["benchmark"] == "spider2":
        r["ignore_order"] = not has_top_level_order_by(gold)
    return r


def verdict(output: Optional[str] = None, *, db: DbArg, gold_sql: GoldSql = None, gold_result: Optional[list] = None,
            benchmark: Optional[str] = None, ignore_order: Optional[bool] = None, condition_cols: Any = None,
            instance_id: Optional[str] = None, gold_single_file: Optional[bool] = None,
            extract: Union[bool, Mapping[str, bool]] = True, timeout: Optional[float] = None,
            plug_value: bool = False, keep_distinct: bool = False, verify: Union[bool, Mapping[str, Any], None] = None,
            shaping: Optional[Shaping] = None, **shaping_kwargs: Any) -> Verdict:
    """Grade one model output (or, with ``extract=False``, one SQL query) against a gold.

    ``db`` is the database file (``.sqlite``; for ``benchmark="spider"`` the file or its folder,
    whose every ``*.sqlite`` is a test-suite database) or a bare db_id (resolved under
    ``db_root``, or by the server in its own folders). ``gold_sql`` may be a list: the first is
    the gold, the others are alternatives (any match counts). ``benchmark`` is ``spider2``
    (default), ``spider`` or ``bird``. Shaping options (``wrong_result_score=0.1``, ...) set
    ``Verdict.score``. ``verify=True`` (or ``{"budget": s, "candidates": n, "seed": k}``) also
    searches, after a match, for a database on which the prediction and ``gold_sql`` differ: a
    refuted match keeps ``execution_match`` but gets reward 0 (``Verdict.verify`` has the outcome).
    Raises :class:`InputError` for bad input, never for a bad prediction.
    """
    cfg = config()
    shp = _shaping(shaping, shaping_kwargs, cfg)
    if shaping_kwargs:
        raise TypeError(f"verdict() got unexpected keyword argument(s): {', '.join(shaping_kwargs)}")
    req, golds = _build(output, db=db, gold_sql=gold_sql, gold_result=gold_result, benchmark=benchmark,
                        ignore_order=ignore_order, condition_cols=condition_cols, instance_id=instance_id,
                        gold_single_file=gold_single_file, extract=extract, timeout=timeout, plug_value=plug_value,
                        keep_distinct=keep_distinct, verify=verify, cfg=cfg)
    backend = get_backend(cfg)
    first = None
    for gold in golds or [None]:
        reply = backend.verdict(_with_gold(req, gold, shp) if gold is not None else req)
        first = first or reply
        if reply.get("execution_match"):
            return Verdict.from_reply(reply, shp)
    return Verdict.from_reply(first or {}, shp)


def verdicts(items: Iterable[Mapping[str, Any]], *, threads: Optional[int] = None, shaping: Optional[Shaping] = None,
             **common: Any) -> List[Verdict]:
    """Grade a batch. Each item is a dict of :func:`verdict` keyword arguments with the model
    output under ``"output"``; ``common`` keyword arguments apply to every item (an item's own
    value wins). Shaping keyword arguments go in ``common``. Results keep the input order.
    ``threads``: requests in flight (server) or worker threads (native); default automatic.
    A bad item raises :class:`InputError` naming its index, before anything is graded."""
    cfg = config()
    if threads is not None:
        _check_bound("jobs", threads, "threads")
    shp = _shaping(shaping, common, cfg)
    bases: List[Dict[str, Any]] = []  # before a gold is filled in (each gold sets its own order rule)
    golds: List[List[str]] = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise InputError(f"request {i}: expected a dict of verdict() arguments, got {type(item).__name__}")
        kw = {**common, **item}
        output = kw.pop("output", None)
        try:
            req, g = _build(output, cfg=cfg, **kw)
        except InputError as e:
            raise InputError(f"request {i}: {e}") from None
        except TypeError as e:
            raise TypeError(f"request {i}: {e}") from None
        bases.append(req)
        golds.append(g)
    n_threads = threads if threads is not None else cfg.threads
    backend = get_backend(cfg)
    replies = backend.verdicts([_with_gold(r, g[0], shp) if g else r for r, g in zip(bases, golds)], n_threads)
    # Alternatives: one more round for every item whose gold k did not match but which has gold k+1.
    k = 1
    while True:
        todo = [i for i, r in enumerate(replies) if not r.get("execution_match") and len(golds[i]) > k]
        if not todo:
            break
        alt = backend.verdicts([_with_gold(bases[i], golds[i][k], shp) for i in todo], n_threads)
        for i, r in zip(todo, alt):
            if r.get("execution_match"):
                replies[i] = r
        k += 1
    return [Verdict.from_reply(r, shp) for r in replies]


async def averdict(output: Optional[str] = None, **kwargs: Any) -> Verdict:
    """:func:`verdict` without blocking the event loop (runs in the default executor)."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(verdict, output, **kwargs))


async def averdicts(items: Iterable[Mapping[str, Any]], **kwargs: Any) -> List[Verdict]:
    """:func:`verdicts` without blocking the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(verdicts, list(items), **kwargs))


def execute(db: DbArg, sql: str, *, benchmark: Optional[str] = None, timeout: float = 10.0, max_rows: int = 100,
            max_chars: int = 4000, max_bytes: int = 16 << 20) -> ExecResult:
    """Run one query read-only, bounded by ``timeout`` seconds, ``max_rows`` rows and
    ``max_bytes`` bytes, for an agent's observation. A failing query gives a result with
    ``status`` error/timeout (not an exception); ``ExecResult.text`` is the observation cut to
    ``max_chars`` characters. Raises :class:`InputError` for a missing database or bad limits."""
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
                                      "max_bytes": int(max_bytes)})
    return ExecResult.from_reply(reply, int(max_chars))


async def aexecute(db: DbArg, sql: str, **kwargs: Any) -> ExecResult:
    """:func:`execute` without blocking the event loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(None, functools.partial(execute, db, sql, **kwargs))
