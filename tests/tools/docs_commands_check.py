#!/usr/bin/env python3
"""Every `sqlgrade` command in README.md and docs/*.md, checked against the CLI that was built.

1. Every command line in a fenced block (``sqlgrade …``, ``build/sqlgrade …``, ``$ sqlgrade …``, with its
   ``\\`` continuation lines) names a subcommand the CLI has and only flags that subcommand (or the top
   level) accepts — from the flag table the CLI itself generates (python/sqlgrade/_cli_flags.json). A
   synopsis's ``[--flag VALUE]`` and ``...`` are read as written: the flags in brackets must exist too.
2. Run verbatim: a ``$ sqlgrade …`` line followed by lines that start with ``sqlgrade:`` is an example of
   an error; it is run and must print exactly those lines on stderr and exit 2.
3. Run verbatim: a command whose every input path (a flag whose role in the table is reads_file or
   reads_folder) exists in a scratch layout — the working folder holds ``build`` (the build folder) and
   ``examples``, ``../shared/data`` is SQLGRADE_DATA — and that has no placeholder (brackets, ``...``, an
   environment variable) is run there, as written, and must exit 0. Outputs land in the scratch folder.
   `serve` is not run here (it runs until stopped; the server tests start and stop it).

Usage: docs_commands_check.py BUILD_DIR   (SQLGRADE_SOURCE_DIR: the checkout; SQLGRADE_DATA: the data,
optional — without it part 3 runs only the commands that read no data).
Standard library only.
"""
import glob
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.environ.get("SQLGRADE_SOURCE_DIR") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = re.compile(r"^\s*(\$ )?((?:\./)?build/)?sqlgrade(\s|$)")
FLAG = re.compile(r"^(--?[A-Za-z][\w-]*)(=.*)?$")
LONG_RUNNING = {"serve"}  # a server runs until stopped: tests/server and python.serve start and stop it


def doc_files():
    return [os.path.join(SRC, "README.md")] + sorted(glob.glob(os.path.join(SRC, "docs", "*.md")))


def commands(path):
    """(line number, command text, dollar-prompted, expected error lines) for each command in a fenced block."""
    out, lines = [], open(path, encoding="utf-8").read().split("\n")
    fenced, i = False, 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            fenced, i = not fenced, i + 1
            continue
        if not fenced or not COMMAND.match(line):
            i += 1
            continue
        start, text = i + 1, line
        while text.rstrip().endswith("\\") and i + 1 < len(lines):
            i += 1
            text = text.rstrip()[:-1] + " " + lines[i].strip()
        expected = []
        while line.lstrip().startswith("$ ") and i + 1 < len(lines) and lines[i + 1].startswith("sqlgrade:"):
            i += 1
            expected.append(lines[i])
        out.append((start, text, line.lstrip().startswith("$ "), expected))
        i += 1
    return out


def strip_comment(text):
    """The command without a trailing `# comment` (a # inside quotes stays)."""
    lex = shlex.shlex(text, posix=True, punctuation_chars=False)
    lex.whitespace_split, lex.commenters = True, "#"
    return list(lex)


def words(text):
    toks = strip_comment(text)
    while toks and not re.search(r"(^|/)sqlgrade$", toks[0]):
        toks.pop(0)  # the "$" prompt
    return toks[1:]


def subcommand(toks, table):
    """The longest run of leading words that names a subcommand of the table ('' = the top level)."""
    name, n = "", 0
    for k, t in enumerate(toks):
        cand = (name + " " + t).strip()
        if cand in table:
            name, n = cand, k + 1
        else:
            break
    return name, toks[n:]


def flag_names(table, name):
    names = set()
    for key in ("", name):
        for f in table.get(key, []):
            names.update(f["names"])
    return names


def check_flags(where, toks, table, problems):
    name, rest = subcommand(toks, table)
    if not name and rest and not rest[0].startswith("-"):
        problems.append(f"{where}: sqlgrade has no subcommand {rest[0]!r}")
        return name
    known = flag_names(table, name)
    for t in rest:
        for part in re.split(r"[\[\]|]", t):
            m = FLAG.match(part)
            if m and m.group(1) not in known and m.group(1) != "--":
                problems.append(f"{where}: `sqlgrade {name}` has no flag {m.group(1)}")
    return name


def input_paths(name, toks, table):
    """Values of the flags whose role is to read a file or a folder; None when a value is missing."""
    roles = {}
    for f in table.get(name, []) + table.get("", []):
        for n in f["names"]:
            roles[n] = f
    paths, k = [], 0
    while k < len(toks):
        t = toks[k]
        m = FLAG.match(t)
        f = roles.get(m.group(1)) if m else None
        if f and f.get("value"):
            v = m.group(2)[1:] if m.group(2) else (toks[k + 1] if k + 1 < len(toks) else None)
            if v is None:
                return None
            if f.get("path") in ("reads_file", "reads_folder"):
                paths.append(v)
            k += 1 if m.group(2) else 2
            continue
        k += 1
    return paths


def runnable(text, toks):
    return not re.search(r"[\[\]$`]|\.\.\.|<|>|\||&", text.split("#")[0]) and toks


def scratch(build, data):
    root = tempfile.mkdtemp(prefix="sqlgrade-docs-")
    work = os.path.join(root, "work")
    os.makedirs(work)
    os.symlink(os.path.abspath(build), os.path.join(work, "build"))
    os.symlink(os.path.join(SRC, "examples"), os.path.join(work, "examples"))
    if data:
        os.makedirs(os.path.join(root, "shared"))
        os.symlink(os.path.abspath(data), os.path.join(root, "shared", "data"))
    return root, work


def run(cli, toks, cwd, timeout=300):
    return subprocess.run([cli] + toks, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = argv[1]
    cli = os.path.join(os.path.abspath(build), "sqlgrade")
    table = json.load(open(os.path.join(SRC, "python", "sqlgrade", "_cli_flags.json"), encoding="utf-8"))
    data = os.environ.get("SQLGRADE_DATA") or ""
    root, work = scratch(build, data if os.path.isdir(data) else "")
    problems, ran, errors_ran, checked = [], [], 0, 0
    try:
        for path in doc_files():
            rel = os.path.relpath(path, SRC)
            for line, text, dollar, expected in commands(path):
                where = f"{rel}:{line}"
                toks = words(text)
                checked += 1
                if expected:  # a documented mistake: its flags are wrong on purpose
                    r = run(cli, toks, work)
                    errors_ran += 1
                    if r.returncode != 2 or r.stderr.rstrip("\n").split("\n") != expected:
                        problems.append(f"{where}: expected exit 2 and {expected!r}, got {r.returncode} {r.stderr!r}")
                    continue
                name = check_flags(where, toks, table, problems)
                if name in LONG_RUNNING:
                    continue
                paths = input_paths(name, toks, table) if runnable(text, toks) else None
                if not paths:
                    continue
                missing = [p for p in paths if not os.path.exists(os.path.join(work, p))]
                if missing and data and all(p.startswith("../shared/data/") for p in paths):
                    # the data is there (SQLGRADE_DATA set) and the command reads only it: a path it names
                    # that is not there is the document's error, never a reason to skip (tests/tools/data_rule.py)
                    problems.append(f"{where}: names {missing[0]}, which is not in SQLGRADE_DATA")
                if missing:
                    continue
                t0 = time.monotonic()
                r = run(cli, toks, work)
                ran.append(f"{where} ({time.monotonic() - t0:.1f} s)")
                if r.returncode != 0:
                    problems.append(f"{where}: exit {r.returncode}: {r.stderr.strip()[:300]}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"docs commands: {checked} checked against the flag table, {errors_ran} error examples run, "
          f"{len(ran)} run verbatim:")
    for r in ran:
        print("  " + r)
    for p in problems:
        print("FAIL " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
