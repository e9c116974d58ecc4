"""ejob-agent in an image that is not this machine: the built agent, alone, copied into a Debian
11 minbase root (glibc 2.31, no libcurl, OpenSSL 1.1 instead of 3; scripts/peers.sh makes it
with debootstrap) and run there with chroot: the root's files only, the network shared. No
/proc or /dev is mounted there (the agent needs neither; and inside the fresh-machine chroot
a private mount namespace cannot be made, its / not being a mount point). Each scenario is a
real rendezvous of two agents whose workers are the root's /bin/sh: etcd (this machine's etcd on loopback), the same over HTTPS with client
certificates, and c10d (the TCPStore hosted by one of the agents); and --standalone, whose
worker must get a master it can reach although the machine's name does not resolve there.

Usage: old_glibc_it.py AGENT_BINARY DEBIAN11_ROOT SCENARIO...   (needs root: chroot)
"""
import os
import shutil
import subprocess
import sys
import tempfile

from harness import Agent, Failure, check, free_port, run_scenarios

# The worker: what a rank sees, one line per rank, in the job's folder inside the root.
WORKER = 'echo "rank=$RANK world=$WORLD_SIZE master=$MASTER_ADDR:$MASTER_PORT" > "$1/out.$RANK"\n'


class OldRoot:
    """A folder inside the Debian 11 root holding the agent and the worker, removed at close."""

    def __init__(self, root):
        self.root = root
        self.host_dir = tempfile.mkdtemp(prefix="ejob-agent-", dir=os.path.join(root, "tmp"))
        self.dir = "/tmp/" + os.path.basename(self.host_dir)  # the same folder, seen inside
        os.chmod(self.host_dir, 0o755)
        shutil.copy2(AGENT, os.path.join(self.host_dir, "ejob-agent"))
        with open(os.path.join(self.host_dir, "worker.sh"), "w") as f:
            f.write(WORKER)

    def copy_in(self, path):
        shutil.copy2(path, self.host_dir)
        return self.dir + "/" + os.path.basename(path)

    def argv(self, agent_args):
        return (["chroot", self.root, self.dir + "/ejob-agent"] + agent_args +
                ["--nproc_per_node=1", "--no_python", "/bin/sh", self.dir + "/worker.sh", self.dir])

    def ranks(self):
        lines = []
        for name in sorted(os.listdir(self.host_dir)):
            if name.startswith("out."):
                with open(os.path.join(self.host_dir, name)) as f:
                    lines.append(f.read().strip())
        return lines

    def close(self):
        shutil.rmtree(self.host_dir, ignore_errors=True)


def two_agents(h, old, agent_args):
    # TMPDIR: the agents' torchelastic_* log folders, inside the root.
    agents = [Agent(h.root, "a%d" % i, old.argv(agent_args), h.env("a%d" % i, {"TMPDIR": old.dir}))
              for i in range(2)]
    h.agents += agents
    for a in agents:
        code = a.wait(120)
        check(code == 0, "%s exited %s" % (a.name, code))
    ranks = old.ranks()
    check([r.split()[0] for r in ranks] == ["rank=0", "rank=1"], "ranks: %s" % ranks)
    check(all("world=2" in r for r in ranks), "world sizes: %s" % ranks)


def in_old_root(body):
    def scenario(h):
        old = OldRoot(ROOT)
        try:
            body(h, old)
        finally:
            old.close()
    scenario.__name__ = body.__name__
    return scenario


@in_old_root
def etcd(h, old):
    e = h.start_etcd()
    two_agents(h, old, ["--rdzv_backend=etcd", "--rdzv_endpoint=" + e.endpoint,
                        "--rdzv_id=old-glibc", "--nnodes=2", "--local_addr=127.0.0.1"])


@in_old_root
def etcd_https(h, old):
    e = h.start_etcd(tls=True)
    conf = "--rdzv_conf=protocol=https,cacert=%s,cert=%s,key=%s" % (
        old.copy_in(e.file("ca.crt")), old.copy_in(e.file("client.crt")),
        old.copy_in(e.file("client.key")))
    two_agents(h, old, ["--rdzv_backend=etcd", "--rdzv_endpoint=" + e.endpoint,
                        "--rdzv_id=old-glibc-tls", "--nnodes=2", "--local_addr=127.0.0.1", conf])


@in_old_root
def c10d(h, old):
    two_agents(h, old, ["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % free_port(),
                        "--rdzv_id=old-glibc-c10d", "--nnodes=2"])


@in_old_root
def standalone(h, old):
    """--standalone where the machine's name does not resolve (the root's /etc/hosts knows only
    localhost): the worker's master is the loopback, so a real worker could reach it."""
    agent = Agent(h.root, "s", old.argv(["--standalone"]), h.env("s", {"TMPDIR": old.dir}))
    h.agents.append(agent)
    code = agent.wait(60)
    check(code == 0, "standalone exited %s" % code)
    ranks = old.ranks()
    check(len(ranks) == 1 and ranks[0].startswith("rank=0 world=1 master=127.0.0.1:"),
          "worker saw %s" % ranks)


def check_root(root):
    """The root is what it claims: Debian 11's glibc 2.31, and none of the libraries ejob-agent
    would need if it were linked the ordinary way."""
    if os.geteuid() != 0:
        raise Failure("this test needs root (chroot): run the test command as root")
    if not os.path.isfile(os.path.join(root, ".ready")):
        raise Failure("no Debian 11 root at %s: run scripts/peers.sh" % root)
    version = subprocess.run(["chroot", root, "/lib/x86_64-linux-gnu/libc.so.6"],
                             capture_output=True, text=True).stdout
    check("release version 2.31." in version, "the root's glibc: " + version[:120])
    lib = os.path.join(root, "usr/lib/x86_64-linux-gnu")
    for missing in ("libcurl.so.4", "libssl.so.3", "libcrypto.so.3"):
        check(not os.path.exists(os.path.join(lib, missing)), missing + " is in the root")


if __name__ == "__main__":
    AGENT, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    try:
        check_root(ROOT)
    except Failure as e:
        print("FAIL: %s" % e)
        sys.exit(1)
    sys.exit(run_scenarios({"etcd": etcd, "etcd_https": etcd_https, "c10d": c10d,
                            "standalone": standalone},
                           [sys.argv[0], AGENT] + sys.argv[3:]))
