#!/usr/bin/env python3
"""`cmake --install` into a fresh prefix gives ejob, ejob-agent and the charts, and the
installed ejob works from any directory (its charts travel inside it).

    check_install.py BUILD_DIR
"""
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    build = sys.argv[1]
    prefix = tempfile.mkdtemp(prefix="ejob-install-")
    try:
        subprocess.run(["cmake", "--install", build, "--prefix", prefix], check=True,
                       stdout=subprocess.DEVNULL)
        for path in ("bin/ejob", "bin/ejob-agent", "share/ejob/charts/elasticjob/Chart.yaml"):
            if not os.path.exists(os.path.join(prefix, path)):
                print(f"check_install: {path} was not installed", file=sys.stderr)
                return 1
        elsewhere = tempfile.mkdtemp(prefix="ejob-cwd-")
        try:
            out = subprocess.run([os.path.join(prefix, "bin/ejob"), "template", "--image", "w:1",
                                  "--", "train.py"], cwd=elsewhere, capture_output=True, text=True)
            agent = subprocess.run([os.path.join(prefix, "bin/ejob-agent"), "--help"],
                                   capture_output=True, text=True)
        finally:
            shutil.rmtree(elsewhere)
        if out.returncode != 0 or "kind: ElasticJob" not in out.stdout:
            print(f"check_install: the installed ejob failed ({out.returncode}): {out.stderr}",
                  file=sys.stderr)
            return 1
        if agent.returncode != 0:
            print(f"check_install: ejob-agent --help failed: {agent.stderr}", file=sys.stderr)
            return 1
        return 0
    finally:
        shutil.rmtree(prefix)


if __name__ == "__main__":
    sys.exit(main())
