"""sqlgrade on a Ray cluster (docs/ray.md). Ray is optional: ``import sqlgrade`` never imports it, and
neither does this package until a function that needs a cluster is called.

* :func:`grade`: a whole benchmark run (Spider, BIRD, Spider 2.0-Lite, UDA) as shards on the cluster,
  merged into the record one process writes (``sqlgrade merge``). CLI: ``python -m sqlgrade.ray grade``.
* :func:`grade_warm` / :class:`GraderPool`: the same run (the four benchmarks) on warm graders (Ray
  actors grading in-process), in batches of databases or UDA datasets (``--shard-by db``); ``grade --warm``.
* :class:`Fleet`: one ``sqlgrade serve`` per node, supervised; ``python -m sqlgrade.ray serve``.
* :class:`RoutedBackend`: the reward client over those servers (by database, consistent hashing,
  failover); plain HTTP, no Ray. ``SQLGRADE_SERVER=http://a:8000,http://b:8000`` selects it.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._cluster import ClusterError
from .client import HashRing, RoutedBackend

__all__ = ["grade", "grade_warm", "GraderPool", "Fleet", "RoutedBackend", "HashRing", "ClusterError"]


def __getattr__(name: str) -> Any:  # the modules that use Ray load on first use
    if name == "grade":
        return importlib.import_module(f"{__name__}.batch").grade
    if name in ("grade_warm", "GraderPool"):
        return getattr(importlib.import_module(f"{__name__}.warm"), name)
    if name == "Fleet":
        return importlib.import_module(f"{__name__}.serve").Fleet
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
