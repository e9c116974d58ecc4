#!/usr/bin/env python3
"""Prints the graph of areas that the `#include`s draw, from the sources alone (scripts/areas.py
reads the table only to know which folders are areas): each area on the level above the
highest area it includes, and what each includes directly.

    scripts/include-graph.py              the picture, as docs/ARCHITECTURE.md shows it
    scripts/include-graph.py --dot        the same graph for Graphviz (dot -Tsvg)
    scripts/include-graph.py --check DOC  exit 1 when DOC's picture (between
                                          <!-- graph:begin --> and <!-- graph:end -->) differs
    scripts/include-graph.py --write DOC  writes the picture there

tests/ and bench/ (which may use every area) are left out of the picture.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import areas  # noqa: E402

BEGIN, END = "<!-- graph:begin -->", "<!-- graph:end -->"


def area_graph(root):
    """{area folder: sorted folders it includes}, without the areas that may include anything."""
    table = areas.Table(root)
    everything = {f for f, allowed in table.allowed.items() if "*" in allowed}
    graph = areas.edges(root, table)
    return {f: sorted(o for o in graph[f] if o not in everything)
            for f in sorted(graph) if f not in everything}


def levels(graph):
    """{area: level}: 0 for an area that includes none, else one above its highest include."""
    level = {}

    def of(area, seen=()):
        if area in seen:
            raise SystemExit("include-graph: a cycle through %s" % " -> ".join(seen + (area,)))
        if area not in level:
            level[area] = 1 + max((of(o, seen + (area,)) for o in graph[area]), default=-1)
        return level[area]

    for area in graph:
        of(area)
    return level


def picture(root):
    graph = area_graph(root)
    level = levels(graph)
    width = max(len(a) for a in graph)
    lines = ["```"]
    for n in range(max(level.values()), -1, -1):
        for area in sorted(a for a in graph if level[a] == n):
            uses = ", ".join(areas.name_of(o) for o in sorted(graph[area], key=lambda o: (-level[o], o)))
            lines.append(("%d  %-*s  %s" % (n, width, area, ("─► " + uses) if uses else "")).rstrip())
    lines.append("```")
    return "\n".join(lines) + "\n"


def dot(root):
    graph = area_graph(root)
    lines = ["digraph areas {", "  rankdir=TB; node [shape=box];"]
    for area, uses in graph.items():
        lines += ['  "%s" -> "%s";' % (area, o) for o in uses]
    return "\n".join(lines + ["}"]) + "\n"


def block(doc):
    """The document's text and the span of its picture, between the markers."""
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise SystemExit("include-graph: %s has no %s ... %s block" % (doc, BEGIN, END))
    return text, start + len(BEGIN), end


def check(root, doc):
    text, start, end = block(doc)
    drawn = picture(root)
    if text[start:end].strip("\n") + "\n" != drawn:
        print("include-graph: %s's picture differs from the includes; they draw (write it with "
              "scripts/include-graph.py --write %s):\n%s" % (doc, doc, drawn))
        return 1
    return 0


def write(root, doc):
    text, start, end = block(doc)
    drawn = picture(root)  # before the document is opened for writing: it reads the table
    with open(doc, "w", encoding="utf-8") as f:
        f.write(text[:start] + "\n" + drawn + text[end:])
    return 0


def main(argv):
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    if len(argv) > 2 and argv[1] in ("--check", "--write"):
        return (check if argv[1] == "--check" else write)(root, argv[2])
    sys.stdout.write(dot(root) if argv[1:] == ["--dot"] else picture(root))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
