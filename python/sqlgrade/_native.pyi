# The interface of the pybind11 module `sqlgrade._native` (protocol version 1), built from
# python/native/module.cpp over the public C++ API (include/sqlgrade/verdict.hpp: Verifier;
# include/sqlgrade/execute.hpp: execute). `sqlgrade/_native_backend.py` is the only caller. Requests and replies are the dicts of
# the backend protocol (sqlgrade/_backend.py and docs/python.md, "Backend protocol"); every function
# releases the GIL while it executes SQL and compares results, and is safe to call from many threads.
from typing import Any, Dict, List

PROTOCOL_VERSION: int  # == 1

class InputError(ValueError):
    """A bad request; str(e) is the one-line message (the text `sqlgrade serve` puts in its 400)."""

def version() -> str:
    """The sqlgrade version the module was built from (SQLGRADE_VERSION)."""

def verdict(request: Dict[str, Any]) -> Dict[str, Any]:
    """One verdict. `request["db"]` is an absolute path (spider: a .sqlite file or its folder; all
    *.sqlite files of the folder are the test suite). Gold results are cached inside the process
    (one cache shared by every thread), keyed like the server's (benchmark, db, gold SQL).
    Returns the reply dict, with `pred_executed` (bool) and `timings` (extract_s, gold_s, pred_s,
    compare_s, total_s) always set. Raises InputError for a bad request."""

def verdicts(requests: List[Dict[str, Any]], threads: int) -> List[Dict[str, Any]]:
    """Verdicts in request order on `threads` worker threads (0: all cores), GIL released for the
    whole batch. All requests are validated first: a bad one raises InputError("request <i>: ...")
    before any work starts."""

def execute(db: str, sql: str, timeout: float, max_rows: int, max_bytes: int) -> Dict[str, Any]:
    """Run one statement read-only (authorizer, query_only, one statement, deadline `timeout`
    seconds, at most `max_rows` rows and `max_bytes` bytes of result). Returns {"status": "ok" |
    "error" | "timeout" | "too_large", "columns": [str], "rows": [[cell]], "truncated": bool,
    "error": str, "timings": {"total_s": float}}; cells are None, int, float, str or bytes. A failing
    query is a reply with status "error", never an exception; a missing database raises InputError."""
