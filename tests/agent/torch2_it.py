"""ejob-agent beside real torchrun 2.6 agents: everything runs in the Debian 13 root that
scripts/peers.sh makes (python3-torch 2.6), with in_torch2_root.sh (chroot, this machine's
network): the built ejob-agent (static) and the test files are copied into a folder of the root.
ejob-agent detects torch 2.6 from the root's python3 (no --torch_version). Workers all-reduce
with gloo over the store the group-rank-0 agent hosts for them (TORCHELASTIC_USE_AGENT_STORE).

Usage: torch2_it.py AGENT_BINARY TORCH2_ROOT SCENARIO...   (needs root: chroot)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Agent, Harness, check, free_port, run_scenarios, wait_until  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
IN_ROOT = os.path.join(HERE, "in_torch2_root.sh")


class Torch2Harness(Harness):
    """A Harness whose folder is inside the root; agents start there through chroot."""

    def __init__(self, agent_binary):
        super().__init__(agent_binary)
        shutil.rmtree(self.root)
        self.root = tempfile.mkdtemp(prefix="ejob-t2-", dir=os.path.join(ROOT, "tmp"))
        os.chmod(self.root, 0o755)
        self.inside = "/tmp/" + os.path.basename(self.root)  # the same folder, seen inside
        for d in ("out", "tmp"):
            os.makedirs(os.path.join(self.root, d))
        self.out = os.path.join(self.root, "out")
        shutil.copy2(agent_binary, os.path.join(self.root, "ejob-agent"))
        for f in ("gloo_allreduce.py", "gloo_elastic.py"):
            shutil.copy2(os.path.join(HERE, f), self.root)
        shutil.copytree(os.path.join(HERE, "torch2_site"), os.path.join(self.root, "site"))

    def env(self, tag, extra=None):
        # site/: Debian's torch 2.6 has no libuv (torch2_site/sitecustomize.py); USE_LIBUV=0
        # for env:// workers that host their own store (legacy etcd: no agent store), which
        # pass use_libuv explicitly from it.
        return {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "AGENT_TAG": tag, "USE_LIBUV": "0",
                "PYTHONPATH": self.inside + "/site", "PYTHONDONTWRITEBYTECODE": "1",
                "TMPDIR": self.inside + "/tmp", "PYTHON_EXEC": "/usr/bin/python3"}

    def start(self, tag, argv, extra_env=None):
        a = Agent(self.root, tag, [IN_ROOT, ROOT] + argv, dict(self.env(tag), **(extra_env or {})))
        self.agents.append(a)
        return a

    def ejob(self, tag, args, extra_env=None):
        return self.start(tag, [self.inside + "/ejob-agent"] + args, extra_env)

    def torchrun(self, tag, args, extra_env=None):
        return self.start(tag, ["/usr/bin/python3", "-m", "torch.distributed.run"] + args, extra_env)

    def worker(self, world):
        return [self.inside + "/gloo_allreduce.py", "--out", self.inside + "/out",
                "--expect-world", str(world)]


def mixed(h, backend, ejob_hosts, env=None):
    """2 ejob-agents + 2 torchrun 2.6 agents in one rendezvous (--nnodes=4); the first agent
    started hosts the c10d store, the others say is_host=0 as agents on other machines would.
    `env` is added to every agent's environment."""
    common = ["--local-addr=127.0.0.1"] + backend + ["--nnodes=4"]
    client = ["--rdzv-conf=is_host=0"] if "--rdzv-backend=c10d" in backend else []
    order = [(h.ejob, "ejob"), (h.torchrun, "torchrun")]
    if not ejob_hosts:
        order.reverse()
    for n, (start, kind) in enumerate(order):
        for i in range(2):
            start("%s%d" % (kind, i), common + ([] if n == 0 and i == 0 else client) + h.worker(4),
                  env)
            time.sleep(0.5)
    for a in h.agents:
        rc = a.wait(150)
        check(rc == 0, "%s exited %s" % (a.name, rc))
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1, 2, 3], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 10.0 and r["world"] == 4 for r in recs), "all-reduce %s" % recs)
    check(all(r["master_addr"] == "127.0.0.1" for r in recs), "--local-addr published %s" % recs)
    ejob_log = h.agents[0 if ejob_hosts else 2].output()
    check("the workers' python has torch 2.6" in ejob_log, "torch 2.6 detected:\n" + ejob_log[-2000:])


def c10d_ejob_hosts(h):
    mixed(h, ["--rdzv-backend=c10d", "--rdzv-endpoint=127.0.0.1:%d" % free_port(),
              "--rdzv-id=t2ejob"], True)


def c10d_torchrun_hosts(h):
    mixed(h, ["--rdzv-backend=c10d", "--rdzv-endpoint=127.0.0.1:%d" % free_port(),
              "--rdzv-id=t2torch"], False)


def c10d_workers_identical(h):
    """TORCH_ELASTIC_WORKER_IDENTICAL=1 on every agent: torch 2.x's agents skip the role_info
    exchange (group rank 0 writes no assigned_ranks), so an agent still doing it would wait
    for ever; all four must take ranks from their group rank alone."""
    mixed(h, ["--rdzv-backend=c10d", "--rdzv-endpoint=127.0.0.1:%d" % free_port(),
              "--rdzv-id=t2ident"], False, {"TORCH_ELASTIC_WORKER_IDENTICAL": "1"})


def wait_for_store_key(port, key, timeout=90):
    """Waits, with torch's own TCPStore client (the host's torch 1.13), until the c10d store at
    127.0.0.1:PORT holds `key`: the agent hosting it has then written its rendezvous state (a
    fixed sleep was not enough where the agent's look at the workers' python took over 2 s)."""
    code = ("import datetime, sys, torch.distributed as d; "
            "s = d.TCPStore('127.0.0.1', int(sys.argv[1]), None, False, "
            "datetime.timedelta(seconds=%d)); s.wait([sys.argv[2]])" % timeout)
    subprocess.run(["/usr/bin/python3", "-c", code, str(port), key], check=True,
                   timeout=timeout + 30)


def dialect_mismatch(h):
    """An ejob-agent told --torch_version=1.13 joins a run whose state a 2.6 agent wrote: it
    exits 1 naming both dialects instead of writing a state the 2.x agents could not read."""
    port = free_port()
    backend = ["--rdzv-backend=c10d", "--rdzv-endpoint=127.0.0.1:%d" % port,
               "--rdzv-id=t2mix", "--nnodes=2", "--local-addr=127.0.0.1"]
    h.ejob("ejob2x", backend + h.worker(2))
    wait_for_store_key(port, "torch.rendezvous.t2mix")  # it has written its 2.x state
    old = h.ejob("ejob113", backend + ["--rdzv-conf=is_host=0", "--torch_version=1.13"] +
                 h.worker(2))
    rc = old.wait(60)
    check(rc == 1, "the 1.13 agent exited %s" % rc)
    check("the rendezvous state is torch 2.x's; this agent speaks torch 1.13's" in old.output(),
          "its message:\n" + old.output()[-1500:])


def c10d_node_lost(h):
    """--nnodes=2:3 over c10d: an ejob-agent (hosting the store), a torchrun 2.6 agent and a
    second ejob-agent train in a world of 3; the second ejob-agent is SIGKILLed with its worker.
    The host drops it when its store connection closes, the survivors re-rendezvous and,
    with a last call of an hour, complete the round of 2 by ejob's fast_reform (every
    connected node joined), and finish in a world of 2 (over the workers' store the first
    round's group rank 0 still hosts)."""
    first = lose_a_node(h, ["--rdzv-backend=c10d", "--rdzv-endpoint=127.0.0.1:%d" % free_port(),
                            "--rdzv-id=t2loss"], "", ",is_host=0", last_call=3600)
    out = first.output()
    check(re.search(r"rendezvous: node \S+ left \(its store connection closed\)", out),
          out[-1500:])


def c10d_torchrun_node_lost(h):
    """c10d_node_lost with the torchrun 2.6 agent lost (an ejob-agent survives): the host
    knows the torchrun agent's connection by the heartbeats it writes."""
    first = lose_a_node(h, ["--rdzv-backend=c10d", "--rdzv-endpoint=127.0.0.1:%d" % free_port(),
                            "--rdzv-id=t2tloss"], "", ",is_host=0", last_call=3600,
                        victim="torchrun")
    out = first.output()
    check(re.search(r"rendezvous: node \S+ left \(its store connection closed\)", out),
          out[-1500:])


def lose_a_node(h, backend, host_conf, client_conf, last_call=2, victim="ejob"):
    """The node-lost scenario over BACKEND; the first agent's rdzv conf gets HOST_CONF, the
    others' CLIENT_CONF; the third agent (an ejob-agent, or a torchrun agent with
    VICTIM="torchrun") is lost. Returns the first agent."""
    common = ["--local-addr=127.0.0.1"] + backend + ["--nnodes=2:3", "--max-restarts=3"]
    conf = "--rdzv-conf=last_call_timeout=%d" % last_call
    worker = [h.inside + "/gloo_elastic.py", "--out", h.inside + "/out", "--final-world", "2"]
    first = h.ejob("ejob0", common + [conf + host_conf] + worker)
    time.sleep(0.5)
    joiner = [conf + client_conf] + worker
    if victim == "ejob":
        survivor = h.torchrun("torchrun1", common + joiner)
        dead = h.ejob("ejob2", common + joiner)
    else:
        survivor = h.ejob("ejob1", common + joiner)
        dead = h.torchrun("torchrun2", common + joiner)
    wait_until(lambda: len([r for r in h.records() if r["world"] == 3]) == 3, 90, "a world of 3")
    dead.kill_all()
    for a in (first, survivor):
        rc = a.wait(150)
        check(rc == 0, "%s exited %s" % (a.name, rc))
    finals = [r for r in h.records() if r["world"] == 2]
    check(sorted(r["rank"] for r in finals) == [0, 1], "world of 2 %s" % finals)
    check(all(r["ok"] and r["sum"] == 3.0 for r in finals), "all-reduce %s" % finals)
    check({r["agent"] for r in finals} == {"ejob0", survivor.name}, "survivors %s" % finals)
    return first


def node_lost_v2(h):
    """c10d_node_lost over etcd-v2: the state in etcd, the workers' store hosted by the first
    round's group rank 0 (an agent that survives)."""
    e = h.start_etcd()
    lose_a_node(h, ["--rdzv-backend=etcd-v2", "--rdzv-endpoint=" + e.endpoint,
                    "--rdzv-id=t2v2loss"], "", "")


def c10d_worker_crash(h):
    """An ejob-agent (hosting both stores) and a torchrun 2.6 agent, --max-restarts=1: rank 1
    exits 3 once, after the first all-reduce. Both re-rendezvous and the second attempt's world
    of 2 all-reduces over the same shared workers' store, which the ejob-agent emptied for the
    new round: with torchrun 2.6 hosting it (two torchrun agents alone) the first attempt's
    keys stay and the second attempt hangs or fails in 2 of 3 runs here."""
    common = ["--local-addr=127.0.0.1", "--rdzv-backend=c10d",
              "--rdzv-endpoint=127.0.0.1:%d" % free_port(), "--rdzv-id=t2crash", "--nnodes=2",
              "--max-restarts=1"]
    worker = h.worker(2) + ["--crash-once", h.inside + "/out/crashed.marker"]
    agents = [h.ejob("ejob0", common + worker)]
    time.sleep(0.5)
    agents.append(h.torchrun("torchrun1", common + ["--rdzv-conf=is_host=0"] + worker))
    for a in agents:
        rc = a.wait(150)
        check(rc == 0, "%s exited %s" % (a.name, rc))
    check(os.path.exists(os.path.join(h.out, "crashed.marker")), "rank 1 crashed once")
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 3.0 for r in recs), "all-reduce %s" % recs)
    check(max(r["restart_count"] for r in recs) == 1, "a restart was spent %s" % recs)


def redundant_node(h, ejob_pair):
    """--nnodes=2 with 3 agents: the third finds the round full and waits in torch 2.x's
    redundancy list while the pair trains; when the pair finishes and closes the run, it ends
    without having run a worker. The pair is ejob-agents and the third torchrun, or the reverse."""
    common = ["--local-addr=127.0.0.1", "--rdzv-backend=c10d",
              "--rdzv-endpoint=127.0.0.1:%d" % free_port(), "--rdzv-id=t2spare", "--nnodes=2"]
    worker = h.worker(2) + ["--hold", h.inside + "/out/release"]
    pair, spare = (h.ejob, h.torchrun) if ejob_pair else (h.torchrun, h.ejob)
    first = pair("pair0", common + worker)
    time.sleep(0.5)
    second = pair("pair1", common + ["--rdzv-conf=is_host=0"] + worker)
    wait_until(lambda: len(h.records()) == 2, 90, "the pair's world of 2")
    third = spare("spare2", common + ["--rdzv-conf=is_host=0"] + worker)
    time.sleep(8)  # the spare has joined and waits (torchrun 2.6 starts in ~3 s)
    check(third.proc.poll() is None, "the spare agent waits:\n" + third.output()[-1500:])
    open(os.path.join(h.out, "release"), "w").close()
    for a in (first, second):
        rc = a.wait(150)
        check(rc == 0, "%s exited %s" % (a.name, rc))
    rc = third.wait(150)
    check(rc is not None, "the spare agent ended")
    recs = h.records()
    check({r["agent"] for r in recs} == {"pair0", "pair1"}, "only the pair ran workers %s" % recs)
    check(all(r["ok"] and r["world"] == 2 for r in recs), "all-reduce %s" % recs)


def etcd_v2(h):
    e = h.start_etcd()
    mixed(h, ["--rdzv-backend=etcd-v2", "--rdzv-endpoint=" + e.endpoint, "--rdzv-id=t2v2"], True)


def etcd_legacy(h):
    """The legacy etcd rendezvous (python-etcd in the root): the first ejob-agent to join is
    group rank 0, so it assigns the ranks torch 2.6's agents wait for, and all four meet in
    torch 2.x's exit barrier."""
    e = h.start_etcd()
    mixed(h, ["--rdzv-backend=etcd", "--rdzv-endpoint=" + e.endpoint, "--rdzv-id=t2legacy"], True)


if __name__ == "__main__":
    AGENT, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if os.geteuid() != 0 or not os.path.isfile(os.path.join(ROOT, ".ready")):
        print("FAIL: needs root and the Debian 13 root at %s (scripts/peers.sh)" % ROOT)
        sys.exit(1)
    sys.exit(run_scenarios({"c10d_ejob_hosts": c10d_ejob_hosts,
                            "c10d_torchrun_hosts": c10d_torchrun_hosts, "etcd_v2": etcd_v2,
                            "etcd_legacy": etcd_legacy,
                            "c10d_workers_identical": c10d_workers_identical,
                            "dialect_mismatch": dialect_mismatch,
                            "c10d_node_lost": c10d_node_lost,
                            "c10d_torchrun_node_lost": c10d_torchrun_node_lost,
                            "etcd_v2_node_lost": node_lost_v2,
                            "c10d_worker_crash": c10d_worker_crash,
                            "redundant_torchrun": lambda h: redundant_node(h, True),
                            "redundant_ejob": lambda h: redundant_node(h, False)},
                           [sys.argv[0], AGENT] + sys.argv[3:], Torch2Harness))
