"""The `sqlgrade` scorer for inspect_ai: the model's completion graded by the benchmark's official
execution rule (sqlgrade.averdict: Spider test-suite, BIRD EX, Spider 2.0-Lite), in-process or on a
`sqlgrade serve` (SQLGRADE_SERVER), without blocking inspect's event loop.

A sample names its database and gold:
  target                   the gold SQL; several targets are alternatives (any match counts)
  metadata["db_path"]      the database file (spider: the file or its test-suite folder), or
  metadata["db_id"]        resolved under `db_root` (or by the server)
  metadata["benchmark"]    spider2 | spider | bird (default: the scorer's `benchmark`, else spider2)
  metadata[...]            ignore_order, condition_cols, gold_result, instance_id, as in sqlgrade.verdict

Score.value is CORRECT/INCORRECT (the official verdict; accuracy() and stderr() are its metrics),
Score.answer the SQL that was graded, Score.explanation the failure detail, Score.metadata the
failure reason, outcome and the shaped score. Reasoning models: only the text after the last
</think> is graded (extract={"after_think": False} reads the reasoning too).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

import sqlgrade

from .._dbref import resolve_db
from ..config import normalize_benchmark

_PASSED = ("ignore_order", "condition_cols", "gold_result", "instance_id", "gold_single_file")


@scorer(metrics=[accuracy(), stderr()], name="sqlgrade")
def sqlgrade_scorer(benchmark: Optional[str] = None, db_root: Optional[str] = None,
                    extract: Union[bool, Mapping[str, bool]] = True, timeout: Optional[float] = None,
                    **shaping: float) -> Scorer:
    """benchmark: the default of samples without metadata["benchmark"]; db_root: where bare db_ids
    are; extract: sqlgrade's extraction options; shaping: sqlgrade's shaping keywords for
    Score.metadata["score"] (the value itself stays the official verdict)."""

    async def score(state: TaskState, target: Target) -> Score:
        md = dict(state.metadata or {})
        bench = normalize_benchmark(md.get("benchmark") or benchmark or sqlgrade.config().benchmark)
        db: Any = md.get("db_path") or md.get("db")
        if not db and md.get("db_id"):
            db = resolve_db(str(md["db_id"]), bench, db_root).path if db_root else str(md["db_id"])
        golds = [t for t in target.target if t] or None  # no target: gold_result or instance_id
        kw = {k: md[k] for k in _PASSED if md.get(k) is not None}
        v = await sqlgrade.averdict(state.output.completion, db=db, gold_sql=golds, benchmark=bench, extract=extract,
                                    timeout=timeout, **kw, **shaping)
        return Score(value=CORRECT if v.reward == 1.0 else INCORRECT, answer=v.extracted_sql,
                     explanation=v.failure_detail or None,
                     metadata={"failure_reason": v.failure_reason, "outcome": v.outcome, "score": v.score,
                               "benchmark": v.benchmark})

    return score
