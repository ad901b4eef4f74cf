#!/usr/bin/env python3
"""The docs-commands checker fails on what it is there to catch (tests/tools/docs_commands_check.py):
a flag the subcommand lacks, a subcommand the CLI lacks, an error example whose message is not the CLI's,
and a runnable command that fails; and passes the same document once they are right.
Usage: docs_commands_check_test.py BUILD_DIR (SQLGRADE_SOURCE_DIR: the checkout)."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("SQLGRADE_SOURCE_DIR") or os.path.dirname(os.path.dirname(HERE))

GOOD = """# t
```sh
build/sqlgrade spider parse --table build/t.json   # a comment
sqlgrade diff A.json B.json [--agree exec,exact] [--json FILE|-]
```
```
$ sqlgrade spider --tiemout 5
sqlgrade: spider: unknown flag --tiemout (did you mean --timeout?)
```
"""
BAD = {
    "flag": "```\nsqlgrade diff A.json B.json --agreee exec\n```\n",
    "bracketed flag": "```\nsqlgrade report a.json [--titel T]\n```\n",
    "subcommand": "```\nsqlgrade evaluate --gold g.sql\n```\n",
    "error text": "```\n$ sqlgrade spider --tiemout 5\nsqlgrade: spider: unknown flag --tiemout\n```\n",
    "runnable fails": "```sh\nbuild/sqlgrade spider parse --table build/bad.json\n```\n",
}


def check(build, readme):
    src = tempfile.mkdtemp(prefix="docs-check-")
    try:
        os.makedirs(os.path.join(src, "python", "sqlgrade"))
        os.makedirs(os.path.join(src, "examples"))
        shutil.copy(os.path.join(SRC, "python", "sqlgrade", "_cli_flags.json"), os.path.join(src, "python", "sqlgrade"))
        with open(os.path.join(src, "README.md"), "w", encoding="utf-8") as f:
            f.write(readme)
        env = dict(os.environ, SQLGRADE_SOURCE_DIR=src, SQLGRADE_DATA="")
        return subprocess.run([sys.executable, os.path.join(HERE, "docs_commands_check.py"), build], env=env,
                              capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(src, ignore_errors=True)


def main():
    build = os.path.abspath(sys.argv[1])
    scratch = tempfile.mkdtemp(prefix="docs-build-")
    try:
        # a build folder of our own: the real CLI, plus the two table files the documents read
        os.symlink(os.path.join(build, "sqlgrade"), os.path.join(scratch, "sqlgrade"))
        with open(os.path.join(scratch, "t.json"), "w") as f:
            f.write('[{"db_id": "d", "table_names": ["t"], "table_names_original": ["t"], "column_names": '
                    '[[-1, "*"], [0, "a"]], "column_names_original": [[-1, "*"], [0, "a"]], '
                    '"column_types": ["text", "number"], "primary_keys": [], "foreign_keys": []}]')
        with open(os.path.join(scratch, "bad.json"), "w") as f:
            f.write("{not json")
        r = check(scratch, GOOD)
        assert r.returncode == 0, r.stderr
        assert "3 checked" in r.stdout and "1 error examples run" in r.stdout and "1 run verbatim" in r.stdout, r.stdout
        for what, block in BAD.items():
            r = check(scratch, GOOD + block)
            assert r.returncode == 1 and "FAIL README.md:" in r.stderr, (what, r.stdout, r.stderr)
            print(f"caught: {what}: {r.stderr.strip().splitlines()[0]}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("docs_commands_check catches every case")


if __name__ == "__main__":
    main()
