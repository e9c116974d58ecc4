#!/usr/bin/env python3
"""Bench: `ejob submit` of the default job vs `kubectl apply --server-side -f` of the same
rendered manifests, against the Kubernetes API test server with injected latency per request
(issue 4: wall-time ratio target <= 1/4, requests target <= objects + 1, discovery included),
for each engine (issue 30): a server that serves only that engine's kind (its real CRD from
../shared/crds), and ejob submitting with `--engine auto` (the default), which asks the cluster
what it serves once per context and caches it.

    submit_vs_kubectl.py [--ejob build/kube-rel/ejob] [--latency-ms 20] [--runs 7]
                         [--engines elasticjob,pytorchjob,trainjob]

Use a Release build of the lean executable (CMake presets `release`/`ci`, e.g.
`cmake -S . -B build/kube-rel -G Ninja -DCMAKE_BUILD_TYPE=Release && cmake --build build/kube-rel
--target ejob`). Each round, in one server run: the job is deleted, the request log reset, then
one command is timed, for each of
  - ejob submit (the job's name exact, so every run sends the same objects),
  - kubectl with an empty discovery cache (a first run, as in CI),
  - kubectl with the cache an earlier run left behind (a warm laptop).
Prints, per command, the median, min and max wall time, the median CPU time (user + system)
of the process, the requests and TLS connections the server saw (medians over the runs), then
the ratios and the targets.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "kube"))
import cli_test  # noqa: E402  (the test server wrapper)

JOB = ["--image", "worker:1", "--", "train.py"]
EJOB = "ejob submit"
COLD = "kubectl (cold cache)"
WARM = "kubectl (warm cache)"


def cpu_of_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd, env):
    """Wall time and CPU time (user + system) of one run of `cmd`."""
    cpu = cpu_of_children()
    start = time.perf_counter()
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"{cmd} failed: {p.stderr}")
    return wall, cpu_of_children() - cpu


# What each engine's cluster has installed (../shared/crds files), besides ejob's ElasticJob CRD.
ENGINE_CRDS = {
    "elasticjob": [],
    "pytorchjob": ["kubeflow.org_pytorchjobs.yaml"],
    "trainjob": ["jobset.x-k8s.io_jobsets.yaml", "trainer.kubeflow.org_trainjobs.yaml",
                 "trainer.kubeflow.org_clustertrainingruntimes.yaml",
                 "trainer.kubeflow.org_torch-distributed.clustertrainingruntime.yaml"],
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ejob", default=os.path.join(HERE, "..", "..", "build", "kube-rel", "ejob"))
    parser.add_argument("--latency-ms", type=float, default=20)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--engines", default="elasticjob,pytorchjob,trainjob")
    args = parser.parse_args()
    ejob = os.path.abspath(args.ejob)
    if not os.path.exists(ejob):
        raise SystemExit(f"{ejob} does not exist: build the ejob target of a Release build first")
    for engine in args.engines.split(","):
        print(f"== engine {engine} (ejob submits with --engine auto)")
        bench_engine(ejob, engine, args)


def bench_engine(ejob, engine, args):
    server = cli_test.Server(crds=ENGINE_CRDS[engine])
    try:
        env = dict(os.environ, KUBECONFIG=server.kubeconfig, HOME=server.dir, EJOB_CONFIG=os.devnull)
        if engine == "elasticjob":
            subprocess.run([ejob, "install-crds"], env=env, check=True, capture_output=True)
        manifests = os.path.join(server.dir, "job.yaml")
        with open(manifests, "w") as f:
            f.write(subprocess.run([ejob, "template", "--name", "bench", "--exact-name", "--engine", engine,
                                    *JOB], env=env, check=True, capture_output=True, text=True).stdout)
        server.ctl("faults", {"latency_ms": args.latency_ms})
        walls = {EJOB: [], COLD: [], WARM: []}
        cpus = {k: [] for k in walls}
        requests = {k: [] for k in walls}
        connections = {k: [] for k in walls}
        warm_cache = os.path.join(server.dir, "warm-cache")

        def measure(label, cmd, cache):
            subprocess.run([ejob, "delete", "bench", "--wait"], env=env, capture_output=True)
            server.ctl("sync")
            server.ctl("requests/reset")
            run_env = dict(env, KUBECACHEDIR=cache)
            wall, cpu = timed(cmd + ["--cache-dir", cache] if cmd[0] == "kubectl" else cmd, run_env)
            walls[label].append(wall)
            cpus[label].append(cpu)
            seen = server.ctl("requests")
            requests[label].append(len(seen))
            connections[label].append(len({r["peer"] for r in seen}))

        kubectl = ["kubectl", "apply", "--server-side", "-f", manifests]
        measure(WARM, kubectl, warm_cache)  # fills the warm cache; not counted
        for k in walls:
            walls[k].clear(), cpus[k].clear(), requests[k].clear(), connections[k].clear()
        for i in range(args.runs):
            print(f"round {i + 1}/{args.runs}", file=sys.stderr, flush=True)
            measure(EJOB, [ejob, "submit", "--name", "bench", "--exact-name", *JOB], warm_cache)
            measure(COLD, kubectl, tempfile.mkdtemp(dir=server.dir))
            measure(WARM, kubectl, warm_cache)
        objects = sum(1 for line in open(manifests) if line.startswith("kind:"))
        print(f"ejob: {ejob}")
        print(f"latency per request: {args.latency_ms:.0f} ms, runs: {args.runs}, objects: {objects}, "
              f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        med = {k: statistics.median(v) for k, v in walls.items()}
        print(f"{'':22s} {'median':>9s} {'min':>7s} {'max':>7s} {'cpu':>7s} {'requests':>9s} "
              f"{'connections':>12s}")
        for label in walls:
            print(f"{label:22s} {med[label] * 1000:6.1f} ms {min(walls[label]) * 1000:7.1f} "
                  f"{max(walls[label]) * 1000:7.1f} {statistics.median(cpus[label]) * 1000:7.1f} "
                  f"{statistics.median(requests[label]):9.0f} {statistics.median(connections[label]):12.0f}")
        for label in (COLD, WARM):
            print(f"ratio ejob / {label}: {med[EJOB] / med[label]:.3f} (target <= 0.25)")
        print(f"ejob requests: {statistics.median(requests[EJOB]):.0f} (target <= objects + 1 = {objects + 1})")
    finally:
        server.stop()


if __name__ == "__main__":
    main()
