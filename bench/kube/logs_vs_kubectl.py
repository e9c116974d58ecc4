#!/usr/bin/env python3
"""Bench: `ejob logs NAME` of a job with N workers vs `kubectl logs -l job-name=NAME --prefix`
(the peer a user would otherwise type), against the Kubernetes API test server with injected
latency per request, in one server run.

    logs_vs_kubectl.py [--ejob build/kube-rel/ejob] [--workers 8] [--lines 200]
                       [--latency-ms 20] [--runs 9]

Both print every worker's lines with a pod prefix. kubectl needs --max-log-requests above the
number of workers only with -f; without -f it reads the pods one after another. Prints medians
of wall and CPU time, the requests the server saw, and the ratio ejob / kubectl.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "kube"))
import cli_test  # noqa: E402  (the test server wrapper)
from submit_vs_kubectl import timed  # noqa: E402

NS = "elastic-job"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ejob", default=os.path.join(HERE, "..", "..", "build", "kube-rel", "ejob"))
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--lines", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    ejob = os.path.abspath(args.ejob)
    server = cli_test.Server()
    try:
        env = dict(os.environ, KUBECONFIG=server.kubeconfig, HOME=server.dir)
        subprocess.run([ejob, "install-crds"], env=env, check=True, capture_output=True)
        subprocess.run([ejob, "submit", "--name", "bench", "--exact-name", "--image", "w:1", "--workers",
                        str(args.workers), "--", "train.py"], env=env, check=True, capture_output=True)
        server.ctl("sync")
        for i in range(args.workers):
            server.ctl("logs", {"namespace": NS, "pod": f"bench-worker-{i}", "container": "elasticjob-worker",
                                "lines": [{"text": f"worker {i} step {n} loss {1.0 / (n + 1):.4f}"}
                                          for n in range(args.lines)]})
        server.ctl("faults", {"latency_ms": args.latency_ms})
        cache = tempfile.mkdtemp(dir=server.dir)
        commands = {
            "ejob logs": [ejob, "logs", "bench"],
            "kubectl logs -l": ["kubectl", "logs", "-n", NS, "-l", "job-name=bench", "--prefix",
                                "--tail=-1", f"--max-log-requests={args.workers}", "--cache-dir", cache],
        }
        outputs = {}
        for label, cmd in commands.items():  # warm-up: kubectl's discovery cache, page cache
            outputs[label] = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
        for label, out in outputs.items():
            got = len(out.splitlines())
            if got != args.workers * args.lines:
                raise SystemExit(f"{label} printed {got} lines, not {args.workers * args.lines}")
        walls = {k: [] for k in commands}
        cpus = {k: [] for k in commands}
        requests = {k: [] for k in commands}
        for i in range(args.runs):
            print(f"round {i + 1}/{args.runs}", file=sys.stderr, flush=True)
            for label, cmd in commands.items():
                server.ctl("requests/reset")
                wall, cpu = timed(cmd, env)
                walls[label].append(wall)
                cpus[label].append(cpu)
                requests[label].append(len(server.ctl("requests")))
        print(f"workers: {args.workers}, lines each: {args.lines}, latency per request: "
              f"{args.latency_ms:.0f} ms, runs: {args.runs}, load average: {os.getloadavg()[0]:.1f}")
        med = {k: statistics.median(v) for k, v in walls.items()}
        print(f"{'':18s} {'median':>9s} {'min':>7s} {'cpu':>7s} {'requests':>9s}")
        for label in commands:
            print(f"{label:18s} {med[label] * 1000:6.1f} ms {min(walls[label]) * 1000:7.1f} "
                  f"{statistics.median(cpus[label]) * 1000:7.1f} {statistics.median(requests[label]):9.0f}")
        print(f"ratio ejob / kubectl: {med['ejob logs'] / med['kubectl logs -l']:.3f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
