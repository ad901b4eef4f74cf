"""The run record on the Python objects: one instance shape for every run (docs/python.md, "Runs in a notebook").

Every object that holds a run — what ``sqlgrade.spider/bird/spider2/uda.evaluate()`` return,
:class:`sqlgrade.runs.MergedRun`, :class:`sqlgrade.runs.RunRecord` (``sqlgrade.runs.load``) — has:

* ``json``: the run record's text (what the CLI's ``--json`` writes; docs/comparing-runs.md §1);
* ``record``: it parsed (None when the run has no record: a Spider 2.0 run that evaluated nothing);
* ``instances``: the record's instances, one dict per instance in the record's shape — always ``id``,
  ``question`` (None when the benchmark has none), ``scores`` (``{metric: number}``; a metric missing =
  not graded), ``category`` (``{axis: value}``), ``rows`` (first gold/predicted rows, or None), then
  where the benchmark has them ``gold_sql``, ``pred_sql``, ``failure_reason``, ``time_s``, ``columns``,
  ``detail``;
* ``system``, ``benchmark``, ``metrics``, ``primary_metric``;
* ``to_pandas()``: one row per instance, flat columns (:func:`instances_frame`).

``sqlgrade.runs.diff/report/merge`` take these objects as they take record files.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional

__all__ = ["RecordView", "instances_frame", "PANDAS_MISSING"]

PANDAS_MISSING = ("sqlgrade: to_pandas() needs pandas, which is not installed (sqlgrade does not depend on it); "
                  "install it with `pip install pandas`, or read run.instances (plain dicts)")

# The instance's text fields, in the frame's column order (after id, the categories and the scores).
_TEXT = ("question", "gold_sql", "pred_sql", "failure_reason", "time_s")


class RecordView:
    """The run record's accessors, for a class whose ``json`` is the record's text (or None)."""

    json: Optional[str]

    @property
    def record(self) -> Optional[Dict[str, Any]]:
        """The run record (parsed once; the same dict each call — ``to_dict()``/``json`` for a copy)."""
        cached = self.__dict__.get("_record_cache")
        if cached is None and self.json is not None:
            cached = json.loads(self.json)
            self.__dict__["_record_cache"] = cached
        return cached

    @property
    def instances(self) -> List[Dict[str, Any]]:
        """The record's instances (see the module docstring), each with the five keys ``id``, ``question``,
        ``scores``, ``category``, ``rows`` first (None / {} where the record has none), then the record's
        others; [] without a record. Computed once."""
        cached = self.__dict__.get("_instances_cache")
        if cached is None:
            r = self.record
            cached = [_shape(i) for i in r["instances"]] if r is not None else []
            self.__dict__["_instances_cache"] = cached
        return cached

    @property
    def system(self) -> Optional[str]:
        r = self.record
        return r["system"] if r is not None else None

    @property
    def metrics(self) -> List[Dict[str, Any]]:
        """``[{"name", "kind", "label"}]``: the record's metrics, in its order."""
        r = self.record
        return r["metrics"] if r is not None else []

    @property
    def primary_metric(self) -> Optional[str]:
        r = self.record
        return r["primary_metric"] if r is not None else None

    def to_pandas(self) -> Any:
        """The instances as a ``pandas.DataFrame`` (pandas is optional: ImportError naming it when missing);
        columns in :func:`instances_frame`."""
        return instances_frame(self.record)


def _shape(inst: Dict[str, Any]) -> Dict[str, Any]:
    out = {"id": inst["id"], "question": inst.get("question"), "scores": inst["scores"],
           "category": inst.get("category", {}), "rows": inst.get("rows")}
    out.update((k, v) for k, v in inst.items() if k not in out)
    return out


def _axes(record: Dict[str, Any]) -> List[str]:
    """The category axes: the record's declared order, then any other axis the instances carry."""
    axes = [a["name"] for a in record.get("category_axes", [])]
    for inst in record["instances"]:
        for a in inst.get("category", {}):
            if a not in axes:
                axes.append(a)
    return axes


def instances_frame(record: Optional[Dict[str, Any]]) -> Any:
    """One row per instance of a run record, flat columns: ``system``, ``id``, ``category.<axis>`` per
    axis, ``scores.<metric>`` per declared metric (float; NaN = not graded), ``question``, ``gold_sql``,
    ``pred_sql``, ``failure_reason``, ``time_s``, ``rows.gold``, ``rows.pred`` (the first result rows
    kept, lists of lists, or None) and ``rows.truncated``. The benchmark-specific ``detail`` and UDA's
    per-column ``columns`` stay in ``run.instances``. Instances keep the record's (natural id) order;
    ``pd.concat`` of two runs' frames compares them by ``system``."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError(PANDAS_MISSING) from e
    if record is None:
        record = {"system": None, "metrics": [], "instances": []}
    metrics = [m["name"] for m in record["metrics"]]
    axes = _axes(record)
    columns = (["system", "id"] + [f"category.{a}" for a in axes] + [f"scores.{m}" for m in metrics] + list(_TEXT)
               + ["rows.gold", "rows.pred", "rows.truncated"])
    rows = []
    for inst in record["instances"]:
        cat, scores, kept = inst.get("category", {}), inst["scores"], inst.get("rows") or {}
        rows.append([record["system"], inst["id"], *(cat.get(a) for a in axes),
                     *(float(scores[m]) if m in scores else float("nan") for m in metrics),
                     *(inst.get(k) for k in _TEXT), kept.get("gold"), kept.get("pred"), kept.get("truncated")])
    frame = pd.DataFrame(rows, columns=columns)
    for m in metrics:
        frame[f"scores.{m}"] = frame[f"scores.{m}"].astype("float64")
    return frame
