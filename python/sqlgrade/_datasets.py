"""The official dev files of Spider, BIRD and Spider 2.0-Lite as plain rows, for the evaluation-host
integrations (inspect_ai tasks, lm-eval task files): question, prompt, gold SQL and database path.

Each reader takes the benchmark's data folder laid out as its release ships it:
  spider       <dir>/dev.json, <dir>/database/<db_id>/<db_id>.sqlite
  bird         <dir>/minidev/mini_dev_sqlite.json (or <dir>/dev.json), <dir>/dev_databases/<db>/<db>.sqlite
  spider2      <dir>/spider2-lite.local.jsonl, <dir>/databases/<db>.sqlite, gold SQL <dir>/gold/sql/<id>.sql
               (the tasks without public gold SQL are left out: in-process grading needs a gold)
The prompt holds the question, BIRD's evidence and the database's CREATE statements, and asks for one
```sql block (what sqlgrade extracts first). Bad input raises sqlgrade.InputError naming the file.
"""

from __future__ import annotations

import json
import os
import sqlite3
from functools import lru_cache
from typing import Any, Dict, Iterator, List, Optional

from ._tables import database_path
from .errors import InputError

__all__ = ["rows", "schema", "prompt"]

INSTRUCTION = ("Answer with one SQLite query for the question, in a ```sql code block. If you reason first, "
               "the query after the reasoning is graded.")


@lru_cache(maxsize=256)
def schema(db_path: str) -> str:
    """The CREATE statements of a database (read-only)."""
    con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        return ";\n".join(r[0] for r in con.execute(
            "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND type IN ('table', 'view') ORDER BY rowid")) + ";"
    finally:
        con.close()


def prompt(question: str, db_path: str, evidence: Optional[str] = None) -> str:
    parts = [f"Database schema:\n{schema(db_path)}", f"Question: {question}"]
    if evidence:
        parts.append(f"Evidence: {evidence}")
    return "\n\n".join(parts + [INSTRUCTION])


def _load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            if path.endswith(".jsonl"):
                return [json.loads(line) for line in f if line.strip()]
            return json.load(f)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    except ValueError as e:
        raise InputError(f"{path}: not valid JSON ({e})") from None


def _spider(d: str) -> Iterator[Dict[str, Any]]:
    for i, r in enumerate(_load(os.path.join(d, "dev.json"))):
        db = database_path("spider", os.path.join(d, "database"), r["db_id"])
        yield {"id": f"spider_dev_{i}", "question": r["question"], "gold_sql": r["query"], "db_path": db,
               "db_id": r["db_id"], "benchmark": "spider"}


def _bird(d: str) -> Iterator[Dict[str, Any]]:
    path = os.path.join(d, "minidev", "mini_dev_sqlite.json")
    if not os.path.exists(path):
        path = os.path.join(d, "dev.json")
    seen: Dict[Any, int] = {}
    for r in _load(path):
        qid = r.get("question_id")
        seen[qid] = seen.get(qid, 0) + 1  # Mini-Dev repeats ids 137/138: keep sample ids unique
        sid = f"bird_{qid}" if seen[qid] == 1 else f"bird_{qid}_{seen[qid]}"
        db = database_path("bird", os.path.join(d, "dev_databases"), r["db_id"])
        yield {"id": sid, "question": r["question"], "evidence": r.get("evidence") or "",
               "gold_sql": r.get("SQL") or r.get("query"), "db_path": db, "db_id": r["db_id"], "benchmark": "bird",
               "difficulty": r.get("difficulty")}


def _spider2(d: str) -> Iterator[Dict[str, Any]]:
    for r in _load(os.path.join(d, "spider2-lite.local.jsonl")):
        gold = os.path.join(d, "gold", "sql", r["instance_id"] + ".sql")
        if not os.path.exists(gold):
            continue
        with open(gold, encoding="utf-8") as f:
            sql = f.read()
        yield {"id": r["instance_id"], "question": r["question"], "evidence": r.get("external_knowledge") or "",
               "gold_sql": sql, "db_path": database_path("spider2", os.path.join(d, "databases"), r["db"]), "db_id": r["db"],
               "benchmark": "spider2", "instance_id": r["instance_id"]}


_READERS = {"spider": _spider, "bird": _bird, "spider2": _spider2}


def rows(benchmark: str, data_dir: str, limit: Optional[int] = None) -> List[Dict[str, Any]]:
    """The benchmark's dev rows with their prompt (`input`): id, question, input, gold_sql, db_path,
    db_id, benchmark (+ evidence, difficulty, instance_id where the benchmark has them)."""
    if benchmark not in _READERS:
        raise InputError(f"unknown benchmark {benchmark!r} (expected spider, bird or spider2)")
    out = []
    for r in _READERS[benchmark](os.fspath(data_dir)):
        if limit is not None and len(out) >= limit:
            break
        if not os.path.isfile(r["db_path"]):
            raise InputError(f"{r['db_path']}: no such database file (row {r['id']})")
        r["input"] = prompt(r["question"], r["db_path"], r.get("evidence"))
        out.append(r)
    return out
