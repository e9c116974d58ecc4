#!/usr/bin/env python3
"""Fails when an #include goes against the direction between areas that docs/ARCHITECTURE.md
writes down (its "may include" table): each offending line is named as FILE:LINE.

An area is a folder (src/util, src/job, cli, ...); a header is reached as
`#include "ejob/<name>/..."`, and <name> is the area whose folder ends in <name> (cli for
`ejob/cli/`). An area may always include itself. Every folder under src/ must have a row, so
that a new area cannot escape the check.

    scripts/check-layers.py [ROOT]     exit 0: every include allowed; 1: violations listed
"""
import os
import re
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"ejob/([a-z_]+)/')
ROW = re.compile(r"^\|\s*`([\w/]+)`\s*\|\s*([^|]*)\|")
SOURCES = (".cpp", ".hpp", ".h", ".cc")


def read_table(root):
    """{area folder: set of area names it may include}, from the table between the markers."""
    path = os.path.join(root, "docs", "ARCHITECTURE.md")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    start = text.find("<!-- layers:begin -->")
    end = text.find("<!-- layers:end -->")
    if start < 0 or end < start:
        sys.exit("check-layers: %s has no <!-- layers:begin --> ... <!-- layers:end --> table" % path)
    table = {}
    for line in text[start:end].splitlines():
        m = ROW.match(line)
        if not m or m.group(1) == "area":
            continue
        allowed = {a.strip(" `") for a in m.group(2).split(",") if a.strip(" `—-")}
        table[m.group(1)] = allowed
    return table


def name_of(folder):
    return folder.rstrip("/").split("/")[-1]


def violations(root, table):
    names = {name_of(folder): folder for folder in table}
    found = []
    for folder, allowed in sorted(table.items()):
        own = name_of(folder)
        for dirpath, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(SOURCES):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) == own or "*" in allowed:
                            continue
                        if m.group(1) not in allowed:
                            where = names.get(m.group(1), "ejob/" + m.group(1))
                            found.append("%s:%d: %s includes %s (%s may include: %s)" % (
                                os.path.relpath(path, root), number, folder, where, folder,
                                ", ".join(sorted(allowed)) or "nothing of ours"))
    return found


def missing_rows(root, table):
    """A line for each folder under src/ that the table does not name."""
    src = os.path.join(root, "src")
    folders = sorted(d for d in os.listdir(src) if os.path.isdir(os.path.join(src, d))) \
        if os.path.isdir(src) else []
    return ["src/%s: no row in docs/ARCHITECTURE.md's table (what may it include?)" % d
            for d in folders if "src/" + d not in table]


def main(argv):
    root = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    table = read_table(root)
    found = missing_rows(root, table) + violations(root, table)
    for line in found:
        print("check-layers: " + line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
