"""Backends: where verdicts are computed.

Two implementations of one small protocol (and a router over several servers):

* ``server``: HTTP to a running ``sqlgrade serve`` (``SQLGRADE_SERVER=http://host:port``); with
  several URLs (``http://a:8000,http://b:8000``, one server per node) requests are routed by database
  with consistent hashing and fail over to the next node (``sqlgrade/ray/client.py``, docs/ray.md);
* ``native``: the pybind11 module ``sqlgrade._native`` (in-process, GIL released).

Both take the same *request* dicts and return the same *reply* dicts (docs/python.md, "Backend
protocol"; the native module's exact signatures are in ``sqlgrade/_native.pyi``). The public API
(``sqlgrade.verdict`` ...) builds requests, picks a backend here and turns replies into
:class:`~sqlgrade.results.Verdict` objects, so the adapters never see which backend ran.

Request (verdict)::

    benchmark       "spider2" | "spider" | "bird"
    db_id           database id (what a server resolves in its own folders)
    db              absolute path of the database file (spider: file or folder), or None
    model_output    text to extract the SQL from          } exactly one of the two
    sql             SQL used verbatim (no extraction)     }
    gold_sql        [str, ...] | None (gold, alternatives) } at least one of the two (spider2 may
    gold_result     [alternative][row][cell] | None       }  use instance_id with a gold folder)
    ignore_order    bool | None (None: the benchmark's rule)
    condition_cols  list | int | None                     (spider2)
    gold_single_file bool | None                          (spider2 with gold_result)
    instance_id     str | None
    extract         {"word_boundary", "tags_and_json", "raw_fallback", "after_think"} (bools), "preset" | None
    timeout         seconds per prediction query | None (backend default)
    plug_value, keep_distinct   bool                      (spider, test-suite flags)
    verify          True | {"budget", "candidates", "seed"} | None   (search for a counterexample after a match)
    order           "benchmark" | "top_level"             (the top-level ORDER BY rule)
    shaping         {"correct", "wrong_result", "error", "no_sql", "gold_error"} (numbers)

Reply (verdict): ``reward`` (1.0/0.0), ``execution_match``, ``extracted_sql`` (str | None),
``extraction_source``, ``failure_reason`` (none | no_sql_extracted | execution_error |
gold_execution_error | timeout), ``failure_detail``, ``benchmark``, ``gold_cached``, optionally
``pred_executed`` (bool), ``timings`` ({name: seconds}), ``score`` and ``outcome`` (the library's
shaping of the request's ``shaping``), ``gold_index`` (with alternatives: which gold decided) and,
when asked, ``verify`` ({status, reason, candidates, seconds, time_capped, counterexample?}; reward 0
when status is refuted).

Request (execute): ``benchmark``, ``db_id``, ``db``, ``sql``, ``timeout``, ``max_rows``,
``max_bytes``. Reply: ``status`` (ok | error | timeout | too_large), ``columns``, ``rows``,
``truncated``, ``error``, optionally ``timings``.
"""

from __future__ import annotations

import threading
from typing import Any, Dict, List, Protocol

from .config import Config
from .errors import BackendUnavailable

__all__ = ["Backend", "get_backend", "Request", "Reply"]

Request = Dict[str, Any]
Reply = Dict[str, Any]


class Backend(Protocol):
    """What the API needs from a backend."""

    name: str

    def verdict(self, request: Request) -> Reply:
        """One verdict. Raises InputError for a bad request."""
        ...

    def verdicts(self, requests: List[Request], threads: int) -> List[Reply]:
        """Verdicts in request order, up to ``threads`` at once (0: automatic). A bad request
        raises InputError naming its index ("request 3: ...")."""
        ...

    def execute(self, request: Request) -> Reply:
        """Run one query read-only under a deadline (for observations)."""
        ...


_cache: Dict[Any, Backend] = {}
_cache_lock = threading.Lock()


def get_backend(cfg: Config) -> Backend:
    """The backend the settings select: ``server`` when a server URL is set (or forced),
    else ``native``. Raises BackendUnavailable when neither can be used."""
    kind = cfg.backend
    if kind == "auto":
        kind = "server" if cfg.server else "native"
    if kind == "server" and not cfg.server:
        raise BackendUnavailable(
            "sqlgrade: backend 'server' selected but no server URL: set SQLGRADE_SERVER=http://host:port "
            "(a running `sqlgrade serve`) or sqlgrade.configure(server=...)")
    key = (kind, cfg.server, cfg.http_timeout, cfg.retries, cfg.retry_budget, cfg.connect_retries)
    with _cache_lock:
        b = _cache.get(key)
        if b is None:
            if kind == "server" and "," in (cfg.server or ""):  # several servers: routed by database
                from .ray.client import RoutedBackend, parse_urls  # (plain HTTP: Ray is not imported)

                b = RoutedBackend(parse_urls(cfg.server or ""), http_timeout=cfg.http_timeout, retries=cfg.retries,
                                  retry_budget=cfg.retry_budget)
            elif kind == "server":
                from ._server import ServerBackend

                b = ServerBackend(cfg.server or "", http_timeout=cfg.http_timeout, retries=cfg.retries,
                                  retry_budget=cfg.retry_budget, connect_retries=cfg.connect_retries)
            else:
                from ._native_backend import NativeBackend

                b = NativeBackend.load()
            _cache[key] = b
        return b


def native_available() -> bool:
    """True when the native module can be imported (CMake target sqlgrade_native builds it)."""
    try:
        from ._native_backend import NativeBackend

        NativeBackend.load()
        return True
    except BackendUnavailable:
        return False
