"""inspect_ai tasks over the official dev files of Spider, BIRD and Spider 2.0-Lite (the local SQLite
tasks with public gold SQL), scored by the `sqlgrade` scorer. Registered as `sqlgrade/spider`,
`sqlgrade/bird`, `sqlgrade/spider2_lite`:

    inspect eval sqlgrade/bird -T data_dir=/data/bird --model <provider/model> --limit 100

data_dir is the benchmark's folder as its release lays it out (sqlgrade/_datasets.py); each sample's
input is the question, BIRD's evidence and the database's CREATE statements, its target the gold SQL,
its metadata the database path and the benchmark.
"""

from __future__ import annotations

from typing import Optional

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import generate

from .._datasets import rows
from .scorer import sqlgrade_scorer


def _task(benchmark: str, data_dir: str, limit: Optional[int]) -> Task:
    samples = [Sample(id=r["id"], input=r["input"], target=r["gold_sql"],
                      metadata={k: r[k] for k in ("db_path", "db_id", "benchmark", "instance_id", "difficulty")
                                if r.get(k) is not None})
               for r in rows(benchmark, data_dir, limit)]
    return Task(dataset=MemoryDataset(samples, name=f"{benchmark}_dev"), solver=generate(),
                scorer=sqlgrade_scorer(benchmark=benchmark))


@task
def spider(data_dir: str, limit: Optional[int] = None) -> Task:
    """Spider 1.0 dev, graded by test-suite execution (every *.sqlite of the database's folder)."""
    return _task("spider", data_dir, limit)


@task
def bird(data_dir: str, limit: Optional[int] = None) -> Task:
    """BIRD Mini-Dev (SQLite), graded by BIRD's EX (set equality of rows)."""
    return _task("bird", data_dir, limit)


@task
def spider2_lite(data_dir: str, limit: Optional[int] = None) -> Task:
    """Spider 2.0-Lite local tasks with public gold SQL, graded by the official evaluator's rule."""
    return _task("spider2", data_dir, limit)
