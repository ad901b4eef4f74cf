"""The rule of a Python test that needs the real benchmark data (SQLGRADE_DATA): the pytest suites
(python/tests/conftest.py: the `needs_data` marker and require_data) and the ctest scripts of
tests/tools/ go through here. The C++ tests follow the same rule (tests/test_support.hpp,
SQLGRADE_REQUIRE_DATA); tests/tools/data_rule_check.py checks both.

- Where: SQLGRADE_DATA, else SQLGRADE_DEFAULT_DATA (ctest passes the build's default), else
  ../shared/data beside the checkout.
- Absent: a test whose data is absent skips with a message naming the missing path — unless the data
  is required, and then it fails. Required when SQLGRADE_DATA is set (scripts/test.sh and .ci/run set
  it when the data is there: a silent skip would hide a test that no longer finds its files), unless
  SQLGRADE_REQUIRE_DATA=0 (a partial copy of the data); SQLGRADE_REQUIRE_DATA=1 requires it even with
  SQLGRADE_DATA unset.

Standard library only (pytest is imported by the functions that use it).
"""

from __future__ import annotations

import os
import sys
from typing import Optional

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def root() -> str:
    """The data folder the tests read (it may not exist)."""
    return (os.environ.get("SQLGRADE_DATA") or os.environ.get("SQLGRADE_DEFAULT_DATA")
            or os.path.join(REPO, "..", "shared", "data"))


def required() -> bool:
    """True when a missing data file is a failure, not a skip."""
    req = os.environ.get("SQLGRADE_REQUIRE_DATA")
    if req:
        return req != "0"
    return bool(os.environ.get("SQLGRADE_DATA"))


def missing(*subs: str) -> Optional[str]:
    """The first of subs (paths relative to the data root) that does not exist, else None."""
    base = root()
    for sub in subs:
        if not os.path.exists(os.path.join(base, sub)):
            return os.path.join(base, sub)
    return None


def _failure(path: str) -> str:
    return (f"benchmark data missing: {path} (SQLGRADE_DATA is set, so a data test may not skip; "
            "SQLGRADE_REQUIRE_DATA=0 allows it)")


def _skip(path: str) -> str:
    return f"benchmark data not found: {path} (set SQLGRADE_DATA)"


def require(*subs: str) -> str:
    """In a pytest test or fixture: the data root when every path exists; else pytest.skip, or
    pytest.fail when the data is required."""
    import pytest

    path = missing(*subs)
    if path is not None:
        if required():
            pytest.fail(_failure(path), pytrace=False)
        pytest.skip(_skip(path))
    return root()


def script_part(what: str, *subs: str) -> bool:
    """In a ctest script with a real-data part: True when every path exists; else prints that `what` is
    skipped and returns False, or exits 1 when the data is required."""
    path = missing(*subs)
    if path is None:
        return True
    if required():
        print(f"FAIL {what}: {_failure(path)}", file=sys.stderr)
        raise SystemExit(1)
    print(f"skip {what}: {_skip(path)}")
    return False


def script_whole(*subs: str) -> str:
    """In a ctest script that is all real data: the data root; else exit 77 (ctest: skipped), or exit 1
    when the data is required."""
    path = missing(*subs)
    if path is not None:
        if required():
            print(f"FAIL: {_failure(path)}", file=sys.stderr)
            raise SystemExit(1)
        print(f"SKIP: {_skip(path)}")
        raise SystemExit(77)
    return root()

