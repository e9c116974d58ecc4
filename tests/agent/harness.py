"""Test harness for ejob-agent integration tests: a real etcd (Debian's etcd 3.4 with
--enable-v2) on free 127.0.0.1 ports, agents (ejob-agent or torchrun) as child processes with
their output in files, and small etcd v2 helpers. Everything started is stopped by close()."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
SYSTEM_PYTHON = "/usr/bin/python3"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Failure(Exception):
    pass


def check(cond, message):
    if not cond:
        raise Failure(message)


def wait_until(pred, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise Failure("timed out waiting for " + what)


def make_certificates(d):
    """A CA, a server certificate for 127.0.0.1 and a client certificate (openssl CLI)."""
    def run(*args):
        subprocess.run(["openssl"] + list(args), cwd=d, check=True, capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test-ca",
        "-keyout", "ca.key", "-out", "ca.crt")
    for name, ext in [("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")]:
        with open(os.path.join(d, name + ".ext"), "w") as f:
            f.write(ext + "\n")
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + name, "-keyout", name + ".key",
            "-out", name + ".csr")
        run("x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt")


class Etcd:
    def __init__(self, root, tls=False):
        self.dir = os.path.join(root, "etcd")
        os.makedirs(self.dir)
        self.tls = tls
        if tls:
            make_certificates(self.dir)
        self.port, self.peer = free_port(), free_port()
        self.proc = None
        self.start()

    def file(self, name):
        return os.path.join(self.dir, name)

    @property
    def endpoint(self):
        return "127.0.0.1:%d" % self.port

    def start(self):
        client = "%s://127.0.0.1:%d" % ("https" if self.tls else "http", self.port)
        peer = "http://127.0.0.1:%d" % self.peer
        log = open(os.path.join(self.dir, "etcd.log"), "a")
        tls = ["--cert-file=" + self.file("server.crt"), "--key-file=" + self.file("server.key"),
               "--trusted-ca-file=" + self.file("ca.crt"), "--client-cert-auth"] if self.tls else []
        self.proc = subprocess.Popen(
            ["etcd", "--enable-v2", "--name=t", "--data-dir=" + self.dir + "/data",
             "--listen-client-urls=" + client, "--advertise-client-urls=" + client,
             "--listen-peer-urls=" + peer, "--initial-advertise-peer-urls=" + peer,
             "--initial-cluster=t=" + peer, "--log-level=error", "--logger=zap"] + tls,
            stdout=log, stderr=log)
        wait_until(self._ready, 20, "etcd to start")

    def _ready(self):
        try:
            self.get("/")
            return True
        except OSError:
            return False

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()

    def url(self, key, **query):
        q = ("?" + urllib.parse.urlencode(query)) if query else ""
        scheme = "https" if self.tls else "http"
        return "%s://127.0.0.1:%d/v2/keys%s%s" % (scheme, self.port, key, q)

    def context(self):
        if not self.tls:
            return None
        import ssl
        ctx = ssl.create_default_context(cafile=self.file("ca.crt"))
        ctx.load_cert_chain(self.file("client.crt"), self.file("client.key"))
        return ctx

    def get(self, key, **query):
        try:
            with urllib.request.urlopen(self.url(key, **query), timeout=5, context=self.context()) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def put(self, key, **form):
        data = urllib.parse.urlencode(form).encode()
        req = urllib.request.Request(self.url(key), data=data, method="PUT")
        req.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with urllib.request.urlopen(req, timeout=5, context=self.context()) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def state(self, run_id, prefix="/torchelastic/p2p"):
        node = self.get("%s/run_%s/rdzv/active_version" % (prefix, run_id)).get("node")
        return json.loads(node["value"]) if node else None


class Agent:
    """One agent process; its stdout+stderr go to <root>/<name>.log."""

    def __init__(self, root, name, argv, env):
        self.name = name
        self.log_path = os.path.join(root, name + ".log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env=env,
                                     start_new_session=True)
        # What every process this agent starts inherits: its tag and the harness's TMPDIR.
        self.marks = {("%s=%s" % (k, env[k])).encode() for k in ("AGENT_TAG", "TMPDIR") if k in env}

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failure("%s did not exit within %d s; log:\n%s" % (self.name, timeout, self.output()))

    def output(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def kill_all(self):
        """A node lost: SIGKILL to the agent's process group and to every process with its
        environment (torchrun 2.x starts its workers in sessions of their own)."""
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.proc.wait()
        for pid in self.started_processes():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def started_processes(self):
        pids = []
        for entry in os.listdir("/proc"):
            try:
                with open("/proc/%s/environ" % entry, "rb") as f:
                    env = set(f.read().split(b"\0"))
            except (OSError, ValueError):
                continue
            if entry.isdigit() and self.marks and self.marks <= env:
                pids.append(int(entry))
        return pids


class Harness:
    def __init__(self, agent_binary):
        self.agent_binary = agent_binary
        self.root = tempfile.mkdtemp(prefix="ejob-agent-it-")
        self.out = os.path.join(self.root, "out")
        os.makedirs(self.out)
        self.tmp = os.path.join(self.root, "tmp")
        os.makedirs(self.tmp)
        self.etcd = None
        self.agents = []

    def start_etcd(self, tls=False):
        self.etcd = Etcd(self.root, tls)
        return self.etcd

    def env(self, tag, extra=None):
        env = dict(os.environ)
        # TMPDIR inside the harness's root: torchrun's (and the agent's) torchelastic_* log
        # folders go away with it instead of piling up in /tmp.
        env.update({"PYTHON_EXEC": SYSTEM_PYTHON, "AGENT_TAG": tag, "PYTHONDONTWRITEBYTECODE": "1",
                    # No real cloud metadata service in tests: the spot scenarios name a fake.
                    "EJOB_SPOT_NOTICES": "off",
                    "TMPDIR": self.tmp})
        env.update(extra or {})
        return env

    def ejob(self, tag, args, extra_env=None):
        a = Agent(self.root, tag, [self.agent_binary] + args, self.env(tag, extra_env))
        self.agents.append(a)
        return a

    def torchrun(self, tag, args, extra_env=None):
        argv = [SYSTEM_PYTHON, os.path.join(HERE, "torchrun_wrapper.py")] + args
        a = Agent(self.root, tag, argv, self.env(tag, extra_env))
        self.agents.append(a)
        return a

    def worker_args(self, *extra):
        return [os.path.join(HERE, "worker.py"), "--out", self.out] + list(extra)

    def records(self):
        out = []
        for name in sorted(os.listdir(self.out)):
            if name.endswith(".json"):
                with open(os.path.join(self.out, name)) as f:
                    out.append(json.load(f))
        return out

    def close(self, keep):
        for a in self.agents:
            a.kill_all()
        if self.etcd:
            self.etcd.stop()
        if keep:
            print("kept " + self.root)
        else:
            shutil.rmtree(self.root, ignore_errors=True)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open("/proc/%d/stat" % pid) as f:
        return f.read().split()[2] != "Z"


def run_scenarios(scenarios, argv, harness=None):
    """main(): agent_it.py AGENT_BINARY SCENARIO... (`harness`: a Harness subclass)"""
    binary, names = argv[1], argv[2:]
    failed = 0
    for name in names:
        h = (harness or Harness)(binary)
        start = time.time()
        try:
            scenarios[name](h)
            print("PASS %s (%.1f s)" % (name, time.time() - start))
            h.close(keep=False)
        except Exception as e:  # report every failure with the agents' logs
            failed += 1
            print("FAIL %s: %s" % (name, e))
            for a in h.agents:
                print("---- %s (exit %s) ----\n%s" % (a.name, a.proc.poll(), a.output()[-6000:]))
            h.close(keep=True)
    return 1 if failed else 0
