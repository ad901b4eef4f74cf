"""sqlgrade for lm-evaluation-harness (lm-eval): a `process_results` function and task files for
Spider, BIRD and Spider 2.0-Lite (sqlgrade/lm_eval/tasks/, `TASKS_DIR`):

    lm_eval --model hf --model_args pretrained=Qwen/Qwen2.5-Coder-7B-Instruct \\
            --include_path "$(python -c 'import sqlgrade.lm_eval as m; print(m.TASKS_DIR)')" \\
            --tasks sqlgrade_spider,sqlgrade_bird,sqlgrade_spider2_lite \\
            --metadata '{"data_dir": "/data"}'

`data_dir` holds spider/, bird/ and spider2lite/ as the releases lay them out (or give `spider_dir`,
`bird_dir`, `spider2_dir`; default: $SQLGRADE_DATA); `limit` keeps the first N rows. The tasks are
`generate_until` tasks; each generation is graded by the benchmark's official execution rule
(sqlgrade.verdict) into the metric `exec_acc` (mean over documents).
"""

from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

import sqlgrade

from .._datasets import rows
from ..errors import InputError

__all__ = ["TASKS_DIR", "process_results", "spider_dataset", "bird_dataset", "spider2_dataset"]

TASKS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tasks")
_FOLDERS = {"spider": "spider", "bird": "bird", "spider2": "spider2lite"}


def _dataset(benchmark: str, data_dir: Optional[str], folder: Optional[str], limit: Optional[int]) -> Any:
    import datasets  # lm-eval's own dependency

    root = folder or os.path.join(data_dir or os.environ.get("SQLGRADE_DATA") or "", _FOLDERS[benchmark])
    if not os.path.isdir(root):
        raise InputError(f"{root or '(none)'}: no {benchmark} data folder (lm_eval --metadata "
                         "'{\"data_dir\": \"/path\"}' or SQLGRADE_DATA)")
    docs = rows(benchmark, root, None if limit is None else int(limit))
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(
        [{k: ("" if r.get(k) is None else str(r[k])) for k in
          ("id", "input", "gold_sql", "db_path", "db_id", "benchmark", "instance_id")} for r in docs])})


def spider_dataset(data_dir: Optional[str] = None, spider_dir: Optional[str] = None, limit: Optional[int] = None,
                   **_: Any) -> Any:
    """custom_dataset of sqlgrade_spider: Spider dev."""
    return _dataset("spider", data_dir, spider_dir, limit)


def bird_dataset(data_dir: Optional[str] = None, bird_dir: Optional[str] = None, limit: Optional[int] = None,
                 **_: Any) -> Any:
    """custom_dataset of sqlgrade_bird: BIRD Mini-Dev (SQLite)."""
    return _dataset("bird", data_dir, bird_dir, limit)


def spider2_dataset(data_dir: Optional[str] = None, spider2_dir: Optional[str] = None, limit: Optional[int] = None,
                    **_: Any) -> Any:
    """custom_dataset of sqlgrade_spider2_lite: the local tasks with public gold SQL."""
    return _dataset("spider2", data_dir, spider2_dir, limit)


def process_results(doc: Dict[str, Any], results: List[str]) -> Dict[str, float]:
    """lm-eval's hook (ConfigurableTask.process_results(doc, results) -> {metric: value}): the first
    generation graded against doc["gold_sql"] on doc["db_path"] by doc["benchmark"]'s official rule.
    A generation without SQL, or one that fails, is 0.0, never an exception; a document without a gold
    or a database is bad input (sqlgrade.InputError)."""
    v = sqlgrade.verdict(results[0] if results else "", db=doc["db_path"], gold_sql=doc["gold_sql"],
                         benchmark=doc.get("benchmark") or None)
    return {"exec_acc": v.reward}
