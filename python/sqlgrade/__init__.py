"""sqlgrade: official text-to-SQL verdicts (Spider 2.0-Lite, Spider, BIRD) from Python.

>>> import sqlgrade
>>> v = sqlgrade.verdict("```sql\\nSELECT name FROM singer\\n```", db="concert_singer.sqlite",
...                      gold_sql="SELECT name FROM singer", benchmark="spider")
>>> v.reward, v.failure_reason

Backends: with ``SQLGRADE_SERVER=http://host:port`` every call goes to a running
``sqlgrade serve``; otherwise to the in-process native module ``sqlgrade._native``.
Adapters for RL frameworks: ``sqlgrade.verl``, ``sqlgrade.trl``, ``sqlgrade.openrlhf``,
``sqlgrade.skyrl``, ``sqlgrade.areal``, and ``sqlgrade.compat`` (test-suite ``eval_exec_match``).
Whole-benchmark evaluation with the CLI's numbers: ``sqlgrade.spider.evaluate()``,
``sqlgrade.bird.evaluate()``, ``sqlgrade.spider2.evaluate()``, ``sqlgrade.uda.evaluate()``; their
shards merged with ``sqlgrade.runs.merge()``, runs compared with ``sqlgrade.runs.diff()`` /
``report()`` (run objects or record files), instances in pandas with ``run.to_pandas()``. See docs/python.md.
"""

from __future__ import annotations

import importlib
from typing import Any

try:  # load the native module first: it configures SQLite for threads before anything else opens it
    from . import _native as _native_early  # noqa: F401
except ImportError:  # server mode only
    pass

from .api import aexecute, averdict, averdicts, execute, verdict, verdicts
from .config import Config, config, configure, reload
from .errors import (BackendUnavailable, BackendUnsupported, GoldError, InputError, ServerBusy, ServerError,
                     ServerTimeout, ServerUnavailable, SqlgradeError)
from .results import ExecResult, Verdict
from .shaping import Shaping

__version__ = "0.1.0"

__all__ = [
    "verdict", "verdicts", "averdict", "averdicts", "execute", "aexecute",
    "Verdict", "ExecResult", "Shaping", "Config", "config", "configure", "reload",
    "SqlgradeError", "InputError", "GoldError", "BackendUnavailable", "BackendUnsupported",
    "ServerError", "ServerUnavailable", "ServerBusy", "ServerTimeout",
    "verl", "trl", "openrlhf", "skyrl", "areal", "compat",
    "spider", "bird", "spider2", "uda", "runs",
]

_ADAPTERS = ("verl", "trl", "openrlhf", "skyrl", "areal", "compat", "spider", "bird", "spider2", "uda", "runs")


def __getattr__(name: str) -> Any:
    """``sqlgrade.verl`` etc. without an explicit ``import sqlgrade.verl``."""
    if name in _ADAPTERS:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
