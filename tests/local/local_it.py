"""Integration tests of local jobs (`ejob submit --local`): the real ejob, ejob-agent, etcd and
Debian's python3-torch training examples/digits/train.py.

Usage: local_it.py EJOB_BINARY SCENARIO...   (CTest runs one scenario per test)

Each scenario gets its own state folder (XDG_STATE_HOME in a temporary folder); whatever a
scenario started is stopped at its end, also when it fails (every session the state names).
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "agent"))
from harness import Failure, check, pid_alive, wait_until  # noqa: E402

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
JOBFILE = os.path.join(REPO, "examples", "digits.yaml")
SCRIPT = os.path.join(REPO, "examples", "digits", "train.py")


def session_members(sid):
    """Live pids whose session is `sid` (what a node or the supervisor may have left)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] not in "ZX":
            out.append(int(entry))
    return out


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_bound(port):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


class Local:
    def __init__(self, ejob):
        self.ejob_binary = os.path.abspath(ejob)
        self.tmp = tempfile.mkdtemp(prefix="ejob-local-it-")
        self.env = dict(os.environ, XDG_STATE_HOME=os.path.join(self.tmp, "state"))
        self.env.pop("KUBECONFIG", None)
        self.env["HOME"] = self.tmp  # no ~/.kube/config: no cluster
        self.sessions = set()

    def ejob(self, *args, check_rc=0, cwd=REPO, env=None, timeout=300):
        try:
            p = subprocess.run([self.ejob_binary] + list(args), cwd=cwd, env=env or self.env,
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise Failure("ejob %s still running after %d s:\n%s" % (" ".join(args), timeout, (e.stdout or b"")[-3000:]))
        if check_rc is not None and p.returncode != check_rc:
            raise Failure("ejob %s exited %d, expected %d\nstdout:\n%s\nstderr:\n%s" % (
                " ".join(args), p.returncode, check_rc, p.stdout[-4000:], p.stderr[-4000:]))
        return p

    def submit(self, name, *extra, epochs=20, **kw):
        p = self.ejob("submit", JOBFILE, "--local", "--exact-name", "--name", name, *extra,
                      "--", "examples/digits/train.py", "--epochs=%d" % epochs, **kw)
        if p.returncode == 0:
            self.remember(name)
        return p

    def dir(self, name):
        return os.path.join(self.env["XDG_STATE_HOME"], "ejob", "local", name)

    def state(self, name):
        with open(os.path.join(self.dir(name), "state.json")) as f:
            return json.load(f)

    def remember(self, name):
        try:
            s = self.state(name)
        except (OSError, ValueError):  # gone, or damaged on purpose
            return
        self.sessions |= {p for p in [s["supervisorPid"], s["etcdPid"]] + [n["pid"] for n in s["nodes"]] if p}

    def logs(self, name):
        return self.ejob("logs", name).stdout

    def node_pid(self, name, index):
        return next(n["pid"] for n in self.state(name)["nodes"] if n["index"] == index)

    def wait_log(self, name, pattern, timeout=120):
        return wait_until(lambda: re.search(pattern, self.logs(name)), timeout, "/%s/ in the logs of %s" % (pattern, name))

    def close(self):
        for name in os.listdir(os.path.join(self.env["XDG_STATE_HOME"], "ejob", "local")) \
                if os.path.isdir(os.path.join(self.env["XDG_STATE_HOME"], "ejob", "local")) else []:
            self.remember(name)
            self.ejob("delete", name, check_rc=None)
        for sid in self.sessions:
            for pid in session_members(sid):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(self.tmp, ignore_errors=True)


def accuracy(logs):
    m = re.search(r"test accuracy ([0-9.]+)", logs)
    check(m, "no test accuracy in the logs:\n" + logs[-3000:])
    return float(m.group(1))


def completes(t):
    """A job trains to the end: --wait exits 0, the accuracy is good, describe says so."""
    p = t.submit("dg", "--wait")
    check("runs locally (2 nodes" in p.stdout, p.stdout)
    check("not used" in p.stderr and "image" in p.stderr, "the image note: " + p.stderr)
    check(accuracy(t.logs("dg")) >= 0.9, "accuracy")
    d = t.ejob("describe", "dg").stdout
    check(re.search(r"Status:\s+Succeeded", d) and "JobSucceeded" in d, d)
    lst = t.ejob("list").stdout.splitlines()
    check(lst[0].split()[-2:] == ["WHERE", "ENGINE"] and lst[1].split()[:2] == ["dg", "Succeeded"]
          and lst[1].split()[-2:] == ["local", "elasticjob"], lst)
    one = t.ejob("logs", "dg", "-w", "1", "--no-prefix").stdout
    check(one and "[worker-" not in one and one in t.logs("dg").replace("[worker-1] ", ""), "-w 1 --no-prefix")
    check("local job" in t.ejob("logs", "dg", "--tail", "5", check_rc=2).stderr, "--tail refused")
    described = json.loads(t.ejob("describe", "dg", "-o", "json").stdout)
    check(described["status"]["conditions"][0]["type"] == "Succeeded", described)
    listed = json.loads(t.ejob("list", "-o", "json").stdout)["items"]
    check([j["metadata"]["name"] for j in listed] == ["dg"], listed)


def follow_exits_with_the_result(t):
    """submit --follow prints every worker's lines, prefixed, and ends with the job."""
    p = t.submit("dg", "--follow")
    lines = p.stdout.splitlines()
    check(any(l.startswith("[worker-0] test accuracy") or l.startswith("[worker-1] test accuracy") for l in lines), p.stdout[-2000:])
    check(all(l.startswith("[worker-") for l in lines[4:]), "unprefixed line")
    check("succeeded" in p.stderr, p.stderr)


def kill9_resumes_from_the_checkpoint(t):
    """kill -9 of one node's agent: the node is started again, both re-form a round, and
    training goes on from the last checkpoint (the epoch is read from the log)."""
    t.submit("dg", epochs=40)
    t.wait_log("dg", r"epoch 5/40")
    victim = t.node_pid("dg", 1)
    os.kill(victim, signal.SIGKILL)
    end = t.ejob("logs", "dg", "-f", timeout=200)
    resumed = [int(x) for x in re.findall(r"resumed from epoch (\d+)", end.stdout)]
    check(resumed and min(resumed) >= 5, "resumed from %s" % resumed)
    check("(checkpoint %s/checkpoints/" % t.dir("dg") in end.stdout, "checkpoints in the job's folder")
    check(accuracy(end.stdout) >= 0.9, "accuracy")
    node = [n for n in t.state("dg")["nodes"] if n["index"] == 1][0]
    check(node["restarts"] == 1 and node["status"] == "succeeded", node)
    check("NodeRestarted" in t.ejob("describe", "dg").stdout, "event")


def scale_up_and_down(t):
    """One node, then two (a new round with both), then one again."""
    t.submit("dg", "--set", "workers.replicas=1", epochs=100000)
    t.wait_log("dg", r"epoch 2/")
    check("scaled to 2 nodes" in t.ejob("scale", "dg", "--workers", "2").stdout, "scale up")
    wait_until(lambda: "2 participants" in t.ejob("describe", "dg").stdout and
               re.search(r"round [2-9]\d* final", t.ejob("describe", "dg").stdout), 90, "a round of 2")
    t.wait_log("dg", r"world 2")
    t.ejob("scale", "dg", "--workers", "1")
    wait_until(lambda: [n["status"] for n in t.state("dg")["nodes"]] == ["running", "removed"], 60, "worker-1 removed")
    def last_epoch_line():
        lines = [l for l in t.logs("dg").splitlines() if re.match(r"\[worker-0\] epoch \d+/", l)]
        return lines[-1] if lines else ""
    wait_until(lambda: " world 1 " in last_epoch_line(), 120, "worker-0 training alone again")
    check(t.ejob("scale", "dg", "--workers", "3", check_rc=2).stderr.find("outside") > 0, "3 of max 2")
    t.remember("dg")
    t.ejob("delete", "dg")


def delete_leaves_nothing(t):
    """delete stops every process of the job (by session, workers included), frees its etcd
    port and removes its folder; --keep keeps the folder."""
    t.submit("dg", epochs=100000)
    t.wait_log("dg", r"epoch 1/")
    s = t.state("dg")
    sessions = [s["supervisorPid"], s["etcdPid"]] + [n["pid"] for n in s["nodes"]]
    pids = [p for sid in sessions for p in session_members(sid)]
    check(len(pids) >= 5, "supervisor, etcd, 2 agents, 2 workers: %s" % pids)
    port = int(s["etcdEndpoint"].rsplit(":", 1)[1])
    check("deleted" in t.ejob("delete", "dg").stdout, "delete")
    check(not [p for p in pids if pid_alive(p)], "alive after delete: %s" % [p for p in pids if pid_alive(p)])
    check(not port_bound(port), "etcd port still bound")
    check(not os.path.exists(t.dir("dg")), "state folder left")
    t.submit("kept", epochs=100000)
    t.ejob("delete", "kept", "--keep")
    check(os.path.exists(os.path.join(t.dir("kept"), "events.jsonl")), "--keep")
    check("Stopped" in t.ejob("describe", "kept").stdout, "a kept job is Stopped")
    t.ejob("logs", "kept", "-f", check_rc=1)


def outlives_the_submitter(t):
    """The job is detached: the ejob that submitted it, its session and terminal gone, it runs
    on (the supervisor is in a session of its own)."""
    p = subprocess.Popen([t.ejob_binary, "submit", JOBFILE, "--local", "--exact-name", "--name", "dg",
                          "--", "examples/digits/train.py", "--epochs=20"],
                         cwd=REPO, env=t.env, start_new_session=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.communicate(timeout=60)
    os.killpg(p.pid, signal.SIGHUP) if session_members(p.pid) else None
    t.remember("dg")
    s = t.state("dg")
    check(s["supervisorPid"] != p.pid and not session_members(p.pid), "the submitter's session is empty")
    check(pid_alive(s["supervisorPid"]), "supervisor alive")
    end = t.ejob("logs", "dg", "-f", timeout=300)
    check(accuracy(end.stdout) >= 0.9, "finished")


def two_jobs_at_once(t):
    """Two jobs side by side (one local by --local, one by `backend: local`): own names, own
    etcd ports, own folders; both succeed."""
    a = subprocess.Popen([t.ejob_binary, "submit", JOBFILE, "--local", "--wait"], cwd=REPO, env=t.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    b = subprocess.Popen([t.ejob_binary, "submit", JOBFILE, "--set", "backend=local", "--wait"], cwd=REPO, env=t.env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    outs = [x.communicate(timeout=400) for x in (a, b)]
    check(a.returncode == 0 and b.returncode == 0, outs)
    names = [re.search(r'elasticjob "([^"]+)"', o[0]).group(1) for o in outs]
    check(names[0] != names[1], names)
    ports = {t.state(n)["etcdEndpoint"] for n in names}
    check(len(ports) == 2, ports)
    for n in names:
        check(accuracy(t.logs(n)) >= 0.9, n)


def damaged_state_is_named(t):
    """A state file damaged on purpose: a clear error naming the file, exit 3."""
    t.submit("dg", "--wait")
    path = os.path.join(t.dir("dg"), "state.json")
    with open(path, "w") as f:
        f.write('{"name": "dg", "phase": ')
    p = t.ejob("describe", "dg", check_rc=3)
    check(path in p.stderr and "damaged" in p.stderr, p.stderr)
    p = t.ejob("list")
    check(path in p.stderr, "list warns: " + p.stderr)


def bad_input(t):
    """Refusals before anything starts, each naming the cause, with the documented codes."""
    p = t.ejob("submit", JOBFILE, "--local", "--workers", "0", check_rc=2)
    check("--workers" in p.stderr, p.stderr)
    p = t.ejob("submit", JOBFILE, "--local", "--", "examples/nope.py", check_rc=3)
    check("examples/nope.py" in p.stderr and "does not exist" in p.stderr, p.stderr)
    no_etcd = dict(t.env, PATH=os.path.join(t.tmp, "empty-bin"))
    os.makedirs(no_etcd["PATH"], exist_ok=True)
    p = t.ejob("submit", JOBFILE, "--local", env=no_etcd, check_rc=8)
    check("etcd-server" in p.stderr, p.stderr)
    p = t.ejob("submit", JOBFILE, check_rc=3)
    check("--local" in p.stderr and "kubeconfig" in p.stderr, p.stderr)
    p = t.ejob("submit", JOBFILE, "--local", env=dict(t.env, PYTHON_EXEC="/nonexistent/python3"), check_rc=8)
    check("/nonexistent/python3" in p.stderr and "python3-torch" in p.stderr, p.stderr)
    for cmd in (["logs", "nope"], ["describe", "nope"], ["delete", "nope"]):
        t.ejob(*cmd, "--context", "local", check_rc=8)
    check(not os.listdir(os.path.join(t.env["XDG_STATE_HOME"], "ejob", "local")) if
          os.path.isdir(os.path.join(t.env["XDG_STATE_HOME"], "ejob", "local")) else True, "nothing left")


def failing_script_fails_the_job(t):
    """A script that exits 1 at once: the job fails with that code, no restart storm (the
    agent's max restarts, then the node fails and the job with it)."""
    work = os.path.join(t.tmp, "work")
    os.makedirs(work)
    with open(os.path.join(work, "fail.py"), "w") as f:
        f.write("import sys\nprint('failing on purpose', flush=True)\nsys.exit(1)\n")
    p = t.ejob("submit", JOBFILE, "--local", "--exact-name", "--name", "bad", "--wait",
               "--set-string", "env.PET_MAX_RESTARTS=1", "--", "fail.py",
               cwd=work, check_rc=1)
    t.remember("bad")
    check("exit code 1" in p.stderr, p.stderr)
    s = t.state("bad")
    check(s["phase"] == "Failed" and s["exitCode"] == 1, s)
    check(all(n["restarts"] == 0 for n in s["nodes"]), "nodes restarted: %s" % s["nodes"])
    runs = t.logs("bad").count("failing on purpose")
    check(runs <= 2 * 2 * 2, "restart storm: %d runs of the script" % runs)


def runs_without_an_image(t):
    """`submit --local -- SCRIPT` needs no -i: the image is not used here, so none is asked for
    (a cluster submit still needs one), and no note names an image."""
    work = os.path.join(t.tmp, "work")
    os.makedirs(work)
    with open(os.path.join(work, "hello.py"), "w") as f:
        f.write("import os\nprint('hello from rank', os.environ['RANK'], flush=True)\n")
    p = t.ejob("submit", "--local", "--exact-name", "--name", "hello", "--wait", "--", "hello.py",
               cwd=work)
    t.remember("hello")
    check("image" not in p.stderr, "an image note without an image: " + p.stderr)
    check("hello from rank 0" in t.logs("hello"), t.logs("hello"))
    refused = t.ejob("submit", "--dry-run=client", "--", "hello.py", cwd=work, check_rc=2)
    check("image: the worker image is required" in refused.stderr, refused.stderr)


def evict_is_a_spot_drill(t):
    """evict: SIGTERM, SIGKILL after the grace; the node comes back (as a preempted pod is
    recreated) and the job finishes."""
    t.submit("dg", epochs=40)
    t.wait_log("dg", r"epoch 3/")
    check("evicted" in t.ejob("evict", "dg", "--worker", "1", "--grace", "2").stdout, "evict")
    end = t.ejob("logs", "dg", "-f", timeout=200)
    check(accuracy(end.stdout) >= 0.9, "finished")
    node = [n for n in t.state("dg")["nodes"] if n["index"] == 1][0]
    check(node["evictions"] == 1 and node["restarts"] == 1, node)
    check("NodeEvicted" in t.ejob("describe", "dg").stdout, "event")
    t.ejob("evict", "dg", "--worker", "7", check_rc=8)


def notice_hands_over_without_losing_steps(t):
    """evict --notice on a 3-node job: worker 1's VM gets Azure's Preempt event through the
    metadata service its agent found; its worker checkpoints the model at the notice and
    leaves, the survivors re-form and resume from that very checkpoint (no step lost), the
    node comes back as a new VM and joins; describe counts one preemption and no failure,
    `submit --wait --max-preemptions 1` exits 0 and nothing of the job is left running."""
    waiter = subprocess.Popen(
        [t.ejob_binary, "submit", JOBFILE, "--local", "--exact-name", "--name", "sp", "--workers",
         "2:3", "--set", "workers.replicas=3", "--wait", "--max-preemptions", "1", "--",
         "examples/digits/train.py", "--epochs=60"],
        cwd=REPO, env=t.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: os.path.exists(os.path.join(t.dir("sp"), "state.json")), 60, "job sp")
        t.wait_log("sp", r"epoch 5/60")
        t.remember("sp")
        wrong = t.ejob("evict", "sp", "--worker", "1", "--notice", "--provider", "gce", check_rc=2)
        check("are azure VMs" in wrong.stderr, wrong.stderr)
        sent = t.ejob("evict", "sp", "--worker", "1", "--notice").stdout
        check("got a preemption notice (azure); its VM is reclaimed in 30 s" in sent, sent)
        out, err = waiter.communicate(timeout=300)
    finally:
        waiter.kill()
    check(waiter.returncode == 0, "submit --wait exited %d: %s" % (waiter.returncode, err[-2000:]))
    logs = t.logs("sp")
    saved = re.search(r"\[worker-1\] preemption notice \(azure Preempt, the VM goes at [^)]*\): "
                      r"saved the model after epoch (\d+)", logs)
    check(saved, "no checkpoint at the notice:\n" + logs[-4000:])
    resumed = [int(x) for x in re.findall(r"resumed from epoch (\d+)", logs)]
    check(resumed and resumed[0] == int(saved.group(1)), "resumed from %s, saved at the notice %s"
          % (resumed, saved.group(1)))
    check(accuracy(logs) >= 0.9, "accuracy")
    node = [n for n in t.state("sp")["nodes"] if n["index"] == 1][0]
    check(node["evictions"] == 1 and node["notices"] == 1 and node["status"] == "succeeded", node)
    d = t.ejob("describe", "sp").stdout
    check(re.search(r"Preemptions:\s+1 \(1 announced by a notice\)", d)
          and re.search(r"Failures:\s+0", d) and "PreemptionNotice" in d, d)
    for sid in t.sessions:
        check(not session_members(sid), "processes of session %d outlived the job" % sid)


def notice_in_each_clouds_format(t):
    """--spot gke / eks: the nodes are GCE / AWS VMs; their agents find that cloud on the local
    metadata service (GCE's long-poll on instance/preempted, AWS's IMDSv2 token) and hand over
    on its notice."""
    for spot, cloud, said in (("gke", "gce", r"gce announces PREEMPTED"),
                              ("eks", "aws", r"aws announces terminate")):
        name = "n" + cloud
        t.submit(name, "--spot", spot, epochs=100000)
        t.wait_log(name, r"epoch 2/")
        sent = t.ejob("evict", name, "--worker", "1", "--notice", "--grace", "20").stdout
        check("preemption notice (%s)" % cloud in sent, sent)
        wait_until(lambda: [n for n in t.state(name)["nodes"] if n["index"] == 1][0]["notices"] == 1,
                   60, "worker-1 of %s preempted" % name)
        logs = t.logs(name)
        check(re.search(said, logs), "the %s notice in the agent's log:\n%s" % (cloud, logs[-3000:]))
        check("preemption handed over; exiting 143" in logs, logs[-3000:])
        t.ejob("delete", name)


def max_preemptions_gives_up(t):
    """--wait --max-preemptions 0: the first preemption ends the wait with exit 10, naming the
    count and how to stop the job, which goes on."""
    waiter = subprocess.Popen(
        [t.ejob_binary, "submit", JOBFILE, "--local", "--exact-name", "--name", "mp", "--wait",
         "--max-preemptions", "0", "--", "examples/digits/train.py", "--epochs=100000"],
        cwd=REPO, env=t.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: os.path.exists(os.path.join(t.dir("mp"), "state.json")), 60, "job mp")
        t.wait_log("mp", r"epoch 2/")
        t.remember("mp")
        t.ejob("evict", "mp", "--worker", "0", "--notice", "--grace", "5")
        out, err = waiter.communicate(timeout=120)
    finally:
        waiter.kill()
    check(waiter.returncode == 10, "exit %d: %s" % (waiter.returncode, err))
    check("preempted 1 time, more than --max-preemptions 0" in err and "ejob delete mp" in err, err)
    check(t.state("mp")["phase"] == "Running", t.state("mp"))


def supervisor_lost_ends_the_job_cleanly(t):
    """kill -9 of a job's supervisor: its nodes get SIGTERM with it (their workers checkpoint),
    and the next look at the job — list, describe, logs -f — ends it as Failed with the reason;
    no process of the job is left."""
    t.submit("sl", epochs=400)
    t.wait_log("sl", r"epoch 3/400")
    state = t.state("sl")
    os.kill(state["supervisorPid"], signal.SIGKILL)
    wait_until(lambda: not any(session_members(n["pid"]) for n in state["nodes"]), 60,
               "the nodes ending with their supervisor")
    listed = t.ejob("list").stdout.splitlines()
    check(listed[1].split()[:2] == ["sl", "Failed"], listed)
    d = t.ejob("describe", "sl").stdout
    check("SupervisorLost" in d and "was lost; its nodes were stopped" in d, d)
    check(re.search(r"SIGTERM: saved the model after epoch \d+", t.logs("sl")), "no checkpoint at SIGTERM")
    follow = t.ejob("logs", "sl", "-f", check_rc=1)
    check("was lost" in follow.stderr, follow.stderr)
    for sid in [state["supervisorPid"], state["etcdPid"]] + [n["pid"] for n in state["nodes"]]:
        check(not session_members(sid), "session %d outlived its supervisor" % sid)


def pytorchjob_trains_with_c10d_on_node_0(t):
    """--engine pytorchjob: training-operator's semantics here — c10d, no etcd, node 0 hosts
    the store (PET_* as the operator sets them) — and the job trains to the end."""
    p = t.submit("pj", "--engine", "pytorchjob", "--wait", epochs=5)
    check(re.search(r'pytorchjob "pj" runs locally \(2 nodes, c10d store 127\.0\.0\.1:\d+ on node 0\)', p.stdout), p.stdout)
    state = t.state("pj")
    check(state["etcdPid"] == 0 and state["engine"] == "pytorchjob", state)
    check(accuracy(t.logs("pj")) >= 0.8, "accuracy")
    d = t.ejob("describe", "pj").stdout
    check(re.search(r"Engine:\s+pytorchjob", d) and "c10d store" in d, d)
    check(t.ejob("list").stdout.splitlines()[1].split()[-1] == "pytorchjob", "ENGINE column")


def trainjob_trains_static(t):
    """--engine trainjob: Trainer's static world — PET_NNODES, PET_NODE_RANK, node 0 the master,
    no etcd — trains to the end; an elastic range is refused before anything runs."""
    p = t.submit("tj", "--engine", "trainjob", "--workers", "2", "--wait", epochs=5)
    check(re.search(r'trainjob "tj" runs locally \(2 nodes, static, master 127\.0\.0\.1:\d+ \(node 0\)\)', p.stdout), p.stdout)
    check(t.state("tj")["etcdPid"] == 0, t.state("tj"))
    check(accuracy(t.logs("tj")) >= 0.8, "accuracy")
    refused = t.submit("tj2", "--engine", "trainjob", check_rc=3)
    check("workers: engine trainjob runs a static world size" in refused.stderr, refused.stderr)


def torchrun_and_agent_share_a_pytorchjob_rendezvous(t):
    """Under PyTorchJob's env, a real torchrun (Debian's python3-torch) and an ejob-agent form
    one c10d round and all-reduce through gloo: the agent on node 0 hosts the store."""
    work = os.path.join(t.tmp, "mixed")
    os.makedirs(work)
    script = os.path.join(work, "allreduce.py")
    with open(script, "w") as f:
        f.write("import torch, torch.distributed as dist\n"
                "dist.init_process_group('gloo')\n"
                "x = torch.tensor([dist.get_rank() + 1.0])\n"
                "dist.all_reduce(x)\n"
                "print('allreduce', int(x.item()), 'world', dist.get_world_size(), flush=True)\n")
    port = free_port()
    common = dict(os.environ, PET_RDZV_BACKEND="c10d", PET_RDZV_ENDPOINT="127.0.0.1:%d" % port,
                  PET_RDZV_ID="mixed", PET_NNODES="2", PET_NPROC_PER_NODE="1",
                  PYTHON_EXEC="/usr/bin/python3")  # Debian's python3-torch, as the peer's
    agent = os.path.join(os.path.dirname(t.ejob_binary), "ejob-agent")
    host = subprocess.Popen([agent, "--local_addr=127.0.0.1", script], cwd=work,
                            env=dict(common, PET_RDZV_CONF="is_host=1"), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    # Debian's torch 1.13 on Python 3.11 needs tests/agent/torchrun_wrapper.py (its docstring).
    wrapper = os.path.join(REPO, "tests", "agent", "torchrun_wrapper.py")
    peer = subprocess.Popen(["/usr/bin/python3", wrapper, "--local_addr=127.0.0.1", script], cwd=work, env=dict(common, PET_RDZV_CONF="is_host=0"),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    outs = []
    for proc in (host, peer):
        try:
            outs.append(proc.communicate(timeout=120)[0])
        finally:
            proc.kill()
    for proc, out in zip((host, peer), outs):
        check(proc.returncode == 0 and "allreduce 3 world 2" in out, out[-3000:])


SCENARIOS = {f.__name__: f for f in [
    pytorchjob_trains_with_c10d_on_node_0, trainjob_trains_static,
    torchrun_and_agent_share_a_pytorchjob_rendezvous,
    completes, follow_exits_with_the_result, kill9_resumes_from_the_checkpoint, scale_up_and_down,
    delete_leaves_nothing, outlives_the_submitter, two_jobs_at_once, damaged_state_is_named,
    bad_input, failing_script_fails_the_job, runs_without_an_image, evict_is_a_spot_drill,
    notice_hands_over_without_losing_steps, notice_in_each_clouds_format, max_preemptions_gives_up,
    supervisor_lost_ends_the_job_cleanly]}


def main(argv):
    failed = 0
    for name in argv[2:]:
        t = Local(argv[1])
        start = time.time()
        try:
            SCENARIOS[name](t)
            print("PASS %s (%.1f s)" % (name, time.time() - start))
        except Exception as e:  # report with the jobs' logs
            failed += 1
            print("FAIL %s: %s" % (name, e))
            root = os.path.join(t.env["XDG_STATE_HOME"], "ejob", "local")
            for job in os.listdir(root) if os.path.isdir(root) else []:
                print("---- %s ----" % job)
                print(t.ejob("describe", job, check_rc=None).stdout)
                print(t.logs(job)[-4000:] if t.ejob("logs", job, check_rc=None).returncode == 0 else "")
        finally:
            t.close()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
