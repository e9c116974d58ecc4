"""`ejob submit --local` next to torchrun started by hand, in one run, on a real training script
(examples/digits.yaml: examples/digits/train.py, 2 nodes, Debian's /usr/bin/python3 + torch 1.13).

  1. start: from the command to the first finished epoch (`epoch 1/` in a node's log), 2 nodes.
     ejob: `ejob submit JOBFILE --local` (the supervisor starts etcd, then one ejob-agent per
     node). torchrun: two `python3 -m torch.distributed.run` agents on an etcd that is already
     running (not timed), same script, args, --nnodes and PET_* env as the job's launch.json.
     Milestones, each from the command: agents started (the later agent's process start time,
     /proc/PID/stat), round final (etcd's active_version turns "final", watched), workers
     started (the later worker's process start time), epoch 1. "launcher" = command -> workers
     started; "script" = workers started -> epoch 1 (python, torch import, data, gloo, 1 epoch:
     the same for both launchers).
  2. memory while training runs (sampled just after epoch 1): VmRSS (/proc/PID/status) and Pss
     (/proc/PID/smaps_rollup) of what ejob adds per node = one ejob-agent + 1/2 etcd + 1/2
     supervisor, against one torchrun agent process (its workers not counted); torchrun agent
     + 1/2 of its etcd is printed too.

Runs alternate (ejob first, then t,e / e,t / ...); medians and minima are printed with the ratios
ejob / torchrun (targets: start <= 0.5, memory <= 0.1). Every job is stopped with `ejob delete`,
every torchrun agent by its process group (and any descendant), the etcd at the end; the run
checks that nothing it started is left.

Usage (from anywhere; run with Debian's python, which has torch):
  /usr/bin/python3 bench/local/bench.py [--ejob build/ci/ejob] [--repeat 5] [--quick]
      [--jobfile examples/digits.yaml] [--keep] [--cold]

ejob-agent's warm workers (PET_PRELOAD in the job) start before the round: their "started" is
when the round turned final, after which the agent releases them. --cold empties PET_PRELOAD.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
PYTHON = "/usr/bin/python3"
EPOCH1 = re.compile(r"(^|\])\s*epoch 1/", re.M)  # torchrun's tee prefixes "[default0]:"
CLK_TCK = os.sysconf("SC_CLK_TCK")
TIMEOUT = 180


class Failure(Exception):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(pred, timeout, what, step=0.02):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise Failure("timed out waiting for " + what)


# ---- /proc ------------------------------------------------------------------------------------

def boot_time():
    """Boot time in the clock of time.time(), to 10 ms (uptime's resolution)."""
    with open("/proc/uptime") as f:
        return time.time() - float(f.read().split()[0])


def stat_fields(pid):
    """/proc/PID/stat fields after the command name: [state, ppid, pgrp, sid, ...]."""
    with open("/proc/%d/stat" % pid) as f:
        s = f.read()
    return s[s.rindex(")") + 2:].split()


def start_time(pid, boot):
    return boot + int(stat_fields(pid)[19]) / CLK_TCK  # field 22: starttime in ticks


def processes():
    """{pid: (ppid, sid, args)} of every process now."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            f = stat_fields(int(d))
            with open("/proc/%s/cmdline" % d, "rb") as c:
                args = c.read().replace(b"\0", b" ").decode(errors="replace").strip()
            if f[0] != "Z":
                out[int(d)] = (int(f[1]), int(f[3]), args)
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            pass
    return out


def descendants(pid, procs=None):
    procs = procs or processes()
    found, pending = set(), [pid]
    while pending:
        p = pending.pop()
        for c, (ppid, _, _) in procs.items():
            if ppid == p and c not in found:
                found.add(c)
                pending.append(c)
    return found


def memory_kib(pid):
    """(VmRSS, Pss) in KiB; Pss None when smaps_rollup is not readable."""
    rss = pss = None
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                rss = int(line.split()[1])
    try:
        with open("/proc/%d/smaps_rollup" % pid) as f:
            for line in f:
                if line.startswith("Pss:"):
                    pss = int(line.split()[1])
    except OSError:
        pass
    return rss, pss


def workers_of(agent_pid, procs):
    """The workers' pythons: running train.py, or ejob-agent's warm workers (PET_PRELOAD),
    whose command line is the boot program until their round is complete."""
    return sorted(p for p in descendants(agent_pid, procs)
                  if ("train.py" in procs[p][2] or "_ejob_warm" in procs[p][2])
                  and procs[p][2].startswith(PYTHON))


# ---- etcd -------------------------------------------------------------------------------------

def etcd_argv(data, port, peer):
    """The flags ejob's supervisor gives its etcd (src/local/etcd_server.cpp)."""
    client, peer_url = "http://127.0.0.1:%d" % port, "http://127.0.0.1:%d" % peer
    return ["etcd", "--name=local", "--data-dir=" + data, "--enable-v2=true",
            "--listen-client-urls=" + client, "--advertise-client-urls=" + client,
            "--listen-peer-urls=" + peer_url, "--initial-advertise-peer-urls=" + peer_url,
            "--initial-cluster=local=" + peer_url, "--log-level=warn"]


def etcd_get(endpoint, key, timeout=2.0, **query):
    q = "&".join("%s=%s" % kv for kv in query.items())
    url = "http://%s/v2/keys%s%s" % (endpoint, key, "?" + q if q else "")
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return json.load(r), int(r.headers.get("X-Etcd-Index", "0"))
    except urllib.error.HTTPError as e:
        return json.load(e), int(e.headers.get("X-Etcd-Index", "0"))


class RoundWatch(threading.Thread):
    """Records when the job's first rendezvous round turns final in etcd: a watch on
    active_version (the endpoint from a callable, since ejob's etcd starts after the command)."""

    def __init__(self, endpoint_fn, run_id):
        super().__init__(daemon=True)
        self.endpoint_fn, self.key = endpoint_fn, "/torchelastic/p2p/run_%s/rdzv/active_version" % run_id
        self.t_final = None
        self.stop = False

    def run(self):
        endpoint, index = None, None
        while not self.stop and self.t_final is None:
            try:
                endpoint = endpoint or self.endpoint_fn()
                if not endpoint:
                    time.sleep(0.02)
                    continue
                if index is None:
                    body, etcd_index = etcd_get(endpoint, self.key)
                else:
                    body, etcd_index = etcd_get(endpoint, self.key, 1.0, wait="true",
                                                waitIndex=index)
                node = body.get("node") or {}
                if '"final"' in (node.get("value") or ""):
                    self.t_final = time.time()
                    return
                if body.get("errorCode") == 401:  # the event history moved on: read again
                    index = None
                elif index is None:
                    index = etcd_index + 1
                elif node:
                    index = node.get("modifiedIndex", index) + 1
            except (OSError, ValueError):  # not up yet, or the watch timed out
                if index is None:
                    time.sleep(0.02)


# ---- one run of each --------------------------------------------------------------------------

def first_epoch(paths_fn):
    def seen():
        for p in paths_fn():
            try:
                with open(p, errors="replace") as f:
                    if EPOCH1.search(f.read()):
                        return True
            except OSError:
                pass
        return False
    return seen


def sample(pids):
    return {p: memory_kib(p) for p in pids}


class Bench:
    def __init__(self, args):
        self.a = args
        self.ejob = os.path.abspath(args.ejob)
        self.jobfile = os.path.abspath(args.jobfile)
        self.root = tempfile.mkdtemp(prefix="ejob-bench-local-")
        self.state = os.path.join(self.root, "state")
        self.tmp = os.path.join(self.root, "tmp")
        os.makedirs(self.tmp)
        self.env = dict(os.environ, XDG_STATE_HOME=self.state, TMPDIR=self.tmp)
        self.launch = None          # launch.json of the first ejob job: torchrun copies it
        self.etcd = None            # the etcd torchrun's agents use (started once, not timed)
        self.jobs, self.agents = [], []
        self.sessions = set()       # every session started (to check for leftovers)
        self.n = 0
        self.cold = args.cold

    # -- ejob
    def job_dir(self, name):
        return os.path.join(self.state, "ejob", "local", name)

    def read_state(self, name):
        try:
            with open(os.path.join(self.job_dir(name), "state.json")) as f:
                return json.load(f)
        except (OSError, ValueError):
            return None

    def run_ejob(self):
        self.n += 1
        name = "benchlocal%d" % self.n
        out = open(os.path.join(self.root, name + ".submit.log"), "w")
        watch = RoundWatch(lambda: (self.read_state(name) or {}).get("etcdEndpoint"), name)
        watch.start()
        boot = boot_time()
        t0 = time.time()
        self.jobs.append(name)
        cold = ["-e", "PET_PRELOAD="] if self.cold else []
        submit = subprocess.Popen([self.ejob, "submit", self.jobfile, "--local", "--name", name,
                                   "--exact-name"] + cold, cwd=REPO, env=self.env, stdout=out,
                                  stderr=subprocess.STDOUT)
        nodes = os.path.join(self.job_dir(name), "nodes")
        seen = first_epoch(lambda: glob.glob(os.path.join(nodes, "*.log")))
        t_submit = None
        deadline = time.time() + TIMEOUT
        while not seen():
            if t_submit is None and submit.poll() is not None:
                t_submit = time.time()
                if submit.returncode != 0:
                    raise Failure("ejob submit exited %d: %s" % (
                        submit.returncode, open(out.name).read()))
            if time.time() > deadline:
                raise Failure("no epoch 1 from ejob job " + name)
            time.sleep(0.02)
        t_epoch = time.time()
        if t_submit is None:
            submit.wait(30)
            t_submit = time.time()  # (only when submit outlived epoch 1: not expected)
        procs = processes()
        st = self.read_state(name)
        agents = [n["pid"] for n in st["nodes"]]
        sup, etcd = st["supervisorPid"], st["etcdPid"]
        self.sessions.update(agents + [sup, etcd])
        mem = sample(agents + [sup, etcd])
        workers = [w for a in agents for w in workers_of(a, procs)]
        wait_until(lambda: watch.t_final, 10, "round final (ejob)")
        if self.launch is None:
            with open(os.path.join(self.job_dir(name), "launch.json")) as f:
                self.launch = json.load(f)
        r = {"launcher": "ejob", "t0": t0, "submit": t_submit - t0,
             "agents": max(start_time(p, boot) for p in agents) - t0,
             "final": watch.t_final - t0,
             # Warm workers start before the round and are released when it is complete.
             "workers": max([start_time(p, boot) - t0 for p in workers] +
                            [watch.t_final - t0]) if workers else None,
             "epoch": t_epoch - t0}
        per = lambda i: (sum(mem[p][i] for p in agents) / len(agents)  # noqa: E731
                         + mem[etcd][i] / 2 + mem[sup][i] / 2) if all(
            mem[p][i] is not None for p in mem) else None
        r.update(rss=per(0), pss=per(1), rss_agent=statistics.mean(mem[p][0] for p in agents),
                 rss_etcd=mem[etcd][0], rss_sup=mem[sup][0])
        self.stop_ejob(name)
        return r

    def stop_ejob(self, name):
        if not os.path.isdir(self.job_dir(name)):
            return
        p = subprocess.run([self.ejob, "delete", name], env=self.env, capture_output=True,
                           text=True, timeout=120)
        if p.returncode != 0:
            raise Failure("ejob delete %s: %s" % (name, p.stdout + p.stderr))

    # -- torchrun
    def start_etcd(self):
        port, peer = free_port(), free_port()
        log = open(os.path.join(self.root, "etcd.log"), "w")
        self.etcd = subprocess.Popen(etcd_argv(os.path.join(self.root, "etcd"), port, peer),
                                     stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        self.sessions.add(self.etcd.pid)
        self.etcd_endpoint = "127.0.0.1:%d" % port

        def up():
            try:
                etcd_get(self.etcd_endpoint, "/")
                return True
            except OSError:
                return False
        wait_until(up, 30, "etcd")

    def run_torchrun(self):
        self.n += 1
        run_id = "benchlocal%d" % self.n
        la = self.launch
        env = dict(self.env)
        env.update({k: v for k, v in la["env"].items() if k.startswith("PET_")})
        env["EJOB_CHECKPOINT_DIR"] = os.path.join(self.root, run_id + ".checkpoints")
        argv = [PYTHON, "-m", "torch.distributed.run", "--rdzv_backend=etcd",
                "--rdzv_endpoint=" + self.etcd_endpoint, "--rdzv_id=" + run_id,
                "--nnodes=%d:%d" % (la["minNodes"], la["maxNodes"]), "-r", "1", "-t", "1"] + la["args"]
        watch = RoundWatch(lambda: self.etcd_endpoint, run_id)
        watch.start()
        boot = boot_time()
        t0 = time.time()
        agents = []
        for i in range(la["initialNodes"]):
            log = open(os.path.join(self.root, "%s.agent%d.log" % (run_id, i)), "w")
            agents.append(subprocess.Popen(argv, cwd=REPO, env=env, stdout=log,
                                           stderr=subprocess.STDOUT, start_new_session=True))
        self.agents += agents
        self.sessions.update(a.pid for a in agents)
        logs = [os.path.join(self.root, "%s.agent%d.log" % (run_id, i)) for i in range(len(agents))]
        seen = first_epoch(lambda: logs + glob.glob(
            os.path.join(self.tmp, "torchelastic_*", run_id + "_*", "attempt_*", "*", "stdout.log")))
        deadline = time.time() + TIMEOUT
        while not seen():
            for a in agents:
                if a.poll() is not None:
                    raise Failure("torchrun agent exited %d: %s" % (
                        a.returncode, open(logs[agents.index(a)]).read()[-3000:]))
            if time.time() > deadline:
                raise Failure("no epoch 1 from torchrun " + run_id)
            time.sleep(0.02)
        t_epoch = time.time()
        procs = processes()
        pids = [a.pid for a in agents]
        mem = sample(pids + [self.etcd.pid])
        workers = [w for a in pids for w in workers_of(a, procs)]
        wait_until(lambda: watch.t_final, 10, "round final (torchrun)")
        r = {"launcher": "torchrun", "t0": t0, "submit": None,
             "agents": max(0.0, max(start_time(p, boot) for p in pids) - t0),
             "final": watch.t_final - t0,
             "workers": max(start_time(p, boot) for p in workers) - t0 if workers else None,
             "epoch": t_epoch - t0,
             "rss": statistics.mean(mem[p][0] for p in pids),
             "pss": statistics.mean(mem[p][1] for p in pids) if all(
                 mem[p][1] is not None for p in pids) else None,
             "rss_etcd": mem[self.etcd.pid][0]}
        self.stop_agents(agents)
        return r

    def stop_agents(self, agents):
        procs = processes()
        victims = set()
        for a in agents:
            victims |= {a.pid} | descendants(a.pid, procs)
        for a in agents:
            if a.poll() is None:
                try:
                    os.killpg(a.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.time() + 15
        while time.time() < deadline and any(a.poll() is None for a in agents):
            time.sleep(0.05)
        for p in victims:  # what is left (a worker in a session of its own, a stuck agent)
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for a in agents:
            try:
                os.killpg(a.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            a.wait()

    # -- all
    def leftovers(self):
        procs = processes()
        return sorted("%d %s" % (p, args[:150]) for p, (_, sid, args) in procs.items()
                      if sid in self.sessions or self.root in args)

    def close(self):
        errors = []
        for name in self.jobs:
            try:
                self.stop_ejob(name)
            except (Failure, subprocess.TimeoutExpired) as e:
                errors.append(str(e))
        self.stop_agents(self.agents)
        if self.etcd and self.etcd.poll() is None:
            self.etcd.terminate()
            try:
                self.etcd.wait(20)
            except subprocess.TimeoutExpired:
                self.etcd.kill()
                self.etcd.wait()
        left = wait_until(lambda: not self.leftovers() or None, 20, "nothing left",
                          0.2) if self.leftovers() else None
        del left
        if self.a.keep:
            print("kept " + self.root)
        else:
            shutil.rmtree(self.root, ignore_errors=True)
        return errors


def fmt(v, unit):
    if v is None:
        return "-"
    return "%.2f s" % v if unit == "s" else "%.1f MiB" % (v / 1024)


def summary(runs):
    e = [r for r in runs if r["launcher"] == "ejob"]
    t = [r for r in runs if r["launcher"] == "torchrun"]
    rows = [
        ("submit returned", "submit", "s", False),
        ("agents started", "agents", "s", False),
        ("round final in etcd", "final", "s", None),
        ("workers started (launcher's part)", "workers", "s", None),
        ("first epoch done (target <= 0.5)", "epoch", "s", 0.5),
        ("script: workers started -> epoch 1", "script", "s", None),
        ("RSS per node (target <= 0.1)", "rss", "k", 0.1),
        ("PSS per node", "pss", "k", None),
    ]  # target False: no ratio (torchrun's agents start at once; it has no submit)
    for r in runs:
        r["script"] = r["epoch"] - r["workers"] if r["workers"] is not None else None
    print()
    print("%d runs each; ejob = `ejob submit --local` (per node: agent + 1/2 etcd + 1/2 supervisor), "
          "torchrun = 2 agents on a running etcd (per node: the agent process)" % len(e))
    print("%-36s %12s %12s %12s %12s %8s %8s" % ("", "ejob median", "ejob min", "torch median",
                                                 "torch min", "ratio", "ratio"))
    print("%-36s %12s %12s %12s %12s %8s %8s" % ("", "", "", "", "", "median", "min"))
    for label, key, unit, target in rows:
        ev = [r[key] for r in e if r.get(key) is not None]
        tv = [r[key] for r in t if r.get(key) is not None]
        em, emin = (statistics.median(ev), min(ev)) if ev else (None, None)
        tm, tmin = (statistics.median(tv), min(tv)) if tv else (None, None)
        rm = "%.3f" % (em / tm) if em is not None and tm and target is not False else "-"
        rmin = "%.3f" % (emin / tmin) if emin is not None and tmin and target is not False else "-"
        verdict = ""
        if target and em is not None and tm:
            verdict = " met" if em / tm <= target else " NOT MET"
        print("%-36s %12s %12s %12s %12s %8s %8s%s" % (label, fmt(em, unit), fmt(emin, unit),
                                                       fmt(tm, unit), fmt(tmin, unit), rm, rmin,
                                                       verdict))
    ea = [r["rss_agent"] for r in e]
    print("\nejob pieces (RSS medians): ejob-agent %.1f MiB, etcd %.1f MiB, supervisor %.1f MiB"
          % (statistics.median(ea) / 1024, statistics.median(r["rss_etcd"] for r in e) / 1024,
             statistics.median(r["rss_sup"] for r in e) / 1024))
    tr = statistics.median(r["rss"] + r["rss_etcd"] / 2 for r in t)
    print("torchrun agent + 1/2 of its etcd: %.1f MiB (ejob per node / that: %.3f)"
          % (tr / 1024, statistics.median(r["rss"] for r in e) / tr))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ejob", default=os.path.join(REPO, "build", "ci", "ejob"))
    p.add_argument("--jobfile", default=os.path.join(REPO, "examples", "digits.yaml"))
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--quick", action="store_true", help="1 run of each")
    p.add_argument("--keep", action="store_true", help="keep the temporary folder (logs)")
    p.add_argument("--cold", action="store_true", help="ejob's workers start after the round "
                   "(PET_PRELOAD emptied), as torchrun's do")
    a = p.parse_args()
    if a.quick:
        a.repeat = 1
    if not os.access(PYTHON, os.X_OK) or shutil.which("etcd") is None:
        sys.exit("needs %s with torch and etcd on PATH" % PYTHON)
    b = Bench(a)
    runs = []
    try:
        b.start_etcd()
        for i in range(a.repeat):
            order = ["ejob", "torchrun"] if i % 2 == 0 else ["torchrun", "ejob"]
            for kind in order:
                r = b.run_ejob() if kind == "ejob" else b.run_torchrun()
                runs.append(r)
                print("run %d %-8s submit %s agents %s final %s workers %s epoch1 %s | RSS/node %s "
                      "PSS/node %s" % (i + 1, kind, fmt(r["submit"], "s"), fmt(r["agents"], "s"),
                                       fmt(r["final"], "s"), fmt(r["workers"], "s"),
                                       fmt(r["epoch"], "s"), fmt(r["rss"], "k"),
                                       fmt(r["pss"], "k")), flush=True)
                time.sleep(1.0)  # let the machine settle between runs
    finally:
        errors = b.close()
        left = b.leftovers()
        if left:
            print("LEFT RUNNING:\n  " + "\n  ".join(left))
        for e in errors:
            print("error while stopping: " + e)
    summary(runs)
    with open("/proc/loadavg") as f:
        print("load average at the end: " + " ".join(f.read().split()[:3]))
    if left:
        sys.exit(1)


if __name__ == "__main__":
    main()
