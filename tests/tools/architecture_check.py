"""ctest docs.architecture: the map in docs/architecture.md stays true.

1. The module table of docs/architecture.md ("## Dependencies") lists, for every library target of
   src/sqlgrade/*/CMakeLists.txt, exactly the sqlgrade_* targets it links, in pipeline order (a module
   only links modules listed above it).
2. No include climbs: a file under src/sqlgrade/<folder>/ includes "sqlgrade/<other>/..." only when
   its module links <other> (directly or through the modules it links).
3. No dangling file names: every src/... or include/... path, and every <module>/<file> path of a
   src/sqlgrade module, named in README.md, docs/*.md or a comment of src/, include/, python/native
   or tests/ exists.
4. docs/safety.md's tests are real (issue 31, item 8): every GoogleTest name it gives (`Suite.Name`,
   `Suite.*`) is a TEST/TEST_F/TEST_P of tests/, and every row of its limits table ("| input | bound |
   set by | beyond it | test |") names a test (or "same" as the row above).
"""
import ast
import os
import re
import sys

SRC = os.environ.get("SQLGRADE_SOURCE_DIR") or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL " + msg)


def read(rel):
    with open(os.path.join(SRC, rel), encoding="utf-8") as f:
        return f.read()


def cmake_links():
    """{module: set of sqlgrade_* modules it links} and {module: folder}, from every module CMakeLists.txt."""
    links, folder = {}, {}
    base = os.path.join(SRC, "src", "sqlgrade")
    for d in sorted(os.listdir(base)):
        path = os.path.join(base, d, "CMakeLists.txt")
        if not os.path.isfile(path):
            continue
        text = "\n".join(line.split("#", 1)[0] for line in read(os.path.relpath(path, SRC)).splitlines())
        for m in re.finditer(r"sqlgrade_library\(\s*NAME\s+(\w+)(.*?)\)", text, re.S):
            links[m.group(1)] = set(re.findall(r"\bsqlgrade_(\w+)", m.group(2)))
            folder[m.group(1)] = d
    return links, folder


def doc_table():
    """[(module, set of modules)] of the fenced table under "## Dependencies" in docs/architecture.md."""
    doc = read("docs/architecture.md")
    section = doc.split("## Dependencies", 1)[1]
    block = section.split("```", 2)[1]
    rows = []
    for line in block.splitlines()[1:]:
        words = line.split()
        if not words or words[0] == "module":
            continue
        rows.append((words[0], set(w for w in words[1:] if w != "-")))
    return rows


def check_links():
    links, folder = cmake_links()
    rows = doc_table()
    seen = set()
    for module, deps in rows:
        if module not in links:
            fail(f"docs/architecture.md lists module {module}, which no src/sqlgrade/*/CMakeLists.txt declares")
            continue
        if deps != links[module]:
            fail(f"docs/architecture.md: {module} links {sorted(deps)}; its CMakeLists.txt links {sorted(links[module])}")
        if not deps <= seen:
            fail(f"docs/architecture.md: {module} is listed before {sorted(deps - seen)}, which it links")
        seen.add(module)
    for module in links:
        if module not in seen:
            fail(f"docs/architecture.md does not list module {module} (src/sqlgrade/{folder[module]}/CMakeLists.txt)")
    return links, folder


def closure(links, module):
    out, todo = set(), [module]
    while todo:
        for d in links.get(todo.pop(), ()):
            if d not in out:
                out.add(d)
                todo.append(d)
    return out


def check_includes(links, folder):
    modules_of = {}
    for m, d in folder.items():
        modules_of.setdefault(d, set()).add(m)
    base = os.path.join(SRC, "src", "sqlgrade")
    for d, mods in modules_of.items():
        reach = set(folder[m] for m in mods) | set(folder[x] for m in mods for x in closure(links, m))
        for root, _, files in os.walk(os.path.join(base, d)):
            for name in files:
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, SRC)
                for line_no, line in enumerate(read(rel).splitlines(), 1):
                    m = re.match(r'\s*#\s*include\s+"sqlgrade/(\w+)/', line)
                    if m and m.group(1) not in reach:
                        fail(f"{rel}:{line_no}: includes sqlgrade/{m.group(1)}/ but module {d} does not link it")


PATH_RE = re.compile(r"(?<![\w/.<-])((?:src|include)/[\w./-]*\w\.(?:cpp|hpp|h|txt|cmake|py|md))\b")


def module_path_re(folders):
    return re.compile(r"(?<![\w/.<>-])((?:%s)/[\w./-]*\w\.(?:cpp|hpp))\b" % "|".join(sorted(folders, key=len, reverse=True)))


def texts():
    """(relative path, text to scan) of README.md, docs/*.md and the comments of the C++ sources."""
    yield "README.md", read("README.md")
    for name in sorted(os.listdir(os.path.join(SRC, "docs"))):
        if name.endswith(".md"):
            yield "docs/" + name, read("docs/" + name)
    for top in ("src", "include", "python/native", "tests/unit", "tests/consumer"):
        for root, _, files in os.walk(os.path.join(SRC, top)):
            for name in sorted(files):
                if name.endswith((".cpp", ".hpp", ".h")) or name == "CMakeLists.txt":
                    rel = os.path.relpath(os.path.join(root, name), SRC)
                    comment = "#" if name == "CMakeLists.txt" else "//"
                    lines = [ln.split(comment, 1)[1] for ln in read(rel).splitlines() if comment in ln]
                    yield rel, "\n".join(lines)


def exists(path, generated=("include/sqlgrade/version.hpp",)):
    return path in generated or os.path.exists(os.path.join(SRC, path))


def check_paths(folders):
    mod_re = module_path_re(folders)
    for rel, text in texts():
        for p in set(PATH_RE.findall(text)):
            if not exists(p):
                fail(f"{rel} names {p}, which does not exist")
        for p in set(mod_re.findall(text)):
            if not exists("src/sqlgrade/" + p) and not exists("src/" + p):
                fail(f"{rel} names {p}, which is not a file of src/sqlgrade/")


GTEST_NAME = re.compile(r"`([A-Z][A-Za-z0-9]+)\.([A-Z]\w*|\*)`")
GTEST_DEF = re.compile(r"\bTEST(?:_F|_P)?\(\s*(\w+)\s*,\s*(\w+)\s*\)")


def gtests():
    found = {}
    for root, _, files in os.walk(os.path.join(SRC, "tests")):
        for f in files:
            if f.endswith((".cpp", ".hpp")):
                with open(os.path.join(root, f), encoding="utf-8", errors="replace") as fh:
                    for suite, name in GTEST_DEF.findall(fh.read()):
                        found.setdefault(suite, set()).add(name)
    return found


def check_safety_tests():
    text = read("docs/safety.md")
    found = gtests()
    for suite, name in sorted(set(GTEST_NAME.findall(text))):
        if suite not in found or (name != "*" and name not in found[suite]):
            fail(f"docs/safety.md names the test {suite}.{name}, which is not a test of tests/")
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if not line.startswith("| input | bound | set by | beyond it | test |"):
            continue
        for k in range(i + 2, len(lines)):
            if not lines[k].startswith("|"):
                break
            test = lines[k].rstrip().rstrip("|").rsplit("|", 1)[-1].strip()
            if not (GTEST_NAME.search(test) or re.search(r"test_\w+|\.py\b", test) or test == "same"):
                fail(f"docs/safety.md:{k + 1}: a row of the limits table names no test")


def module_includes(folder_name):
    """Every "sqlgrade/..." include of the files of src/sqlgrade/<folder_name>/."""
    out = set()
    for root, _, files in os.walk(os.path.join(SRC, "src", "sqlgrade", folder_name)):
        for name in files:
            if name.endswith((".cpp", ".hpp")):
                out.update(re.findall(r'^\s*#\s*include\s+"(sqlgrade/[\w./]+)"',
                                      read(os.path.relpath(os.path.join(root, name), SRC)), re.M))
    return out


def check_links_used(links, folder):
    for module, deps in sorted(links.items()):
        inc = module_includes(folder[module])
        for d in sorted(deps):
            if not any(i.startswith(f"sqlgrade/{folder[d]}/") or i == f"sqlgrade/{d}.hpp" for i in inc):
                fail(f"docs/architecture.md: {module} links {d}, but no file of src/sqlgrade/{folder[module]}/ "
                     f"includes sqlgrade/{folder[d]}/... or sqlgrade/{d}.hpp (a link with no include behind it)")


def top_names(path):
    """The names a Python file defines or imports at top level (and its __all__)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            for t in node.targets if isinstance(node, ast.Assign) else [node.target]:
                names.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


# Not Python names: the wheel's folder of bundled libraries (sqlgrade.libs/), the native module (built).
PY_NOT_NAMES = {"libs", "_native"}


def check_python_names():
    pkg = os.path.join(SRC, "python", "sqlgrade")
    submodules = {n[:-3] for n in os.listdir(pkg) if n.endswith(".py")} | \
                 {n for n in os.listdir(pkg) if os.path.isfile(os.path.join(pkg, n, "__init__.py"))}
    top = top_names(os.path.join(pkg, "__init__.py")) | submodules
    for rel in ["README.md"] + ["docs/" + n for n in sorted(os.listdir(os.path.join(SRC, "docs"))) if n.endswith(".md")]:
        for dotted in sorted(set(re.findall(r"(?<![\w.])sqlgrade((?:\.[A-Za-z_]\w*)+)", read(rel)))):
            parts = dotted.split(".")[1:]
            if parts[0] in PY_NOT_NAMES or parts[0] in ("__version__",):
                continue
            if parts[0] not in top:
                fail(f"{rel} names sqlgrade.{parts[0]}, which the package does not export")
                continue
            if len(parts) > 1 and parts[0] in submodules:
                mod = os.path.join(pkg, parts[0] + ".py")
                if not os.path.isfile(mod):
                    mod = os.path.join(pkg, parts[0], "__init__.py")
                sub = {n[:-3] for n in os.listdir(os.path.dirname(mod)) if n.endswith(".py")} \
                    if mod.endswith("__init__.py") else set()
                if parts[1] not in top_names(mod) | sub:
                    fail(f"{rel} names sqlgrade.{parts[0]}.{parts[1]}, which sqlgrade/{parts[0]} does not define")


def main():
    links, folder = check_links()
    check_includes(links, folder)
    check_links_used(links, folder)
    check_python_names()
    check_paths(set(folder.values()))
    check_safety_tests()
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print("docs/architecture.md matches the CMake links; no include climbs; every named source file exists; "
          "every test docs/safety.md names is real; every link has an include behind it; every sqlgrade.* name "
          "the docs use exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
