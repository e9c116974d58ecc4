#!/usr/bin/env python3
"""Fails when a document names a path of the repository that does not exist, or a path
outside it (docs stand on their own): README.md, docs/ and every other *.md we track.

A path is a word starting with one of the repository's top folders (src/, cli/, tests/, …).
It exists when it is there as written, matches as a glob (`<case>` and `*` are wildcards,
`{a,b}` alternatives), or names a file pair without its extension (`src/render/chart` for
chart.hpp and chart.cpp).

    scripts/check-doc-paths.py [ROOT]
"""
import glob
import os
import re
import subprocess
import sys

TOP = ("src", "cli", "tests", "docs", "scripts", "charts", "packaging", "bench", "examples",
       "cmake", "templates", ".ci")
PATH = re.compile(r"(?<![\w/.-])((?:\.\./)*(?:shared|%s)/[\w./{},*<>-]*)" % "|".join(
    re.escape(t) for t in TOP))


def documents(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "*.md"], capture_output=True,
                             text=True, check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        out = [os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "**/*.md"),
                                                           recursive=True)]
    return sorted(p for p in out if not p.startswith(("build/", ".cache/")))


def alternatives(path):
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [alt for part in m.group(1).split(",")
            for alt in alternatives(path[:m.start()] + part + path[m.end():])]


def exists(root, path):
    pattern = os.path.join(root, re.sub(r"<[^>]*>", "*", path))
    return any(os.path.exists(p) for p in [pattern]) or bool(glob.glob(pattern)) or \
        bool(glob.glob(pattern.rstrip("/") + ".*"))


def problems(root):
    for doc in documents(root):
        with open(os.path.join(root, doc), encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                for m in PATH.finditer(line):
                    path = m.group(1).rstrip(".,:;")
                    if path.startswith(("../", "shared/")):
                        yield f"{doc}:{number}: names {path}, outside the repository"
                    elif not all(exists(root, p) for p in alternatives(path)):
                        yield f"{doc}:{number}: names {path}, which is not in the repository"


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    found = list(problems(root))
    for p in found:
        print("check-doc-paths: " + p, file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
