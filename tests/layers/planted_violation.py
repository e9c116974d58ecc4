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


def fails_with(script, root, expected):
    """Whether the check exits 1 naming `expected`; prints what it said either way."""
    result = run(script, root)
    if result.returncode != 1 or expected not in result.stdout:
        print("not reported as %r (exit %d):\n%s%s" % (
            expected, result.returncode, result.stdout, result.stderr))
        return False
    print(result.stdout.strip())
    return True


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
        if not fails_with(script, root, "src/go/bad.hpp:2: src/go includes src/template"):
            return 1
        write(root, "src/newarea/x.cpp", '#include "ejob/helm/chart.hpp"\n')
        if not fails_with(script, root, "src/newarea: no row in docs/ARCHITECTURE.md's table"):
            return 1
        return 0
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
