#!/usr/bin/env python3
"""Fails when the tree goes against docs/ARCHITECTURE.md's table of areas (scripts/areas.py),
each finding named as FILE:LINE or FOLDER:

- an `#include "..."` that names no file at that path from the repository root (the one
  include root), or a file outside every area;
- an include of another area that the including area's row does not allow (a unit test,
  `*_test.cpp`, may also include the test helpers under tests/);
- an allowance that no include uses: the table says what the areas include, not more;
- a C++ file in a folder that no row covers (a new area must say what it may include);
- a symbolic link in the source tree: no include reaches a file through a link.

With --build DIR (a Ninja build of the tree), also what the compiler saw:

- a link in the build tree into the source tree (no include directory made of links);
- an object that depends on a header of an area its own area does not reach through the
  table (directly or below): touching one library's header then rebuilds only that library
  and the areas that use it, as ninja's dependency log (`ninja -t deps`) records.

    scripts/check-layers.py [ROOT] [--build DIR]   exit 0: the tree keeps the table; 1: findings
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import areas  # noqa: E402

BUILD_OUTPUTS = {".git", "build", ".cache"}


def unresolved_includes(root, table):
    found = []
    for rel in areas.source_files(root):
        for number, target in areas.includes(root, rel):
            if not os.path.isfile(os.path.join(root, target)):
                found.append("%s:%d: includes \"%s\", which names no file under the include "
                             "root (write its path from the repository root)" % (rel, number, target))
            elif table.area_of(target) is None:
                found.append("%s:%d: includes %s, which is in no area of the table" % (
                    rel, number, target))
    return found


def forbidden_includes(root, table):
    found = []
    for rel in areas.source_files(root):
        area = table.area_of(rel)
        allowed = table.allowed.get(area, set())
        if area is None or "*" in allowed:
            continue
        for number, target in areas.includes(root, rel):
            other = table.area_of(target)
            if other in (None, area) or (other == "tests" and areas.is_unit_test(rel)):
                continue
            if areas.name_of(other) not in allowed:
                found.append("%s:%d: %s includes %s (%s may include: %s)" % (
                    rel, number, area, other, area, ", ".join(sorted(allowed)) or "nothing of ours"))
    return found


def unused_allowances(root, table):
    graph = areas.edges(root, table)
    found = []
    for folder, allowed in sorted(table.allowed.items()):
        if "*" in allowed:
            continue
        used = {areas.name_of(other) for other in graph[folder]}
        for name in sorted(allowed - used):
            if name not in table.folder_of:
                found.append("%s: its row names %s, which is no area of the table" % (folder, name))
            else:
                found.append("%s: its row allows %s, which no include of it uses "
                             "(the table says what exists)" % (folder, name))
    return found


def folders_without_rows(root, table):
    missing = sorted({os.path.dirname(rel) for rel in areas.source_files(root)
                      if table.area_of(rel) is None})
    return ["%s: no row in docs/ARCHITECTURE.md's table (what may it include?)" % folder
            for folder in missing]


def links(root):
    found = []
    for dirpath, dirnames, files in os.walk(root):
        if dirpath == root:
            dirnames[:] = [d for d in dirnames if d not in BUILD_OUTPUTS]
        for name in sorted(dirnames + files):
            path = os.path.join(dirpath, name)
            if os.path.islink(path):
                found.append("%s: a symbolic link (-> %s); includes name real files" % (
                    os.path.relpath(path, root), os.readlink(path)))
    return found


def build_links(root, build):
    found = []
    for dirpath, dirnames, files in os.walk(build):
        for name in dirnames + files:
            path = os.path.join(dirpath, name)
            if os.path.islink(path) and os.path.realpath(path).startswith(root + os.sep):
                found.append("%s: a link into the source tree (-> %s)" % (path, os.readlink(path)))
    return found


def reachable(table, folder):
    """The areas `folder` may use directly or through the areas below it, itself included."""
    seen, todo = {folder}, [folder]
    while todo:
        for name in table.allowed.get(todo.pop(), ()):
            other = table.folder_of.get(name)
            if other and other not in seen:
                seen.add(other)
                todo.append(other)
    return seen


def header_dependencies(build):
    """{source file: [header files]} from ninja's dependency log, absolute paths."""
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True,
                         check=True).stdout
    deps, current = {}, None
    for line in out.splitlines():
        if not line.startswith(" "):
            current = None
        elif current is None:
            current = line.strip()
            deps.setdefault(current, [])
        else:
            deps[current].append(line.strip())
    return deps


def out_of_reach_headers(root, table, build):
    found = set()
    reach_of = {folder: reachable(table, folder) for folder in table.allowed}
    for source, headers in sorted(header_dependencies(build).items()):
        rel = os.path.relpath(source, root)
        area = table.area_of(rel)
        if area is None or "*" in table.allowed[area] or rel.startswith(".."):
            continue
        reach = reach_of[area]
        for header in headers:
            other = table.area_of(os.path.relpath(header, root))
            if other is None or other in reach or (other == "tests" and areas.is_unit_test(rel)):
                continue
            found.add("%s: compiled with %s (%s does not reach %s)" % (
                rel, os.path.relpath(header, root), area, other))
    return sorted(found)


def main(argv):
    args = argv[1:]
    build = None
    if "--build" in args:
        i = args.index("--build")
        build = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    table = areas.Table(root)
    found = (folders_without_rows(root, table) + unresolved_includes(root, table) +
             forbidden_includes(root, table) + unused_allowances(root, table) + links(root))
    if build:
        found += build_links(root, build) + out_of_reach_headers(root, table, build)
    for line in found:
        print("check-layers: " + line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
