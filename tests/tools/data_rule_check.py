"""The data rule (tests/tools/data_rule.py, tests/test_support.hpp SQLGRADE_REQUIRE_DATA): a test that
needs the benchmark data fails, not skips, when SQLGRADE_DATA is set and its files are not there. Run by
ctest `tests.data_rule` (label slow):

    data_rule_check.py <gtest binary> <gtest filter> <python>

1. C++: the gtest binary runs the one data test the filter names with SQLGRADE_DATA pointing at an empty
   folder: it fails, naming the missing file; with SQLGRADE_REQUIRE_DATA=0 it skips. (SQLGRADE_DATA
   unset keeps the skip; not run here: the binary has the build's default data folder compiled in.)
2. Python (pytest, python/tests/conftest.py's `needs_data` marker): a data test of test_real_data.py,
   the same two ways, under <python> (the project venv's interpreter).
3. A ctest script (uda_cells_real_check.py, all real data): exit 1 when the data is required, 77
   (ctest: skipped) when not.
4. No test skips on missing data by hand: every C++ test reads the data through SQLGRADE_REQUIRE_DATA,
   every Python one through data_rule (a source scan: a skip whose line speaks of the data, or a call of
   data_dir() in tests/unit).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from checks import check, verdict  # noqa: E402

MISSING = "benchmark data missing"


def env_with(data: str, require: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("SQLGRADE_REQUIRE_DATA", "SQLGRADE_DEFAULT_DATA")}
    env["SQLGRADE_DATA"] = data
    if require is not None:
        env["SQLGRADE_REQUIRE_DATA"] = require
    return env


def run(cmd, env) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, cwd=REPO)


def check_cpp(binary: str, gtest_filter: str, empty: str) -> None:
    cmd = [binary, f"--gtest_filter={gtest_filter}"]
    r = run(cmd, env_with(empty, None))
    out = r.stdout + r.stderr
    check(r.returncode != 0 and MISSING in out and "[  FAILED  ]" in out and "1 test" in out,
          f"C++ {gtest_filter}: SQLGRADE_DATA set to an empty folder fails (rc {r.returncode}) {out[-400:]!r}")
    r = run(cmd, env_with(empty, "0"))
    out = r.stdout + r.stderr
    check(r.returncode == 0 and "[  SKIPPED ]" in out and MISSING not in out,
          f"C++ {gtest_filter}: with SQLGRADE_REQUIRE_DATA=0 it skips (rc {r.returncode})")


def check_python(python: str, empty: str) -> None:
    test = os.path.join(REPO, "python", "tests", "test_real_data.py")
    cmd = [python, os.path.join(REPO, "python", "tests", "run_pytest.py"), "-q", test, "-k", "spider"]
    r = run(cmd, env_with(empty, None))
    out = r.stdout + r.stderr
    check(r.returncode == 1 and MISSING in out and re.search(r"\b\d+ (failed|errors?)\b", out) and " passed" not in out,
          f"pytest test_real_data.py: SQLGRADE_DATA set to an empty folder fails (rc {r.returncode}) {out[-400:]!r}")
    r = run(cmd, env_with(empty, "0"))
    out = r.stdout + r.stderr
    check(r.returncode == 0 and re.search(r"\b\d+ skipped\b", out) and " failed" not in out and " error" not in out,
          f"pytest test_real_data.py: with SQLGRADE_REQUIRE_DATA=0 it skips (rc {r.returncode}) {out[-300:]!r}")


def check_script(empty: str) -> None:
    cmd = [sys.executable, os.path.join(HERE, "uda_cells_real_check.py")]
    r = run(cmd, env_with(empty, None))
    check(r.returncode == 1 and MISSING in r.stderr, f"ctest script: required data missing exits 1 (rc {r.returncode})")
    r = run(cmd, env_with(empty, "0"))
    check(r.returncode == 77, f"ctest script: with SQLGRADE_REQUIRE_DATA=0 it skips, exit 77 (rc {r.returncode})")


SKIP = re.compile(r"GTEST_SKIP|pytest\.skip\(|skipif\(|SystemExit\(77\)|return 77")
DATA_WORD = re.compile(r"data|SQLGRADE_DATA", re.IGNORECASE)


def check_sources() -> None:
    offenders = []
    roots = [os.path.join(REPO, "tests", "unit"), os.path.join(REPO, "tests", "tools"), os.path.join(REPO, "python", "tests")]
    for root in roots:
        for dirpath, _, files in os.walk(root):
            for name in files:
                if not name.endswith((".cpp", ".py")) or name in ("data_rule.py", "data_rule_check.py"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    for n, line in enumerate(f, 1):
                        by_hand = SKIP.search(line) and DATA_WORD.search(line)
                        raw_root = name.endswith(".cpp") and "data_dir()" in line
                        if by_hand or raw_root:
                            offenders.append(f"{os.path.relpath(path, REPO)}:{n}: {line.strip()[:100]}")
    check(not offenders, "no test skips on missing data by hand (SQLGRADE_REQUIRE_DATA / data_rule)"
          + (": " + "; ".join(offenders[:5]) if offenders else ""))


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    binary, gtest_filter, python = sys.argv[1:]
    with tempfile.TemporaryDirectory() as empty:
        check_cpp(binary, gtest_filter, empty)
        check_python(python, empty)
        check_script(empty)
    check_sources()
    return verdict("data rule: a data test fails when SQLGRADE_DATA is set and its data is missing")


if __name__ == "__main__":
    sys.exit(main())
