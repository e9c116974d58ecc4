"""Proves scripts/check-layers.py and scripts/include-graph.py fail on what they exist to catch.
A copy of the tree's sources, docs and scripts in a temporary folder passes both; then each
planted fault, alone in a fresh copy, fails the check with exit 1 and a line naming it:

- a lower area including a higher one (Go's ports including the template layer; an agent room
  including a room above it), named as FILE:LINE;
- a folder without a row in the table (a new area under src/, a new room of the agent);
- an include that names no file under the include root (the old link-tree spelling);
- a symbolic link in the source tree;
- a row that allows more than the includes use;
- a picture in docs/ARCHITECTURE.md that the includes do not draw.

Usage: planted_violation.py REPO_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile

COPIED = ("src", "cli", "tests", "bench", "docs", "scripts")


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:  # another file system (a tmpfs /tmp): a copy
        shutil.copy2(src, dst)


def copy_tree(repo):
    root = tempfile.mkdtemp(prefix="ejob-layers-")
    for top in COPIED:
        # Hard links: a copy of the tree nine times costs its directories, not its 11 MB of
        # files; a planted fault replaces a file instead of writing into it (write, replace).
        shutil.copytree(os.path.join(repo, top), os.path.join(root, top), symlinks=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.gz"), copy_function=link_or_copy)
    return root


def run(root, *args):
    return subprocess.run([sys.executable] + list(args), cwd=root, capture_output=True, text=True)


def check_layers(root):
    return run(root, os.path.join(root, "scripts", "check-layers.py"), root)


def write(root, rel, text):
    """Writes a new file in place of the (hard-linked) one there: the checkout stays as it is."""
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.lexists(path):
        os.remove(path)
    with open(path, "w") as f:
        f.write(text)


def replace(root, rel, old, new):
    with open(os.path.join(root, rel)) as f:
        text = f.read()
    if old not in text:
        raise SystemExit("%s holds no %r to plant a fault in" % (rel, old))
    write(root, rel, text.replace(old, new, 1))


def fails_with(result, expected):
    """Whether a check exited 1 naming `expected`; prints what it said either way."""
    if result.returncode != 1 or expected not in result.stdout:
        print("not reported as %r (exit %d):\n%s%s" % (
            expected, result.returncode, result.stdout, result.stderr))
        return False
    print(result.stdout.strip().splitlines()[0])
    return True


def plant_link(root):
    os.symlink("go", os.path.join(root, "src", "render", "ejob_go"))


# (what is planted, how, the check that must fail, what it must say)
PLANTS = [
    ("a lower area includes a higher one",
     lambda r: write(r, "src/render/go/bad.hpp",
                     '#pragma once\n#include "src/render/text_template/funcs.hpp"\n'),
     check_layers, "src/render/go/bad.hpp:2: src/render/go includes src/render/text_template"),
    ("an agent room includes a room above it",
     lambda r: write(r, "src/agent/store/bad.cpp", '#include "src/agent/rendezvous/round_source.hpp"\n'),
     check_layers, "src/agent/store/bad.cpp:1: src/agent/store includes src/agent/rendezvous"),
    ("a new area under src/ without a row",
     lambda r: write(r, "src/newarea/x.cpp", '#include "src/util/error.hpp"\n'),
     check_layers, "src/newarea: no row in docs/ARCHITECTURE.md's table"),
    ("a new room of the agent without a row",
     lambda r: write(r, "src/agent/newroom/x.cpp", '#include "src/agent/base/log.hpp"\n'),
     check_layers, "src/agent/newroom: no row in docs/ARCHITECTURE.md's table"),
    ("an include that names no file",
     lambda r: write(r, "src/job/x.cpp", '#include "ejob/job/jobs.hpp"\n'),
     check_layers, 'src/job/x.cpp:1: includes "ejob/job/jobs.hpp", which names no file'),
    ("a symbolic link in the tree", plant_link,
     check_layers, "src/render/ejob_go: a symbolic link"),
    ("a row allowing more than the includes use",
     lambda r: replace(r, "docs/ARCHITECTURE.md", "| `src/kubeapi` | util |", "| `src/kubeapi` | util, spot |"),
     check_layers, "src/kubeapi: its row allows spot, which no include of it uses"),
    ("a picture the includes do not draw",
     lambda r: replace(r, "docs/ARCHITECTURE.md", "src/render/go             ─► util",
                       "src/render/go             ─► util, yaml"),
     lambda r: run(r, os.path.join(r, "scripts", "include-graph.py"), "--check",
                   os.path.join(r, "docs", "ARCHITECTURE.md")),
     "picture differs from the includes"),
]


def main(repo):
    root = copy_tree(repo)
    try:
        clean = check_layers(root)
        graph = run(root, os.path.join(root, "scripts", "include-graph.py"), "--check",
                    os.path.join(root, "docs", "ARCHITECTURE.md"))
        if clean.returncode != 0 or graph.returncode != 0:
            print("the copied tree fails:\n" + clean.stdout + clean.stderr + graph.stdout + graph.stderr)
            return 1
    finally:
        shutil.rmtree(root, ignore_errors=True)
    for what, plant, check, expected in PLANTS:
        root = copy_tree(repo)
        try:
            plant(root)
            if not fails_with(check(root), expected):
                print("planted, not caught: " + what)
                return 1
        finally:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
