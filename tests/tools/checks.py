"""Shared by the runs module's Python tests: record checks, print them, exit with the verdict."""
FAILURES = []


def require_jsonschema():
    """Debian's python3-jsonschema, or exit 77 (ctest: skipped) with the reason."""
    try:
        import jsonschema
    except ImportError:
        print("SKIP: python3-jsonschema is not installed (Debian package python3-jsonschema)")
        raise SystemExit(77)
    return jsonschema


def check(cond, what, quiet=False):
    if not quiet or not cond:
        print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def verdict(success_message):
    """Exit code for main(): 1 with the number of failed checks, else 0 with success_message."""
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print(success_message)
    return 0


# ---- shared by the benchmark run-record tests (spider2_runs_check.py, uda_runs_check.py) ----
import hashlib as _hashlib  # noqa: E402
import json as _json  # noqa: E402
import os as _os  # noqa: E402
import subprocess as _subprocess  # noqa: E402

CLI = _os.environ.get("SQLGRADE_CLI", "sqlgrade")
SRC = _os.environ.get("SQLGRADE_SOURCE_DIR", _os.path.join(_os.path.dirname(__file__), "..", ".."))


def shard_of(i, n):
    """docs/comparing-runs.md §5, independently of sqlgrade."""
    return int.from_bytes(_hashlib.sha256(i.encode()).digest()[:8], "big") % n


def run_cli(*args):
    return _subprocess.run([CLI, *args], capture_output=True, text=True)


def schema_checker(jsonschema):
    """valid(doc, what): checks a record against docs/run-record.schema.json."""
    with open(_os.path.join(SRC, "docs", "run-record.schema.json"), encoding="utf-8") as f:
        v = jsonschema.Draft202012Validator(_json.load(f))

    def valid(doc, what):
        errs = list(v.iter_errors(doc))
        check(not errs, f"{what} validates against the schema" + (f": {errs[0].message}" if errs else ""))
    return valid


def report_data(record, html):
    """`sqlgrade report RECORD -o HTML`: (the process, the JSON the page is drawn from, or None)."""
    r = run_cli("report", record, "-o", html)
    if r.returncode != 0:
        return r, None
    page = open(html, encoding="utf-8").read()
    start = page.index('<script id="sqlgrade-data"')
    return r, _json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])
