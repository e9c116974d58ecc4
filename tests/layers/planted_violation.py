"""Proves scripts/check-layers.py fails on an include against docs/ARCHITECTURE.md's table:
a copy of the table in a temporary tree, an allowed include (passes), then a planted one
(src/go, the ports of Go's library, including the template layer above it: exit 1, named as
FILE:LINE), then a new folder under src/ that the table does not name (exit 1, named).

Usage: planted_violation.py REPO_ROOT
"""
import os
import shutil
import subprocess
import sys
import tempfile


def run(script, root):
    return subprocess.run([sys.executable, script, root], capture_output=True, text=True)


def write(root, rel, text):
    os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
    with open(os.path.join(root, rel), "w") as f:
        f.write(text)


def main(repo):
    script = os.path.join(repo, "scripts", "check-layers.py")
    root = tempfile.mkdtemp(prefix="ejob-layers-")
    try:
        os.makedirs(os.path.join(root, "docs"))
        shutil.copy(os.path.join(repo, "docs", "ARCHITECTURE.md"), os.path.join(root, "docs"))
        write(root, "src/job/ok.cpp", '#include "ejob/job/ok.hpp"\n#include "ejob/helm/chart.hpp"\n')
        clean = run(script, root)
        if clean.returncode != 0:
            print("an allowed include was refused:\n" + clean.stdout + clean.stderr)
            return 1
        write(root, "src/go/bad.hpp", '#pragma once\n#include "ejob/template/funcs.hpp"\n')
        planted = run(script, root)
        expected = "src/go/bad.hpp:2: src/go includes src/template"
        if planted.returncode != 1 or expected not in planted.stdout:
            print("the planted violation was not reported as %r (exit %d):\n%s%s" % (
                expected, planted.returncode, planted.stdout, planted.stderr))
            return 1
        write(root, "src/newarea/x.cpp", '#include "ejob/helm/chart.hpp"\n')
        unlisted = run(script, root)
        expected = "src/newarea: no row in docs/ARCHITECTURE.md's table"
        if unlisted.returncode != 1 or expected not in unlisted.stdout:
            print("the folder without a row was not reported as %r (exit %d):\n%s%s" % (
                expected, unlisted.returncode, unlisted.stdout, unlisted.stderr))
            return 1
        print(unlisted.stdout.strip())
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
