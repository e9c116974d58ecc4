#!/usr/bin/env python3
"""The cluster fault soak: job after job through the strict API test server (tests/kube/server.py)
while it fails a share of the requests — 500, 503, 429 with Retry-After, connections dropped
before or in the middle of an answer (watches included), answers truncated, log streams cut
after a few lines (half a line, no final chunk), every answer slowed — for a bounded time or count.

    soak_cluster.py --ejob PATH [--minutes M] [--jobs N] [--rate R] [--seed S] [--report FILE]

Each job: `ejob submit` (2 workers); if it fails, the message must say why and nothing of the job
may be left on the server (a failed submit leaves no orphans). If it succeeds: `ejob logs -f`
follows both workers while each says 40 lines (the test plays the kubelet), then the pods
succeed; logs -f must print each line exactly once and exit 0. Then `ejob delete --wait` (tried
again while the faults make it fail, as a user would) must leave no object of the job. The
requests seen are counted by outcome and written to --report with the problems found.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "kube"))
import cli_test  # noqa: E402  the test server's harness

NS = "elastic-job"
CONTAINER = "elasticjob-worker"
LINES = 40


class ClusterSoak:
    def __init__(self, ejob, rate, seed):
        self.ejob_binary = os.path.abspath(ejob)
        self.server = cli_test.Server()
        self.env = dict(os.environ, KUBECONFIG=self.server.kubeconfig, HOME=self.server.dir,
                        XDG_CACHE_HOME=os.path.join(self.server.dir, "cache"))
        self.random = random.Random(seed)
        self.faults = {"rate": rate, "kinds": ["500", "503", "429", "drop", "drop_after", "truncate",
                                               "cut_log"],
                       "cut_max": 20, "latency_ms": 20, "retry_after": 1, "seed": seed}
        self.problems = []
        self.outcomes = {}

    def ejob(self, *args, timeout=180):
        return subprocess.run([self.ejob_binary] + list(args), env=self.env, capture_output=True,
                              text=True, timeout=timeout)

    def objects_of(self, name):
        return sorted("%s/%s" % (o["kind"], o["metadata"]["name"]) for o in self.server.objects()
                      if o["metadata"]["name"] == name or o["metadata"]["name"].startswith(name + "-"))

    def run(self, index):
        name = "soak-%d" % index
        p = self.ejob("submit", "--name", name, "--exact-name", "--image", "worker:1", "--workers", "2",
                      "--", "train.py")
        if p.returncode != 0:
            self.count("submit failed (exit %d)" % p.returncode)
            if "error:" not in p.stderr:
                self.problems.append("%s: submit exited %d without saying why" % (name, p.returncode))
            self.settle()
            if self.objects_of(name):
                self.problems.append("%s: a failed submit left %s" % (name, self.objects_of(name)))
            return
        self.count("submitted")
        self.follow_logs(name)
        self.delete(name)

    def follow_logs(self, name):
        pods = ["%s-worker-%d" % (name, i) for i in range(2)]
        deadline = time.monotonic() + 60
        while not all(p in self.objects_of(name) or "Pod/" + p in self.objects_of(name) for p in pods):
            if time.monotonic() > deadline:
                self.problems.append("%s: its pods were not made" % name)
                return
            time.sleep(0.1)
        follow = subprocess.Popen([self.ejob_binary, "logs", name, "-f"], env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for line in range(LINES):
            for w, pod in enumerate(pods):
                self.server.ctl("logs", {"namespace": NS, "pod": pod, "container": CONTAINER,
                                         "lines": [{"text": "w%d line %d" % (w, line)}]})
            time.sleep(self.random.uniform(0, 0.05))
        for pod in pods:
            self.server.ctl("logs", {"namespace": NS, "pod": pod, "container": CONTAINER, "done": True})
            self.server.ctl("pod-phase", {"namespace": NS, "name": pod, "phase": "Succeeded"})
        try:
            out, err = follow.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            follow.kill()
            out, err = follow.communicate()
            self.problems.append("%s: logs -f did not end with the job" % name)
        self.check_lines(name, out, err, follow.returncode)

    def check_lines(self, name, out, err, rc):
        seen = [l for l in out.splitlines() if " line " in l]
        for w in range(2):
            mine = [l for l in seen if l.startswith("[worker-%d] " % w)]
            want = ["[worker-%d] w%d line %d" % (w, w, i) for i in range(LINES)]
            if mine != want:
                lost = len(set(want) - set(mine))
                dup = len(mine) - len(set(mine))
                self.problems.append("%s: worker-%d: logs -f printed %d of %d lines (%d lost, %d twice%s)"
                                     % (name, w, len(set(mine)), LINES, lost, dup,
                                        ", out of order" if not lost and not dup else ""))
                self.count("log lines lost", lost)
                self.count("log lines printed twice", dup)
        if rc != 0:
            self.problems.append("%s: logs -f exited %d: %s" % (name, rc, err[-300:]))

    def delete(self, name):
        for attempt in range(5):
            p = self.ejob("delete", name, "--wait", "--timeout", "60")
            if p.returncode == 0 or (attempt > 0 and p.returncode == 8):
                break
            self.count("delete failed and tried again")
        self.settle()
        if self.objects_of(name):
            self.problems.append("%s: deleted, but %s are left" % (name, self.objects_of(name)))

    def settle(self):
        self.server.ctl("faults", {})
        self.server.ctl("sync")
        self.server.ctl("faults", self.faults)

    def count(self, what, n=1):
        if n:
            self.outcomes[what] = self.outcomes.get(what, 0) + n

    def request_statuses(self):
        counts = {}
        for r in self.server.ctl("requests"):
            key = str(r.get("status"))
            counts[key] = counts.get(key, 0) + 1
        return counts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ejob", required=True)
    ap.add_argument("--minutes", type=float, default=1)
    ap.add_argument("--jobs", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report")
    args = ap.parse_args()
    soak = ClusterSoak(args.ejob, args.rate, args.seed)
    try:
        p = soak.ejob("install-crds")
        if p.returncode != 0:
            print("install-crds failed: " + p.stderr)
            return 1
        soak.server.ctl("requests/reset", {})
        soak.server.ctl("faults", soak.faults)
        start = time.monotonic()
        index = 0
        while time.monotonic() < start + args.minutes * 60 and index < args.jobs:
            soak.run(index)
            index += 1
        soak.server.ctl("faults", {})
        report = {"minutes": round((time.monotonic() - start) / 60, 1), "jobs": index,
                  "seed": args.seed, "rate": args.rate, "outcomes": soak.outcomes,
                  "requests_by_status": soak.request_statuses(), "problems": soak.problems}
    finally:
        soak.server.stop()
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
    print("soak: %d jobs in %.1f min; %s; requests by status %s" % (
        report["jobs"], report["minutes"], report["outcomes"], report["requests_by_status"]))
    for p in soak.problems:
        print("PROBLEM " + p)
    return 1 if soak.problems else 0


if __name__ == "__main__":
    sys.exit(main())
