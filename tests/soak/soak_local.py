#!/usr/bin/env python3
"""The local fault soak: real local jobs (`ejob submit --local`: etcd, ejob-agents, torch
workers) trained while random faults hit their processes, for a bounded time; then every job
must have ended as it should, with nothing left behind.

    soak_local.py --ejob PATH [--minutes M] [--seed S] [--report FILE]

Jobs, one after another until the time is up, alternate between the digits example
(examples/digits/train.py, etcd rendezvous, 2 nodes elastic 1:2) and a gloo all-reduce job on
the PyTorchJob engine (c10d, node 0 hosting the store). While a job runs, every 2-6 s one fault
is drawn:

  kill_agent       SIGKILL of a node's ejob-agent (the supervisor starts the node again)
  kill_worker      SIGKILL of a training process (the agent restarts its worker group)
  stop_agent       SIGSTOP of a node's session for 1-4 s, then SIGCONT
  kill_etcd        SIGKILL of the job's etcd (the supervisor starts it again, same port, data kept)
  stop_etcd        SIGSTOP of etcd for 1-4 s, then SIGCONT
  stop_supervisor  SIGSTOP of the supervisor for 1-3 s, then SIGCONT
  kill_supervisor  SIGKILL of the supervisor (at most once per job; the job must then end
                   Failed with SupervisorLost, its nodes stopped)
  full_disk        the state folder's file system filled to the last byte for 1-4 s, then
                   freed (the state folder is a tmpfs of 256 MiB of its own: root only; as
                   another user this fault is not drawn, and the report says so)

Afterwards, per job: it ended (Succeeded, or Failed with a reason naming what failed); its
state files parse; no process of any session it ever had is left (zombies included); the lines
`ejob logs -f` printed live are exactly those of `ejob logs` after the end, none lost or
duplicated. The faults injected and survived are counted by kind and written to --report.
"""
import argparse
import atexit
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
JOBFILE = os.path.join(REPO, "examples", "digits.yaml")
ALLREDUCE = """import os, time, torch, torch.distributed as dist
dist.init_process_group('gloo')
for step in range(int(os.environ.get('STEPS', '200'))):
    x = torch.ones(1000)
    dist.all_reduce(x)
    if dist.get_rank() == 0 and step % 20 == 0:
        print('step', step, 'sum', int(x[0].item()), 'world', dist.get_world_size(), flush=True)
    time.sleep(0.05)
print('allreduce done on rank', dist.get_rank(), flush=True)
"""


def session_members(sid):
    members = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid:
            members.append(int(pid))
    return members


def signal_session(sid, sig):
    for pid in session_members(sid):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def children_of(pid):
    out = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open("/proc/%s/stat" % p) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(p))
            except OSError:
                pass
    return out


class Soak:
    def __init__(self, ejob, seed):
        self.ejob_binary = os.path.abspath(ejob)
        self.tmp = tempfile.mkdtemp(prefix="ejob-soak-")
        self.env = dict(os.environ, XDG_STATE_HOME=os.path.join(self.tmp, "state"), HOME=self.tmp,
                        PYTHON_EXEC="/usr/bin/python3")
        self.env.pop("KUBECONFIG", None)
        self.random = random.Random(seed)
        self.state_fs = self.mount_state_fs()
        self.injected = {}
        self.problems = []
        self.jobs = []
        with open(os.path.join(self.tmp, "allreduce.py"), "w") as f:
            f.write(ALLREDUCE)

    def mount_state_fs(self):
        """A file system of its own for the state folder, which full_disk can fill without
        filling this machine's disk; None where mounting is not allowed (not root)."""
        path = self.env["XDG_STATE_HOME"]
        os.makedirs(path)
        if os.geteuid() != 0:
            return None
        p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=256m,mode=0700", "ejob-soak", path],
                           capture_output=True, text=True)
        return path if p.returncode == 0 else None

    def close(self):
        if self.state_fs:
            subprocess.run(["umount", "-l", self.state_fs])
            self.state_fs = None
        subprocess.run(["rm", "-rf", self.tmp])

    def fill_disk(self, low, high):
        filler = os.path.join(self.state_fs, "filler")
        chunk = b"\0" * (1 << 20)
        with open(filler, "wb", buffering=0) as f:
            try:
                while True:
                    f.write(chunk)
            except OSError:
                pass
            try:  # the last partial block too
                while True:
                    f.write(b"\0" * 4096)
            except OSError:
                pass
        time.sleep(self.random.uniform(low, high))
        os.unlink(filler)

    def ejob(self, *args, timeout=120):
        return subprocess.run([self.ejob_binary] + list(args), cwd=REPO, env=self.env,
                              capture_output=True, text=True, timeout=timeout)

    def dir(self, name):
        return os.path.join(self.env["XDG_STATE_HOME"], "ejob", "local", name)

    def state(self, name):
        with open(os.path.join(self.dir(name), "state.json")) as f:
            return json.load(f)

    def submit(self, index):
        name = "soak-%d" % index
        if index % 2 == 0:
            args = ["submit", JOBFILE, "--local", "--exact-name", "--name", name, "--",
                    "examples/digits/train.py", "--epochs=40"]
        else:
            args = ["submit", "--local", "--exact-name", "--name", name, "--engine", "pytorchjob",
                    "--workers", "1:2", "--set", "workers.replicas=2", "--set", "env.STEPS=300",
                    "--set", "env.PET_MAX_RESTARTS=3", "--", os.path.join(self.tmp, "allreduce.py")]
        p = self.ejob(*args)
        if p.returncode != 0:
            self.problems.append("%s: submit exited %d: %s" % (name, p.returncode, p.stderr[-500:]))
            return None
        return name

    # ---- faults -------------------------------------------------------------------------------
    def inject(self, name, record):
        try:
            s = self.state(name)
        except (OSError, ValueError):
            return
        record["sessions"] |= {p for p in [s["supervisorPid"], s["etcdPid"]] + [n["pid"] for n in s["nodes"]] if p}
        kinds = ["kill_agent", "kill_worker", "stop_agent", "stop_supervisor"]
        if s["etcdPid"]:
            kinds += ["kill_etcd", "stop_etcd"]
        if self.state_fs:
            kinds.append("full_disk")
        if not record["supervisor_killed"] and self.random.random() < 0.08:
            kinds = ["kill_supervisor"]
        kind = self.random.choice(kinds)
        nodes = [n["pid"] for n in s["nodes"] if n["pid"]]
        if kind in ("kill_agent", "stop_agent", "kill_worker") and not nodes:
            return
        node = self.random.choice(nodes) if nodes else 0
        if kind == "kill_agent":
            os.kill(node, signal.SIGKILL)
        elif kind == "kill_worker":
            workers = [c for c in children_of(node)]
            if not workers:
                return
            os.kill(self.random.choice(workers), signal.SIGKILL)
        elif kind == "stop_agent":
            self.pause_session(node, 1, 4)
        elif kind == "kill_etcd":
            os.kill(s["etcdPid"], signal.SIGKILL)
        elif kind == "stop_etcd":
            self.pause_session(s["etcdPid"], 1, 4)
        elif kind == "stop_supervisor":
            self.pause_session(s["supervisorPid"], 1, 3, whole_session=False)
        elif kind == "full_disk":
            self.fill_disk(1, 4)
        elif kind == "kill_supervisor":
            os.kill(s["supervisorPid"], signal.SIGKILL)
            record["supervisor_killed"] = True
        self.injected[kind] = self.injected.get(kind, 0) + 1
        record["faults"].append(kind)

    def pause_session(self, sid, low, high, whole_session=True):
        targets = session_members(sid) if whole_session else [sid]
        for pid in targets:
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
        time.sleep(self.random.uniform(low, high))
        for pid in targets:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass

    # ---- one job ------------------------------------------------------------------------------
    def run_job(self, index, deadline):
        name = self.submit(index)
        if not name:
            return
        record = {"name": name, "faults": [], "sessions": set(), "supervisor_killed": False}
        follow = subprocess.Popen([self.ejob_binary, "logs", name, "-f"], cwd=REPO, env=self.env,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        job_deadline = time.monotonic() + 240
        while follow.poll() is None and time.monotonic() < min(job_deadline, deadline + 60):
            time.sleep(self.random.uniform(2, 6))
            if follow.poll() is None and time.monotonic() < deadline:
                self.inject(name, record)
        if follow.poll() is None:  # out of time: the job is stopped; it must still end cleanly
            self.ejob("delete", name, "--keep")
        out, err = follow.communicate(timeout=120)
        self.check_job(name, record, out, err, follow.returncode)
        final = self.state(name) if os.path.exists(self.dir(name)) else {}
        self.jobs.append({"name": name, "faults": record["faults"], "phase": final.get("phase", "?"),
                          "message": final.get("message", "")})
        self.ejob("delete", name)

    def check_job(self, name, record, live, err, rc):
        try:
            s = self.state(name)
            for f in ("launch.json", "objects.json"):
                with open(os.path.join(self.dir(name), f)) as fh:
                    json.load(fh)
        except (OSError, ValueError) as e:
            self.problems.append("%s: a state file does not parse: %s" % (name, e))
            return
        if s["phase"] not in ("Succeeded", "Failed", "Stopped"):
            self.problems.append("%s: not ended: %s" % (name, s["phase"]))
        if s["phase"] == "Failed" and not s.get("message"):
            self.problems.append("%s: failed without a reason" % name)
        if record["supervisor_killed"] and "was lost" not in s.get("message", ""):
            self.problems.append("%s: supervisor killed, but the job says %s: %s" % (name, s["phase"], s.get("message")))
        if s["phase"] == "Succeeded" and rc != 0:
            self.problems.append("%s: succeeded but logs -f exited %d: %s" % (name, rc, err[-300:]))
        final = self.ejob("logs", name).stdout
        if sorted(live.splitlines()) != sorted(final.splitlines()):
            lost = len(set(final.splitlines()) - set(live.splitlines()))
            extra = len(live.splitlines()) - len(final.splitlines())
            self.problems.append("%s: logs -f printed %d lines, the logs hold %d (%d not printed)"
                                 % (name, len(live.splitlines()), len(final.splitlines()), lost + max(0, -extra)))
        # The supervisor writes the final phase last, then exits: a moment may pass.
        until = time.monotonic() + 15
        while any(session_members(sid) for sid in record["sessions"]) and time.monotonic() < until:
            time.sleep(0.1)
        left = [sid for sid in record["sessions"] if session_members(sid)]
        if left:
            self.problems.append("%s: processes left in sessions %s" % (name, left))

    def zombies(self):
        return [int(p) for p in children_of(os.getpid())
                if open("/proc/%d/stat" % int(p)).read().rsplit(")", 1)[1].split()[0] == "Z"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ejob", required=True)
    ap.add_argument("--minutes", type=float, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--report")
    args = ap.parse_args()
    soak = Soak(args.ejob, args.seed)
    atexit.register(soak.close)  # the tmpfs is unmounted however the soak ends
    start = time.monotonic()
    deadline = start + args.minutes * 60
    index = 0
    while time.monotonic() < deadline:
        soak.run_job(index, deadline)
        index += 1
    if soak.zombies():
        soak.problems.append("zombies among the soak's children: %s" % soak.zombies())
    report = {"minutes": round((time.monotonic() - start) / 60, 1), "seed": args.seed,
              "full_disk": "drawn" if soak.state_fs else "not drawn (not root: no tmpfs)",
              "jobs": soak.jobs, "faults": soak.injected, "problems": soak.problems}
    text = json.dumps(report, indent=1)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text + "\n")
    print("soak: %d jobs in %.1f min, faults %s" % (len(soak.jobs), report["minutes"], soak.injected))
    for j in soak.jobs:
        print("  %s %s after %s%s" % (j["name"], j["phase"], ",".join(j["faults"]) or "no fault",
                                      (": " + j["message"]) if j["phase"] != "Succeeded" else ""))
    for p in soak.problems:
        print("PROBLEM " + p)
    soak.close()
    return 1 if soak.problems else 0


if __name__ == "__main__":
    sys.exit(main())
