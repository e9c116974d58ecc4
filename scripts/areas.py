"""The areas of the tree and the includes between them, read from the sources alone; shared by
scripts/check-layers.py (the rule) and scripts/include-graph.py (the picture).

An area is a folder with a row in docs/ARCHITECTURE.md's table (src/util, src/render/go,
src/agent/store, cli, ...); a file belongs to the area of the longest such folder its path
starts with. A project include names its header by its path from the repository root, the one
include root: `#include "src/render/sprig/support.hpp"` is that file.
"""
import functools
import os
import re

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROW = re.compile(r"^\|\s*`([\w/]+)`\s*\|\s*([^|]*)\|")
SOURCES = (".cpp", ".hpp", ".h", ".cc", ".inc")
# The folders whose C++ files belong to the project (the rest of the tree holds none).
ROOTS = ("src", "cli", "tests", "bench")
SKIP = {"testdata"}  # test tables: data of the area they sit in, never an area of their own


class Table:
    """docs/ARCHITECTURE.md's "may include" table: {folder: set of area names}."""

    def __init__(self, root):
        path = os.path.join(root, "docs", "ARCHITECTURE.md")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        start = text.find("<!-- layers:begin -->")
        end = text.find("<!-- layers:end -->")
        if start < 0 or end < start:
            raise SystemExit("%s has no <!-- layers:begin --> ... <!-- layers:end --> table" % path)
        self.allowed = {}
        for line in text[start:end].splitlines():
            m = ROW.match(line)
            if m and m.group(1) != "area":
                self.allowed[m.group(1)] = {
                    a.strip(" `") for a in m.group(2).split(",") if a.strip(" `—-")}
        self.folder_of = {}
        for folder in self.allowed:
            name = name_of(folder)
            if name in self.folder_of:
                raise SystemExit("%s: two rows are named %s (%s, %s)" % (
                    path, name, self.folder_of[name], folder))
            self.folder_of[name] = folder

    def area_of(self, rel):
        """The folder of the area `rel` (a path from the root) belongs to, or None."""
        best = None
        for folder in self.allowed:
            if (rel + "/").startswith(folder + "/") and (best is None or len(folder) > len(best)):
                best = folder
        return best


def name_of(folder):
    """An area's short name, as the table's "may include" column writes it: its last folder."""
    return folder.rstrip("/").split("/")[-1]


def source_files(root):
    """Every C++ source of the project, as paths from the root, in a stable order."""
    found = []
    for top in ROOTS:
        for dirpath, dirnames, files in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(files):
                if name.endswith(SOURCES):
                    found.append(os.path.relpath(os.path.join(dirpath, name), root))
    return found


@functools.lru_cache(maxsize=None)
def includes(root, rel):
    """(line number, included path) of each `#include "..."` of a file, read once per run
    (every check walks the same files)."""
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return [(n, m.group(1)) for n, line in enumerate(f, 1) for m in [INCLUDE.match(line)] if m]


def is_unit_test(rel):
    """A unit test beside its code, which may also use the test helpers under tests/."""
    return rel.endswith("_test.cpp")


def edges(root, table):
    """{area folder: {included area folder: first (file, line) that includes it}}, the graph
    the includes draw between areas (an area's includes of itself left out)."""
    graph = {folder: {} for folder in table.allowed}
    for rel in source_files(root):
        area = table.area_of(rel)
        if area is None:
            continue
        for number, target in includes(root, rel):
            other = table.area_of(target)
            if other is None or other == area or (other == "tests" and is_unit_test(rel)):
                continue
            graph[area].setdefault(other, (rel, number))
    return graph
