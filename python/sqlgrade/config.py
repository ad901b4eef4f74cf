"""Process-wide settings: which backend, where the databases are, reward shaping, HTTP behaviour.

Read once from the environment on first use:

``SQLGRADE_SERVER``   ``http://host:port`` of a running ``sqlgrade serve``: selects the server backend
                     (several, comma-separated: one per node, routed by database; docs/ray.md)
``SQLGRADE_BACKEND``  ``auto`` (default: server when SQLGRADE_SERVER is set, else native), ``server``, ``native``
``SQLGRADE_DB_ROOT``  folder that resolves a bare ``db_id`` (``<root>/<id>.sqlite`` or ``<root>/<id>/<id>.sqlite``)
``SQLGRADE_CONFIG``   JSON of every field below (written by :func:`configure`)

:func:`configure` changes the settings in this process *and* writes them to the environment, so
worker processes started afterwards (AReaL's process pool, Ray workers started from here,
``multiprocessing`` with spawn) get the same settings. Keyword arguments of the API functions and
adapters override the settings for one call.
"""

from __future__ import annotations

import dataclasses
import json
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

from . import _tables
from ._bounds import check as _check_bound
from .errors import InputError
from .shaping import Shaping, from_checked_dict

__all__ = ["Config", "config", "configure", "reload", "BENCHMARKS", "normalize_benchmark"]

BENCHMARKS = _tables.benchmark_names()  # the library's registry (verdict/registry.cpp), in its order
BACKENDS = ("auto", "server", "native")
EXTRACT_KEYS = _tables.extract_keys()  # the library's switches of `extract` (verdict/request.cpp)
# extract["preset"]: sqlgrade's order, or NeMo Gym bird_sql's extraction and failure codes of one version
EXTRACT_PRESETS = _tables.extract_presets()



def normalize_benchmark(name: Any) -> str:
    """``spider2`` / ``spider`` / ``bird`` for a benchmark name or alias, by the library's registry and
    its rule (whitespace around the name ignored, any case: ``sqlgrade serve`` accepts the same)."""
    return _tables.canonical(name)


@dataclass(frozen=True)
class Config:
    """Settings; see the module docstring. Build changed copies with :func:`configure`."""

    server: Optional[str] = None  # "http://host:port" of sqlgrade serve
    backend: str = "auto"  # auto | server | native
    db_root: Optional[str] = None  # resolves bare db ids
    # Spider 2.0-Lite by instance_id in-process: the official gold folder (spider2lite_eval.jsonl +
    # exec_result/), read by the library exactly as `sqlgrade serve --spider2-gold-dir` reads it.
    spider2_gold_dir: Optional[str] = None
    benchmark: str = _tables.default_benchmark()  # default comparison: the registry's (spider2)
    shaping: Shaping = field(default_factory=Shaping)
    extract: Optional[Mapping[str, Any]] = None  # word_boundary, tags_and_json, raw_fallback, after_think (bools), preset (None: backend default)
    threads: int = 0  # verdicts(): parallel requests; 0 = automatic
    http_timeout: float = 120.0  # seconds to wait for one HTTP reply
    retries: int = 30  # 503 answers retried (each after Retry-After) ...
    retry_budget: float = 120.0  # ... for at most this many seconds in all
    connect_retries: int = 2  # refused/reset connections retried (0.2 s, 0.4 s, ...)

    def __post_init__(self) -> None:
        if self.server is not None:
            if not isinstance(self.server, str) or not self.server.startswith(("http://", "https://")):
                raise InputError(f"server must be an http:// or https:// URL, got {self.server!r}")
            object.__setattr__(self, "server", self.server.rstrip("/"))
        if self.backend not in BACKENDS:
            raise InputError(f"backend must be one of {', '.join(BACKENDS)}, got {self.backend!r}")
        object.__setattr__(self, "benchmark", normalize_benchmark(self.benchmark))
        if isinstance(self.shaping, Mapping):
            object.__setattr__(self, "shaping", Shaping.from_dict(self.shaping))
        if self.extract is not None:
            bad = [k for k, v in dict(self.extract).items()
                   if not (k in EXTRACT_KEYS and isinstance(v, bool)) and not (k == "preset" and v in EXTRACT_PRESETS)]
            if bad:
                raise InputError(f"extract: unknown option or non-boolean value: {', '.join(bad)}")
            object.__setattr__(self, "extract", dict(self.extract))
        # The library's table of bounds (_bounds.py): NaN, inf and values that switch a bound off are refused.
        for name, row in (("threads", "jobs"), ("retries", "retries"), ("connect_retries", "connect_retries"),
                          ("http_timeout", "timeout"), ("retry_budget", "timeout")):
            _check_bound(row, getattr(self, name), name)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # shaping becomes a dict too

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "Config":
        return from_checked_dict(cls, d, "config: unknown setting(s)")


_lock = threading.Lock()
_current: Optional[Config] = None


def _from_environment() -> Config:
    d: dict[str, Any] = {}
    raw = os.environ.get("SQLGRADE_CONFIG")
    if raw:
        try:
            d = json.loads(raw)
        except ValueError as e:
            raise InputError(f"SQLGRADE_CONFIG: not valid JSON ({e})") from None
        if not isinstance(d, dict):
            raise InputError("SQLGRADE_CONFIG: expected a JSON object")
    for var, key in (("SQLGRADE_SERVER", "server"), ("SQLGRADE_BACKEND", "backend"), ("SQLGRADE_DB_ROOT", "db_root"),
                     ("SQLGRADE_SPIDER2_GOLD_DIR", "spider2_gold_dir")):
        if os.environ.get(var):
            d[key] = os.environ[var]
    return Config.from_dict(d)


def config() -> Config:
    """The current settings (read from the environment on first use)."""
    global _current
    cur = _current
    if cur is None:
        with _lock:
            if _current is None:
                _current = _from_environment()
            cur = _current
    return cur


def reload() -> Config:
    """Forget the current settings and read them from the environment again."""
    global _current
    with _lock:
        _current = _from_environment()
        return _current


def configure(**changes: Any) -> Config:
    """Change settings for this process and for processes started from it afterwards.

    Takes the fields of :class:`Config` and, for convenience, the shaping keyword arguments
    (``wrong_result_score=0.1``, ``no_sql_score=-1``, ``order="top_level"``, ...).
    Returns the new settings. ``configure()`` with no arguments only re-exports them.
    """
    global _current
    with _lock:
        base = _current if _current is not None else _from_environment()
        shaping = changes.pop("shaping", base.shaping)
        if isinstance(shaping, Mapping):
            shaping = Shaping.from_dict(shaping)
        shaping = shaping.with_kwargs(changes)
        new = Config.from_dict({**base.to_dict(), **changes, "shaping": shaping})
        _current = new
        _export(new)
        return new


def _export(c: Config) -> None:
    os.environ["SQLGRADE_CONFIG"] = json.dumps(c.to_dict(), sort_keys=True)
    for var, value in (("SQLGRADE_SERVER", c.server), ("SQLGRADE_BACKEND", c.backend), ("SQLGRADE_DB_ROOT", c.db_root),
                       ("SQLGRADE_SPIDER2_GOLD_DIR", c.spider2_gold_dir)):
        if value is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = value

