"""The portable wheels (issue 34 item 1; scripts/wheels.sh, docs/python.md "Portable wheels"), one
interpreter per run: SQLGRADE_WHEEL_PYTHON=3.10|3.11|3.12|3.13 (ctest wheels.py3.X, label `wheels`, after
wheels.build built the four into SQLGRADE_WHEELS_DIR).

The wheel of that CPython is installed into a fresh venv of pyenv's interpreter, then everything runs
in a sandbox (a private mount namespace, scripts/sandbox.sh): the system library folder replaced by a
copy holding only the libraries the manylinux policy of the wheel's tag allows and those the
interpreter itself links (its libpython and lib-dynload modules: libssl for `ssl`, libffi for
`ctypes`, ...), /usr/include emptied, and the checkout, the build trees and DuckDB's folder covered,
so no Debian -dev file, no build-tree library and no libfmt/libutf8proc/libcurl of the system is there
to be found. In it: the `sqlgrade` console command, `python -m sqlgrade`, a verdict, `execute`, a UDA
run (CLI and module, both on the wheel's libduckdb.so), the native module's import. `auditwheel show`
must name the tag, and every ELF file of the installed package must resolve (ld.so --list, inside the
sandbox and outside it) only to files in the venv or to libraries the policy allows.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from typing import Dict, List, Set

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "hosts"))
from _hosts import clean_env, report, run  # noqa: E402

VERSION = os.environ.get("SQLGRADE_WHEEL_PYTHON", "")
BUILD = os.environ.get("SQLGRADE_BUILD_DIR") or os.path.join(REPO, "build")
WHEELS = os.environ.get("SQLGRADE_WHEELS_DIR") or os.path.join(BUILD, "wheels", "dist")
TAG = "manylinux_2_34_x86_64"  # the lowest policy the binaries built on Debian 12 (glibc 2.36) satisfy
SYSLIB = "/usr/lib/x86_64-linux-gnu"
LDSO = "/lib64/ld-linux-x86-64.so.2"

pytestmark = pytest.mark.skipif(not VERSION, reason="SQLGRADE_WHEEL_PYTHON not set (ctest wheels.py3.X sets it)")


def _abi() -> str:
    return "cp" + VERSION.replace(".", "")


@pytest.fixture(scope="module")
def wheel() -> str:
    found = glob.glob(os.path.join(WHEELS, f"sqlgrade-*-{_abi()}-{_abi()}-*.whl"))
    assert len(found) == 1, f"no single {_abi()} wheel in {WHEELS} (scripts/wheels.sh): {os.listdir(WHEELS)}"
    return found[0]


def _policy() -> Dict:
    venv = os.path.join(BUILD, "wheels", f"py{VERSION}")
    path = glob.glob(os.path.join(venv, "lib", "python*", "site-packages", "auditwheel", "policy",
                                  "manylinux-policy.json"))
    assert path, f"no auditwheel in {venv} (scripts/wheels.sh makes it)"
    with open(path[0], encoding="utf-8") as f:
        return next(p for p in json.load(f) if f"{p['name']}_x86_64" == TAG)


def test_wheel_name_and_auditwheel_tag(wheel):
    assert os.path.basename(wheel).endswith(f"-{_abi()}-{_abi()}-{TAG}.whl"), wheel
    aw = os.path.join(BUILD, "wheels", f"py{VERSION}", "bin", "auditwheel")
    r, _ = run([aw, "show", wheel])
    text = " ".join(r.stdout.split())
    assert f'is consistent with the following platform tag: "{TAG}"' in text, r.stdout
    report(f"portable wheel {_abi()}", mb=f"{os.path.getsize(wheel) / 2**20:.1f}", tag=TAG)


def _needed_closure(files: List[str]) -> Set[str]:
    """Paths of the system libraries `files` load (ld.so --list, outside any sandbox)."""
    libs: Set[str] = set()
    for f in files:
        out = subprocess.run([LDSO, "--list", f], capture_output=True, text=True).stdout
        libs.update(m.group(1) for m in re.finditer(r"=> (/\S+)", out))
    return libs


def _interpreter() -> str:
    r, _ = run(["bash", "-c", f". {REPO}/scripts/find_python.sh && find_python {VERSION}"])
    return r.stdout.strip()


@pytest.fixture(scope="module")
def sandbox(tmp_path_factory) -> Dict[str, str]:
    """The folders of the sandbox: a library folder with the allowed libraries, and what to cover."""
    base = tmp_path_factory.mktemp("sandbox")
    lib = base / "lib"
    lib.mkdir()
    allowed = set(_policy()["lib_whitelist"])
    py = _interpreter()
    prefix = subprocess.run([py, "-c", "import sys; print(sys.base_prefix)"], capture_output=True, text=True).stdout.strip()
    own = [py] + glob.glob(os.path.join(prefix, "lib", f"python{VERSION}", "lib-dynload", "*.so"))
    keep = {os.path.join(SYSLIB, n) for n in allowed} | _needed_closure(own) | {os.path.realpath(LDSO)}
    copied = []
    for src in sorted(keep):
        if os.path.exists(src) and os.path.dirname(os.path.realpath(src)) == SYSLIB:
            shutil.copy2(os.path.realpath(src), lib / os.path.basename(src))
            copied.append(os.path.basename(src))
    # ld-linux's own name as the kernel asks for it (the PT_INTERP of every binary)
    shutil.copy2(os.path.realpath(LDSO), lib / "ld-linux-x86-64.so.2")
    covered = {REPO, os.path.realpath(REPO), BUILD, os.path.realpath(os.path.join(REPO, ".deps"))}
    data = os.environ.get("SQLGRADE_DATA")
    if data and os.path.isdir(data):
        covered.add(os.path.realpath(data))
    covered = sorted(c for c in covered if os.path.isdir(c))
    covered = [c for c in covered if not any(c.startswith(o + os.sep) for o in covered)]  # a cover hides its insides
    return {"lib": str(lib), "covered": covered, "interpreter": py, "prefix": prefix,
            "libs": copied, "allowed": sorted(allowed)}


def _in_sandbox(sb: Dict[str, str], cmd: List[str], **kw):
    script = os.path.join(REPO, "scripts", "sandbox.sh")
    args = ["--lib", sb["lib"]] + [a for c in sb["covered"] for a in ("--cover", c)]
    return run(["bash", script, *args, "--", *cmd], **kw)


@pytest.fixture(scope="module")
def venv(wheel, sandbox, tmp_path_factory) -> str:
    v = str(tmp_path_factory.mktemp("fresh") / "venv")
    run([sandbox["interpreter"], "-m", "venv", "--without-pip", v])
    _, t = run([sys.executable, "-m", "pip", "--python", os.path.join(v, "bin", "python"), "install", "--no-index",
                "--no-deps", "--quiet", wheel], env=clean_env())
    report(f"pip install of the {_abi()} wheel into a fresh venv", seconds=f"{t:.2f}")
    return v


def _package_elves(venv: str) -> List[str]:
    site = glob.glob(os.path.join(venv, "lib", "python*", "site-packages"))[0]
    out = []
    for root in glob.glob(os.path.join(site, "sqlgrade*")):
        for d, _, files in os.walk(root):
            for n in files:
                p = os.path.join(d, n)
                with open(p, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        out.append(p)
    return sorted(out)


def _check_resolution(listing: str, elf: str, venv: str, allowed: Set[str]) -> None:
    assert "not found" not in listing, f"{elf}: {listing}"
    for name, path in re.findall(r"^\s*(\S+) => (\S+)", listing, re.M):
        real = os.path.realpath(path)
        ok = real.startswith(os.path.realpath(venv) + os.sep) or (name in allowed and os.path.dirname(path) in (
            SYSLIB, "/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64"))
        assert ok, f"{os.path.basename(elf)} loads {name} from {path}: neither in the venv nor allowed by {TAG}"


def test_every_elf_resolves_to_the_venv_or_the_policy(venv, sandbox):
    elves = _package_elves(venv)
    names = {os.path.basename(e) for e in elves}
    assert "sqlgrade" in names and "libduckdb.so" in names and any(n.startswith("_native.") for n in names), names
    bundled = [e for e in elves if os.sep + "sqlgrade.libs" + os.sep in e]
    assert any("libcurl" in b for b in bundled) and any("libcrypto" in b for b in bundled), bundled
    assert not [e for e in elves if re.search(r"lib(fmt|utf8proc|sqlite3|stdc\+\+)", os.path.basename(e))], elves
    allowed = set(sandbox["allowed"]) | {"ld-linux-x86-64.so.2"}
    for e in elves:
        out = subprocess.run([LDSO, "--list", e], capture_output=True, text=True).stdout  # the whole system visible
        _check_resolution(out, e, venv, allowed)
        r, _ = _in_sandbox(sandbox, [LDSO, "--list", e])  # only the sandbox's libraries
        _check_resolution(r.stdout, e, venv, allowed)
    report(f"ELF files of the installed {_abi()} wheel", files=len(elves), bundled=len(bundled))


def test_nothing_of_the_build_is_visible_in_the_sandbox(sandbox):
    probe = "import os; print(sorted(os.listdir('/usr/include')), os.path.exists('/usr/lib/x86_64-linux-gnu/libfmt.so.9'), " \
            f"os.listdir({REPO!r}))"
    r, _ = _in_sandbox(sandbox, [sandbox["interpreter"], "-c", probe])
    assert r.stdout.strip() == "[] False []", r.stdout


def _ours_or_system(path: str, venv: str, sb: Dict[str, str]) -> bool:
    """A loaded file is the venv's, the interpreter's own (its libpython) or the sandbox's system folder."""
    return (path.startswith(venv + os.sep) or path.startswith(sb["prefix"] + os.sep)
            or os.path.dirname(path) in (SYSLIB, "/lib/x86_64-linux-gnu", "/lib64"))


def test_cli_verdict_execute_uda_in_the_sandbox(venv, sandbox, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    db = str(work / "shop.sqlite")
    con = sqlite3.connect(db)
    con.executescript("CREATE TABLE item(id INTEGER, name TEXT, qty INTEGER);"
                      "INSERT INTO item VALUES (1,'apple',3),(2,'pear',0),(3,'fig',2);")
    con.commit()
    con.close()
    dataset = str(work / "Shop")
    shutil.copytree(os.path.join(REPO, "tests", "fixtures", "uda", "Shop"), dataset)
    exe, py = os.path.join(venv, "bin", "sqlgrade"), os.path.join(venv, "bin", "python")
    r, _ = _in_sandbox(sandbox, ["env", "LD_DEBUG=libs", exe, "--version"], cwd=str(work), env=clean_env())
    assert r.stdout.startswith("sqlgrade ") and "DuckDB v1.4" in r.stdout, r.stdout
    loaded = re.findall(r"calling init: (\S+)", r.stderr)
    assert loaded and all(_ours_or_system(p, venv, sandbox) for p in loaded), loaded
    assert [p for p in loaded if p.endswith("libduckdb.so") and p.startswith(venv)], loaded
    r, _ = _in_sandbox(sandbox, [py, "-m", "sqlgrade", "extract-sql"], cwd=str(work), env=clean_env(),
                       input="<think>SELECT 1</think>\n```sql\nSELECT name FROM t\n```")
    assert r.stdout == "SELECT name FROM t\n"
    results = str(work / "results")
    _in_sandbox(sandbox, [exe, "uda", "gold", "--dataset-dir", dataset, "--out", results, "--as-result"],
                cwd=str(work), env=clean_env())
    code = f"""
import sqlgrade, sqlgrade._native, sqlgrade.uda
assert sqlgrade.config().server is None
v = sqlgrade.verdict("```sql\\nSELECT name FROM item WHERE qty > 1\\n```", db={db!r},
                     gold_sql="SELECT name FROM item WHERE qty >= 2")
assert (v.reward, v.failure_reason, v.executed) == (1.0, "none", True), v
r = sqlgrade.execute({db!r}, "SELECT name FROM item ORDER BY id", max_rows=2)
assert r.ok and r.rows == (("apple",), ("pear",)) and r.truncated, r
run = sqlgrade.uda.evaluate(dataset_dir={dataset!r}, results={results!r})
s = run.summary
assert s["statements"] >= 3 and s["scored"] == s["statements"] and s["f1"] == 1.0, s
maps = sorted({{l.split()[-1] for l in open("/proc/self/maps") if ".so" in l}})
print(sqlgrade.__file__, sqlgrade._native.__file__)
print("\\n".join(maps))
"""
    r, _ = _in_sandbox(sandbox, [py, "-c", code], cwd=str(work), env=clean_env())
    first, *maps = r.stdout.strip().splitlines()
    assert all(p.startswith(venv) for p in first.split()), first  # the installed copy, not a checkout
    mine = [m for m in maps if re.search(r"sqlgrade|duckdb|curl|crypto|ssl", os.path.basename(m))]
    assert [m for m in mine if m.endswith("libduckdb.so")] and all(_ours_or_system(m, venv, sandbox) for m in mine), mine
    assert not [m for m in maps if re.search(r"libfmt|libutf8proc|libcurl", m) and not m.startswith(venv)], maps
