"""ctest docs.architecture_check: the map's checker (architecture_check.py) fails on what it must catch.

Each case copies the parts of the tree the checker reads into a temporary folder, breaks one thing and
expects exit 1 with the message naming it: a documented link with no include behind it, a Python name
the package does not export, a name a submodule does not define. The unbroken copy passes.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = os.environ.get("SQLGRADE_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "architecture_check.py")
PARTS = ["README.md", "docs", "src", "include", "python/sqlgrade", "python/native", "tests/unit", "tests/consumer",
         "tests/tools", "tests/fuzz", "tests/sanitize", "tests/server", "tests/verify", "tests/CMakeLists.txt"]


def copy_tree(dst):
    for p in PARTS:
        s, d = os.path.join(SRC, p), os.path.join(dst, p)
        if os.path.isdir(s):
            shutil.copytree(s, d, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        elif os.path.exists(s):
            os.makedirs(os.path.dirname(d), exist_ok=True)
            shutil.copy(s, d)


def run(root):
    p = subprocess.run([sys.executable, CHECK], env=dict(os.environ, SQLGRADE_SOURCE_DIR=root),
                       capture_output=True, text=True)
    return p.returncode, p.stdout


def edit(root, rel, old, new):
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    assert old in text, (rel, old)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))


def main():
    failures = []
    with tempfile.TemporaryDirectory() as base:
        cases = [
            ("clean", None, 0, "matches the CMake links"),
            ("link without include", [("src/sqlgrade/serve/CMakeLists.txt", "sqlgrade_verdict", "sqlgrade_verdict sqlgrade_uda"),
                                      ("docs/architecture.md", "serve           verdict", "serve           verdict uda")],
             1, "serve links uda, but no file of src/sqlgrade/serve/ includes"),
            ("unknown package name", [("README.md", "\n", "\nCall `sqlgrade.verify(output)`.\n")],
             1, "names sqlgrade.verify, which the package does not export"),
            ("unknown submodule name", [("README.md", "\n", "\nCall `sqlgrade.spider.grade(x)`.\n")],
             1, "names sqlgrade.spider.grade, which sqlgrade/spider does not define"),
        ]
        for name, edits, want_rc, want_text in cases:
            root = os.path.join(base, name.replace(" ", "_"))
            copy_tree(root)
            for rel, old, new in edits or []:
                edit(root, rel, old, new)
            rc, out = run(root)
            if rc != want_rc or want_text not in out:
                failures.append(f"{name}: exit {rc} (want {want_rc}), output lacks {want_text!r}:\n{out[-2000:]}")
    for f in failures:
        print("FAIL " + f)
    print(f"architecture_check_test: {len(cases) - len(failures)}/{len(cases)} cases as expected")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
