"""Preemption notices end to end: ejob-agents watching a fake cloud metadata service
(fake_metadata.py, through EJOB_SPOT_METADATA_URL) in a real rendezvous beside a real torchrun
agent, with real gloo workers (spot_worker.py).

Usage: spot_it.py AGENT_BINARY SCENARIO...   (CTest runs one scenario per test)

Nothing here asserts on how long anything took: the rendezvous leave is checked by what the
protocol recorded (etcd's event history, the agents' logs); the times are printed as figures.
"""
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_metadata import FakeMetadata  # noqa: E402
from harness import Failure, check, free_port, run_scenarios, wait_until  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
PREEMPTED = 143


def expect_exit(agent, code, timeout=120):
    rc = agent.wait(timeout)
    check(rc == code, "%s exited %s, expected %s" % (agent.name, rc, code))


def records(h, prefix):
    return [r for name, r in named_records(h) if name.startswith(prefix)]


def named_records(h):
    out = []
    for name in sorted(os.listdir(h.out)):
        if name.endswith(".json"):
            with open(os.path.join(h.out, name)) as f:
                out.append((name, json.load(f)))
    return out


def world(h, size):
    return [r for r in records(h, "w%d_" % size)]


def watch_env(fake, source="auto"):
    return {"EJOB_SPOT_NOTICES": source, "EJOB_SPOT_METADATA_URL": fake.url}


def worker(h):
    return [os.path.join(HERE, "spot_worker.py"), "--out", h.out, "--final-world", "2"]


def check_checkpoints(h, victim, fake_deadline, cloud, event, estimated=False):
    """The victim's workers checkpointed with the notice the agent wrote for them. Azure and
    AWS name the deadline; GCE's is estimated by the agent (`estimated`: near the fake's)."""
    ckpts = records(h, "ckpt_%s_" % victim.name)
    check(ckpts, "no checkpoint of %s: %s" % (victim.name, victim.output()[-2000:]))
    for c in ckpts:
        n = c["notice"]
        check(n is not None, "checkpoint without the notice %s" % c)
        check(n["cloud"] == cloud and n["event"] == event, "notice %s" % n)
        off = abs(n["deadline_epoch"] - int(fake_deadline))
        check(off <= (5 if estimated else 0), "deadline %s vs %s" % (n, fake_deadline))
        check(n["exit_by_epoch"] == n["deadline_epoch"] - 5, "exit_by %s" % n)
        check(n["signal"] == "SIGTERM" and c["step"] >= 1, "checkpoint %s" % c)
        check(c["preempt_file"].endswith("/preempt.json"), "EJOB_PREEMPT_FILE %s" % c)


def three_nodes(h, backend, first_conf, others_conf, victim_env, env=None):
    """An ejob-agent, a victim ejob-agent and a torchrun agent (--nnodes=2:3) training in a
    world of 3 (`env`: more environment for all three). Returns (first, victim, torchrun)."""
    common = ["--local_addr=127.0.0.1"] + backend + ["--nnodes=2:3", "--max_restarts=3"]
    first = h.ejob("ejob0", common + [first_conf] + worker(h), env)
    victim = h.ejob("victim", common + [others_conf] + worker(h), dict(env or {}, **victim_env))
    time.sleep(0.5)
    torchrun = h.torchrun("torchrun1", common + [others_conf, "--monitor_interval=1"] + worker(h),
                          env)
    wait_until(lambda: len(world(h, 3)) == 3, 120, "a world of 3")
    return first, victim, torchrun


def notice_and_hand_over(h, fake, agents, deadline_s):
    """Publishes the notice; the victim hands over and exits 143, the survivors re-form a world
    of 2 and finish. Returns the notice's deadline."""
    first, victim, torchrun = agents
    told_at = time.time()
    deadline = fake.notice(deadline_s)
    wait_until(lambda: records(h, "ckpt_victim_"), 60, "the victim's checkpoint")
    checkpointed = time.time()
    expect_exit(victim, PREEMPTED, timeout=60)
    wait_until(lambda: len(world(h, 2)) == 2, 120, "a world of 2")
    reformed = time.time()
    for a in (first, torchrun):
        expect_exit(a, 0, timeout=150)
    finals = world(h, 2)
    check(sorted(r["rank"] for r in finals) == [0, 1], "world of 2 %s" % finals)
    check(all(r["ok"] and r["sum"] == 3.0 for r in finals), "all-reduce %s" % finals)
    check({r["agent"] for r in finals} == {"ejob0", "torchrun1"}, "survivors %s" % finals)
    print("figures: notice -> victim's checkpoint %.2f s; notice -> world of 2 running %.2f s"
          % (checkpointed - told_at, reformed - told_at))
    return deadline


def etcd_events(etcd, key, since):
    """etcd v2's event history under `key` from index `since` to now, oldest first."""
    with urllib.request.urlopen(etcd.url(key), timeout=5) as r:
        now = int(r.headers["X-Etcd-Index"])
    events, index = [], since
    while index <= now:
        e = etcd.get(key, wait="true", recursive="true", waitIndex=index)
        check("node" in e, "event history %s" % e)
        events.append((e["action"], e["node"]["key"], e["node"].get("value")))
        index = e["node"]["modifiedIndex"] + 1
    return events


def etcd_index(etcd):
    with urllib.request.urlopen(etcd.url("/"), timeout=5) as r:
        return int(r.headers["X-Etcd-Index"])


def etcd_notice(h):
    """etcd backend (ElasticJob's): the victim (auto-detecting a fake Azure) gets a Preempt
    event for its VM while the three train. Its workers find EJOB_PREEMPT_FILE and checkpoint,
    it exits 143, and it left the rendezvous as the protocol understands it: its keep-alive
    was deleted and the round destroyed — no keep-alive of the old round expired before the
    next round was created (its TTL was not waited for). The ejob-agent and the torchrun agent
    left form a world of 2 and finish: the ejob-agent froze that round once both had joined (the
    victim marked itself as left), since its last call lasts an hour."""
    h.start_etcd()
    fake = FakeMetadata("azure")
    try:
        backend = ["--rdzv_backend=etcd", "--rdzv_endpoint=" + h.etcd.endpoint, "--rdzv_id=spot"]
        conf = "--rdzv_conf=last_call_timeout=3600"
        agents = three_nodes(h, backend, conf, conf, watch_env(fake))
        since = etcd_index(h.etcd) + 1
        version = h.etcd.state("spot")["version"]
        deadline = notice_and_hand_over(h, fake, agents, 30)
        check_checkpoints(h, agents[1], deadline, "azure", "Preempt")
    finally:
        fake.close()
    out = agents[1].output()
    check("spot notices: watching Azure Scheduled Events for VM ejob-spot-vmss_3" in out, out)
    events = etcd_events(h.etcd, "/torchelastic/p2p/run_spot/rdzv", since)
    old = "/torchelastic/p2p/run_spot/rdzv/v_%s/" % version
    deleted = [e for e in events if e[0] == "delete" and e[1].startswith(old + "rank_")]
    check(deleted, "no keep-alive of round %s deleted: %s" % (version, events))
    created = [i for i, e in enumerate(events) if e[0] == "create" and
               e[1].endswith("/active_version")]
    check(created, "no next round created: %s" % events)
    before = events[:created[0]]
    check(any(e[0] == "compareAndDelete" and e[1].endswith("/active_version") for e in before),
          "round %s not destroyed: %s" % (version, before))
    check(not any(e[0] == "expire" for e in before),
          "a keep-alive expired before the next round: %s" % before)
    check("left rendezvous version %s" % version in out, out[-2000:])
    check(any(e[0] == "set" and e[1].startswith(old + "left/rank_") for e in before),
          "the victim did not mark itself as left: %s" % before)
    froze = "nodes that stayed in rendezvous version %s joined" % version
    check(froze in agents[0].output(), agents[0].output()[-2000:])


def dynamic_notice(h, cloud, backend, conf, others_conf):
    """The hand-over in a dynamic rendezvous (c10d, etcd-v2): the victim watches `cloud`; its
    workers checkpoint, it takes itself out of the round (torch's exit op) and exits 143; no
    agent ever drops it as dead (its heartbeat was not waited for), and the ejob-agent and the
    torchrun agent left form a world of 2 and finish."""
    fake = FakeMetadata(cloud)
    try:
        # Debug logs: an agent that drops a node as dead says so (ejob's and torch's alike).
        agents = three_nodes(h, backend, conf, others_conf, watch_env(fake, cloud),
                             {"LOGLEVEL": "DEBUG"})
        deadline = notice_and_hand_over(h, fake, agents, 30 if cloud == "gce" else 120)
        event = {"gce": "PREEMPTED", "aws": "terminate", "azure": "Preempt"}[cloud]
        check_checkpoints(h, agents[1], deadline, cloud, event, estimated=cloud == "gce")
    finally:
        fake.close()
    victim_node = "_%d_0" % agents[1].proc.pid
    for a in h.agents:
        for line in a.output().splitlines():
            dropped = "is dead" in line or "had no heartbeat" in line
            check(not (dropped and victim_node in line), "%s dropped the victim: %s" % (a.name, line))
    check("left round" in agents[1].output(), agents[1].output()[-2000:])


def c10d_notice(h):
    """c10d, an ejob-agent hosting the store with fast_reform off (the store's view of
    connections plays no part); the victim, told to watch GCE, sees preempted turn TRUE."""
    backend = ["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % free_port(),
               "--rdzv_id=spotc"]
    conf = "--rdzv_conf=last_call_timeout=3,fast_reform=0"
    dynamic_notice(h, "gce", backend, conf, conf + ",is_host=0")


def etcd_v2_notice(h):
    """etcd-v2 (the state in etcd, nobody hosting anything); the victim, told to watch AWS,
    gets a spot instance-action."""
    h.start_etcd()
    backend = ["--rdzv_backend=etcd-v2", "--rdzv_endpoint=" + h.etcd.endpoint, "--rdzv_id=spotv2"]
    conf = "--rdzv_conf=last_call_timeout=3"
    dynamic_notice(h, "aws", backend, conf, conf)


def notice_while_waiting(h):
    """A notice while the agent waits for its round (AWS; no worker runs yet): it exits 143
    at once, saying so, and starts no worker."""
    h.start_etcd()
    fake = FakeMetadata("aws")
    try:
        args = ["--rdzv_backend=etcd", "--rdzv_endpoint=" + h.etcd.endpoint, "--rdzv_id=wait",
                "--nnodes=2"] + worker(h)
        a = h.ejob("alone", args, watch_env(fake, "aws"))
        wait_until(lambda: "spot notices: watching AWS spot instance-action (IMDSv2)" in a.output(),
                   30, "the watch")
        fake.notice(120)
        expect_exit(a, PREEMPTED, timeout=30)
    finally:
        fake.close()
    check("preemption notice while waiting for a round" in a.output(), a.output())
    check(not named_records(h), "a worker ran")


def no_cloud_is_quiet(h):
    """auto where no metadata service answers (a closed port): the job runs as without the
    watch, exits 0, and the agent says nothing about notices."""
    closed = "http://127.0.0.1:%d" % free_port()
    a = h.ejob("plain", ["--standalone", "--no_python", "/bin/true"],
                {"EJOB_SPOT_NOTICES": "auto", "EJOB_SPOT_METADATA_URL": closed})
    expect_exit(a, 0, timeout=60)
    check("spot notices" not in a.output(), a.output())


def watch_then_finish(h):
    """A job that ends without a notice while its agent watches a cloud (a fake AWS, auto):
    it exits 0, and stopping the watch (a request in flight cancelled) is not reported as a
    failure of the service."""
    fake = FakeMetadata("aws")
    try:
        a = h.ejob("plain", ["--standalone", "--no_python", "/bin/sh", "-c", "sleep 1.5"],
                   watch_env(fake))
        expect_exit(a, 0, timeout=60)
    finally:
        fake.close()
    out = a.output()
    check("spot notices: watching AWS spot instance-action (IMDSv2)" in out, out)
    check(out.count("spot notices:") == 1, out)


def named_cloud_unreachable(h):
    """--spot-notices=azure where nothing answers: one warning, retried quietly, and the job
    still runs to the end."""
    closed = "http://127.0.0.1:%d" % free_port()
    a = h.ejob("named", ["--standalone", "--spot-notices=azure", "--no_python", "/bin/sh", "-c",
                         "sleep 1.5"], {"EJOB_SPOT_METADATA_URL": closed})
    expect_exit(a, 0, timeout=60)
    out = a.output()
    check("spot notices: azure's metadata service does not answer at %s" % closed in out, out)
    check(out.count("spot notices:") == 1, out)


SCENARIOS = {f.__name__: f for f in [etcd_notice, c10d_notice, etcd_v2_notice,
                                     notice_while_waiting,
                                     no_cloud_is_quiet, watch_then_finish,
                                     named_cloud_unreachable]}

if __name__ == "__main__":
    sys.exit(run_scenarios(SCENARIOS, sys.argv))
