#!/usr/bin/env python3
"""Bench: `ejob submit` of the default job vs `kubectl apply --server-side -f` of the same
rendered manifests, against the Kubernetes API test server with injected latency per request.

    submit_vs_kubectl.py --ejob build/kube/ejob [--latency-ms 20] [--runs 5]

For each run: the job is deleted, the server's request log reset, then the command timed.
kubectl is measured twice: with an empty discovery cache (a first run, as in CI) and with
the cache it left behind (a warm laptop). Prints medians, the wall-time ratios and the
request counts per command.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "kube"))
import cli_test  # noqa: E402  (the test server wrapper)

JOB = ["--image", "worker:1", "--", "train.py"]


def timed(cmd, env):
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed: {p.stderr}")
    return wall


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ejob", required=True)
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    ejob = os.path.abspath(args.ejob)
    server = cli_test.Server()
    try:
        env = dict(os.environ, KUBECONFIG=server.kubeconfig, HOME=server.dir)
        subprocess.run([ejob, "install-crds"], env=env, check=True, capture_output=True)
        manifests = os.path.join(server.dir, "job.yaml")
        with open(manifests, "w") as f:
            f.write(subprocess.run([ejob, "template", "--name", "bench", "--exact-name", *JOB], env=env,
                                   check=True, capture_output=True, text=True).stdout)
        server.ctl("faults", {"latency_ms": args.latency_ms})
        results = {"ejob submit": [], "kubectl (cold cache)": [], "kubectl (warm cache)": []}
        requests = {}
        warm_cache = os.path.join(server.dir, "warm-cache")

        def measure(label, cmd, cache):
            print("run", label, file=sys.stderr, flush=True)
            subprocess.run([ejob, "delete", "bench", "--wait"], env=env, capture_output=True)
            server.ctl("sync")
            server.ctl("requests/reset")
            run_env = dict(env, KUBECACHEDIR=cache)
            results[label].append(timed(cmd + ["--cache-dir", cache] if cmd[0] == "kubectl" else cmd, run_env))
            requests[label] = len(server.ctl("requests"))

        for _ in range(args.runs):
            measure("ejob submit", [ejob, "submit", "--name", "bench", "--exact-name", *JOB], warm_cache)
            measure("kubectl (cold cache)", ["kubectl", "apply", "--server-side", "-f", manifests],
                    tempfile.mkdtemp(dir=server.dir))
            measure("kubectl (warm cache)", ["kubectl", "apply", "--server-side", "-f", manifests], warm_cache)
        objects = sum(1 for line in open(manifests) if line.startswith("kind:"))
        print(f"latency per request: {args.latency_ms:.0f} ms, runs: {args.runs}, objects: {objects}")
        med = {k: statistics.median(v) for k, v in results.items()}
        for label, m in med.items():
            print(f"{label:22s} median {m * 1000:7.1f} ms   requests {requests[label]}")
        for label in ("kubectl (cold cache)", "kubectl (warm cache)"):
            print(f"ratio ejob / {label}: {med['ejob submit'] / med[label]:.3f}")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
