#!/usr/bin/env python3
"""The longest functions under the given folders (the developers' guide: no function over ~80 lines).

usage: scripts/long_functions.py [--top N] [--over LINES] DIR...
A function is counted from the line that opens its body to the line that closes it (lambdas and local
classes inside it count as its lines). The scan is lexical: braces in strings, characters and comments
are skipped; a brace that follows `namespace`, `class`, `struct`, `union`, `enum` or `extern "C"` opens
a scope, not a function. Exit 1 when --over is given and some function is longer.
"""
import argparse
import os
import re
import sys

SCOPE = re.compile(r"\b(namespace|class|struct|union|enum)\b[^;()]*$|extern\s+\"C\"\s*$")
STRIP = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def functions(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    # Blank out comments and literals, keeping the newlines (line numbers stay right).
    text = STRIP.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
    stack, out, head = [], [], ""
    line = 1
    for ch in text:
        if ch == "\n":
            line += 1
        if ch == "{":
            in_fn = any(k == "fn" for k, _, _ in stack)
            kind = "scope" if not in_fn and SCOPE.search(head.strip()) else "fn"
            if not in_fn and kind == "fn" and not re.search(r"\)[^;]*$", head):
                kind = "init"  # brace initialiser at namespace/class scope
            stack.append((kind, line, head.strip().split("\n")[-1][-120:]))
            head = ""
        elif ch == "}":
            if stack:
                kind, start, sig = stack.pop()
                if kind == "fn" and not any(k == "fn" for k, _, _ in stack):
                    out.append((line - start + 1, path, start, sig))
            head = ""
        elif ch == ";":
            head = ""
        else:
            head += ch
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--over", type=int, default=0)
    a = ap.parse_args()
    found = []
    for d in a.dirs:
        for root, _, files in os.walk(d):
            for f in files:
                if f.endswith((".cpp", ".hpp", ".h", ".cc")):
                    found += functions(os.path.join(root, f))
    found.sort(reverse=True)
    for n, path, start, sig in found[: a.top]:
        print(f"{n:5d}  {path}:{start}  {' '.join(sig.split())[:90]}")
    if a.over and any(n > a.over for n, *_ in found):
        sys.exit(1)


if __name__ == "__main__":
    main()
