"""The `sqlgrade` scorer for inspect_ai: the model's completion graded by the benchmark's official
execution rule (sqlgrade.averdict: Spider test-suite, BIRD EX, Spider 2.0-Lite), in-process or on a
`sqlgrade serve` (SQLGRADE_SERVER), without blocking inspect's event loop.

A sample names its database and gold:
  target                   the gold SQL; several targets are alternatives (any match counts)
  metadata["db_path"]      the database file (spider: the file or its test-suite folder), or
  metadata["db_id"]        resolved under `db_root` (or by the server)
  metadata["benchmark"]    spider2 | spider | bird (default: the scorer's `benchmark`, else spider2)
  metadata[...]            every other label key of the data contract (docs/python.md: alternative_answers,
                           ignore_order, condition_cols, gold_result, instance_id, verify, keep_distinct,
                           shaping, ...), as in sqlgrade.verdict; a sample's extract/timeout win over the scorer's

Score.value is CORRECT/INCORRECT (the reward: the official verdict, unless `verify` refuted the
match; accuracy() and stderr() are its metrics), Score.answer the SQL that was graded,
Score.explanation the failure detail, Score.metadata the stage, failure reason, outcome, shaped score
and the `verify` outcome. Reasoning models: only the text after the last
</think> is graded (extract={"after_think": False} reads the reasoning too).
"""

from __future__ import annotations

from typing import Any, Mapping, Optional, Union

from inspect_ai.scorer import CORRECT, INCORRECT, Score, Scorer, Target, accuracy, scorer, stderr
from inspect_ai.solver import TaskState

import sqlgrade

from .._dbref import resolve_db
from .._rows import row_kwargs, row_shaping
from ..config import normalize_benchmark
from ..shaping import SHAPING_KWARGS


@scorer(metrics=[accuracy(), stderr()], name="sqlgrade")
def sqlgrade_scorer(benchmark: Optional[str] = None, db_root: Optional[str] = None,
                    extract: Union[bool, Mapping[str, bool]] = True, timeout: Optional[float] = None,
                    **shaping: float) -> Scorer:
    """benchmark: the default of samples without metadata["benchmark"]; db_root: where bare db_ids
    are; extract: sqlgrade's extraction options; shaping: sqlgrade's shaping keywords for
    Score.metadata["score"] (the value itself stays the official verdict)."""
    unknown = set(shaping) - set(SHAPING_KWARGS)
    if unknown:
        raise TypeError(f"sqlgrade_scorer() got unexpected keyword argument(s): {', '.join(sorted(unknown))}")

    async def score(state: TaskState, target: Target) -> Score:
        md = dict(state.metadata or {})
        bench = normalize_benchmark(md.get("benchmark") or benchmark or sqlgrade.config().benchmark)
        db: Any = md.get("db_path") or md.get("db")
        if not db and md.get("db_id"):
            db = resolve_db(str(md["db_id"]), bench, db_root).path if db_root else str(md["db_id"])
        golds = [t for t in target.target if t] or None  # no target: gold_result or instance_id
        kw = row_kwargs({**md, "db_path": db}, gold=golds, benchmark=bench, what="metadata") or {"db": db, "benchmark": bench}
        kw.setdefault("extract", extract)
        if timeout is not None:
            kw.setdefault("timeout", timeout)
        shp = row_shaping(kw, sqlgrade.config().shaping.with_kwargs(dict(shaping)))
        v = await sqlgrade.averdict(state.output.completion, shaping=shp, **kw)
        return Score(value=CORRECT if v.reward == 1.0 else INCORRECT, answer=v.extracted_sql,
                     explanation=v.failure_detail or None,
                     metadata={"stage": v.stage, "failure_reason": v.failure_reason, "outcome": v.outcome,
                               "score": v.score, "benchmark": v.benchmark, "verify": v.verify})

    return score
