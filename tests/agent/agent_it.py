"""Integration tests of ejob-agent against a real etcd (and real torchrun for interop).

Usage: agent_it.py AGENT_BINARY SCENARIO...   (CTest runs one scenario per test)
"""
import json
import os
import re
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Agent, Failure, check, free_port, pid_alive, run_scenarios, wait_until  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def rdzv(h, run_id, nnodes, *extra):
    return ["--rdzv_backend=etcd", "--rdzv_endpoint=" + h.etcd.endpoint, "--rdzv_id=" + run_id,
            "--nnodes=" + nnodes] + list(extra)


def ranks_of(records):
    return sorted(int(r["RANK"]) for r in records)


def expect_exit(agent, code, timeout=60):
    rc = agent.wait(timeout)
    check(rc == code, "%s exited %s, expected %s" % (agent.name, rc, code))


def fixed(h):
    """Two agents, --nnodes=2, two workers each: ranks 0..3, one master, run closed at the end."""
    h.start_etcd()
    agents = [h.ejob("a%d" % i, rdzv(h, "fixed", "2", "--nproc_per_node=2") + h.worker_args())
              for i in range(2)]
    for a in agents:
        expect_exit(a, 0)
    recs = h.records()
    check(ranks_of(recs) == [0, 1, 2, 3], "ranks %s" % ranks_of(recs))
    check({r["WORLD_SIZE"] for r in recs} == {"4"}, "world sizes")
    check({r["GROUP_WORLD_SIZE"] for r in recs} == {"2"}, "group world sizes")
    check(len({(r["MASTER_ADDR"], r["MASTER_PORT"]) for r in recs}) == 1, "one master")
    for r in recs:
        check(int(r["RANK"]) == 2 * int(r["GROUP_RANK"]) + int(r["LOCAL_RANK"]), "rank layout %s" % r)
        check(r["TORCHELASTIC_USE_AGENT_STORE"] == "True" and r["OMP_NUM_THREADS"] == "1", "env %s" % r)
    state = h.etcd.state("fixed")
    check(state["status"] == "closed" and state["version"] == "1", "state %s" % state)
    check(state["keep_alives"] and all(k.startswith("/torchelastic/p2p/run_fixed/rdzv/v_1/rank_")
                                       for k in state["keep_alives"]), "keep_alives %s" % state)
    kv = h.etcd.get("/torchelastic/p2p/run_fixed/rdzv/v_1/kv/TUFTVEVSX1BPUlQ=")["node"]["value"]
    import base64
    check(base64.b64decode(kv).decode() == recs[0]["MASTER_PORT"], "MASTER_PORT in the store")


def elastic_last_call(h):
    """--nnodes=1:3 with two agents: the round freezes after last_call_timeout with both."""
    h.start_etcd()
    args = rdzv(h, "el", "1:3", "--rdzv_conf=last_call_timeout=1") + h.worker_args()
    agents = [h.ejob("a%d" % i, args) for i in range(2)]
    for a in agents:
        expect_exit(a, 0)
    recs = h.records()
    check(ranks_of(recs) == [0, 1] and {r["WORLD_SIZE"] for r in recs} == {"2"}, "records %s" % recs)


def late_joiner_scale_up(h):
    """Two agents running (--nnodes=1:3); a third joins late: it waits, the running agents
    restart their workers without spending a restart, and the new round has all three."""
    h.start_etcd()
    hold = os.path.join(h.root, "release")
    args = rdzv(h, "up", "1:3", "--rdzv_conf=last_call_timeout=1", "--max_restarts=0") + \
        h.worker_args("--hold", hold)
    first = [h.ejob("a%d" % i, args) for i in range(2)]
    wait_until(lambda: len(h.records()) == 2, 30, "two workers")
    h.ejob("late", args)
    wait_until(lambda: len([r for r in h.records() if r["WORLD_SIZE"] == "3"]) == 3, 40,
               "three workers of world size 3")
    open(hold, "w").close()
    for a in h.agents:
        expect_exit(a, 0)
    recs = [r for r in h.records() if r["WORLD_SIZE"] == "3"]
    check(ranks_of(recs) == [0, 1, 2], "ranks %s" % recs)
    check({r["TORCHELASTIC_RESTART_COUNT"] for r in h.records()} == {"0"}, "no restart spent")
    check(h.etcd.state("up")["version"] == "2", "second round")
    check("membership change" in first[0].output() and "membership change" in first[1].output(),
          "membership change logged")


def worker_crash_restart(h):
    """A worker crashes once: its agent spends one restart, the peer restarts for free."""
    h.start_etcd()
    hold = os.path.join(h.root, "release")
    args = rdzv(h, "crash", "2", "--max_restarts=2") + \
        h.worker_args("--crash-rank", "1", "--crash-once", hold + ".crashed", "--hold", hold)
    agents = [h.ejob("a%d" % i, args) for i in range(2)]
    crashed = wait_until(lambda: [r for r in h.records() if r["RANK"] == "1"], 30, "rank 1")[0]

    def second_round():
        recs = [r for r in h.records() if r["MASTER_PORT"] != crashed["MASTER_PORT"]]
        return recs if len(recs) == 2 else None
    second = wait_until(second_round, 40, "both workers of the second round")
    open(hold, "w").close()
    for a in agents:
        expect_exit(a, 0)
    counts = sorted(r["TORCHELASTIC_RESTART_COUNT"] for r in second)
    check(counts == ["0", "1"], "restart counts %s" % counts)
    check(h.etcd.state("crash")["version"] == "2", "one re-rendezvous")
    check(any("restart 1/2" in a.output() for a in agents), "restart logged")


def agent_store_restart_counts(h):
    """Group rank 0's agent hosts the workers' store; torch 1.13's workers name their keys
    after their agent's restart count (/worker/attempt_N), which differs once one agent spent a
    restart and the other restarted for free: round 2 still all-reduces."""
    h.start_etcd()
    args = ["--local_addr=127.0.0.1"] + rdzv(h, "counts", "2", "--max_restarts=2") + \
        [os.path.join(HERE, "gloo_allreduce.py"), "--out", h.out, "--expect-world", "2",
         "--crash-once", os.path.join(h.root, "crashed"), "--peer-waits"]
    agents = [h.ejob("a%d" % i, args) for i in range(2)]
    for a in agents:
        expect_exit(a, 0, timeout=120)
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 3.0 for r in recs), "round 2 all-reduced %s" % recs)
    check(sorted(r["restart_count"] for r in recs) == [0, 1], "restart counts %s" % recs)
    check(all(r["agent_store"] == "True" for r in recs), "the agent's store %s" % recs)


def _warm(h, run_id, preload, extra_env=None):
    """Two ejob-agents whose workers start warm; a worker crashes once after the all-reduce
    (its peer waits), so both agents restart and round 2's workers start warm again."""
    h.start_etcd()
    script = os.path.join(HERE, "gloo_allreduce.py")
    args = ["--local_addr=127.0.0.1", "--preload=" + preload] + \
        rdzv(h, run_id, "2", "--max_restarts=2") + \
        [script, "--out", h.out, "--expect-world", "2", "--crash-once",
         os.path.join(h.root, "crashed"), "--peer-waits"]
    agents = [h.ejob("a%d" % i, args, extra_env) for i in range(2)]
    for a in agents:
        expect_exit(a, 0, timeout=120)
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 3.0 for r in recs), "round 2 all-reduced %s" % recs)
    check(all(r["argv0"] == script and r["path0"] == HERE for r in recs), "argv, path %s" % recs)
    return agents, recs


def warm_workers(h):
    """--preload torch: the workers' pythons import torch before their round is complete, and
    run the script as python would (argv, sys.path[0], environment), in every attempt."""
    agents, recs = _warm(h, "warm", "torch")
    check(all(r["preloaded"] for r in recs), "torch imported before the script %s" % recs)
    check(not any("starting it afresh" in a.output() for a in agents), "no worker started cold")


def warm_worker_lost(h):
    """A warm worker that dies before its round (here: on importing its preload) is replaced
    by a fresh process when the round is complete; the job still trains."""
    agents, recs = _warm(h, "warmlost", "die_on_import", {"PYTHONPATH": HERE})
    check(not any(r["preloaded"] for r in recs), "fresh processes %s" % recs)
    check(all("ended before its round; starting it afresh" in a.output() for a in agents),
          "the loss logged")


def worker_failure_final(h):
    """No restarts left: the others are stopped, the root cause is reported, the error file
    written, the run closed, exit 1."""
    h.start_etcd()
    err = os.path.join(h.root, "agent_error.json")
    a = h.ejob("a0", rdzv(h, "fail", "1", "--nproc_per_node=2") +
               h.worker_args("--crash-rank", "1", "--crash-signal", "9", "--hold", "/nonexistent"),
               {"TORCHELASTIC_ERROR_FILE": err})
    expect_exit(a, 1)
    out = a.output()
    check("Root Cause (first observed failure):" in out, "summary")
    check("  exitcode  : -9 (pid: " in out and "Signal 9 (SIGKILL) received by PID" in out, out)
    with open(err) as f:
        e = json.load(f)
    check(e["message"]["errorCode"] == -9, "error file %s" % e)
    check(h.etcd.state("fail")["status"] == "closed", "closed")
    for r in h.records():
        check(not pid_alive(r["pid"]), "worker %d left running" % r["pid"])


def agent_killed(h):
    """An agent dies (SIGKILL): its workers die with it; a replacement agent waits until the
    dead agent's keep-alive expires, then the survivor and the replacement form round 2."""
    h.start_etcd()
    hold = os.path.join(h.root, "release")
    args = rdzv(h, "kill", "2", "--max_restarts=1") + h.worker_args("--hold", hold, "--child")
    a0 = h.ejob("a0", args)
    a1 = h.ejob("a1", args)
    wait_until(lambda: len(h.records()) == 2, 30, "two workers")
    victim = [r for r in h.records() if r["AGENT_TAG"] == "a1"][0]
    os.kill(a1.proc.pid, signal.SIGKILL)
    a1.proc.wait()
    # PR_SET_PDEATHSIG takes the worker along; its own children are the container's to reap.
    wait_until(lambda: not pid_alive(victim["pid"]), 10, "the dead agent's worker to go")
    os.kill(victim["child"], signal.SIGKILL)
    h.ejob("a1b", args)
    wait_until(lambda: len([r for r in h.records() if r["AGENT_TAG"] == "a1b"]) == 1, 40,
               "the replacement's worker")
    open(hold, "w").close()
    expect_exit(a0, 0)
    expect_exit(h.agents[-1], 0)
    check(h.etcd.state("kill")["version"] == "2", "round 2")
    check("destroying rendezvous version 1" in a0.output() + h.agents[-1].output(), "destroyed")


def signal_forwarding(h):
    """SIGTERM to the agent: workers (and their children) get it, exit 143, run not closed."""
    h.start_etcd()
    a = h.ejob("a0", rdzv(h, "sig", "1", "--nproc_per_node=2") +
               h.worker_args("--hold", "/nonexistent", "--child"))
    wait_until(lambda: len(h.records()) == 2, 30, "workers")
    os.kill(a.proc.pid, signal.SIGTERM)
    expect_exit(a, 143)
    for r in h.records():
        check(not pid_alive(r["pid"]) and not pid_alive(r["child"]), "leftover process %s" % r)
    check(h.etcd.state("sig")["status"] == "final", "not closed on signal")


def closed_rendezvous(h):
    """Re-using a finished run id fails at once with a clear message."""
    h.start_etcd()
    expect_exit(h.ejob("a0", rdzv(h, "again", "1") + h.worker_args()), 0)
    b = h.ejob("b0", rdzv(h, "again", "1") + h.worker_args())
    expect_exit(b, 1)
    check("ejob-agent: error: rendezvous for run_id=again is closed (a run with this id already "
          "finished; use another --rdzv_id or delete /torchelastic/p2p/run_again)\n" in b.output(),
          "message")


def etcd_restart(h):
    """etcd restarts while the workers run; the job still finishes and closes."""
    etcd = h.start_etcd()
    hold = os.path.join(h.root, "release")
    args = rdzv(h, "er", "2") + h.worker_args("--hold", hold)
    agents = [h.ejob("a%d" % i, args) for i in range(2)]
    wait_until(lambda: len(h.records()) == 2, 30, "workers")
    etcd.stop()
    time.sleep(1)
    etcd.start()
    open(hold, "w").close()
    for a in agents:
        expect_exit(a, 0)
    check(h.etcd.state("er")["status"] == "closed", "closed after restart")


def malformed_state(h):
    """Garbage in active_version: a clear error, retried until the rdzv timeout, exit 1."""
    h.start_etcd()
    h.etcd.put("/torchelastic/p2p/run_bad/rdzv/active_version", value='{"status": "final"')
    a = h.ejob("a0", rdzv(h, "bad", "1", "--rdzv_conf=timeout=2") + h.worker_args())
    expect_exit(a, 1)
    check("ejob-agent: error: rendezvous for run_id=bad timed out after 2 s; last failure: "
          "malformed rendezvous state (not JSON): {\"status\": \"final\"\n" in a.output(), "message")


def https_client_certs(h):
    """etcd over HTTPS with client-certificate auth: --rdzv_conf protocol/cacert/cert/key."""
    etcd = h.start_etcd(tls=True)
    conf = "--rdzv_conf=protocol=https,cacert=%s,cert=%s,key=%s" % (
        etcd.file("ca.crt"), etcd.file("client.crt"), etcd.file("client.key"))
    agents = [h.ejob("a%d" % i, rdzv(h, "tls", "2", conf) + h.worker_args()) for i in range(2)]
    for a in agents:
        expect_exit(a, 0)
    check(ranks_of(h.records()) == [0, 1], "ranks")
    check(h.etcd.state("tls")["status"] == "closed", "closed")
    anonymous = h.ejob("anon", rdzv(h, "tls2", "1", "--rdzv_conf=timeout=1,protocol=https,cacert=" +
                                    etcd.file("ca.crt")) + h.worker_args())
    expect_exit(anonymous, 1)
    check("ejob-agent: error: etcd at https://127.0.0.1:%d: GET /v2/machines: " % etcd.port
          in anonymous.output(), anonymous.output())


def etcd_late(h):
    """etcd starts after the agents (its pod is slower than the workers'): they wait for it."""
    etcd = h.start_etcd()
    etcd.stop()
    agents = [h.ejob("a%d" % i, rdzv(h, "late_etcd", "2") + h.worker_args()) for i in range(2)]
    waiting = ("waiting for etcd: etcd at http://127.0.0.1:{0}: GET /v2/machines: "
               "cannot connect to 127.0.0.1 port {0}: Connection refused").format(etcd.port)
    wait_until(lambda: all(waiting in a.output() for a in agents),
               10, "both agents to wait for etcd")
    etcd.start()
    for a in agents:
        expect_exit(a, 0)
    check(ranks_of(h.records()) == [0, 1], "ranks")


def cli_errors(h):
    """Bad command lines exit 2 with argparse-style messages; --help exits 0."""
    cases = [(["--nproc-per-node=1", "--frobnicate", "x.py"], "unrecognized arguments: --frobnicate"),
             (["--rdzv_backend=zk", "x.py"], "--rdzv_backend=zk: unknown rendezvous backend "
              "(supported: c10d, etcd, etcd-v2, static)"),
             (["--rdzv_backend=c10d", "--rdzv_conf=is_host=perhaps", "x.py"],
              "The rendezvous configuration option 'is_host' does not represent a valid boolean "
              "value."),
             (["--nnodes=0", "x.py"], "--nnodes=0: expected 0 < MIN <= MAX")]
    for i, (args, msg) in enumerate(cases):
        a = h.ejob("c%d" % i, args)
        expect_exit(a, 2)
        check("ejob-agent: error: " + msg + "\n" in a.output(), a.output())
    expect_exit(h.ejob("help", ["--help"]), 0)


def standalone(h):
    """--standalone: no etcd, ${local_rank} substitution, tee prefixes and log files."""
    logs = os.path.join(h.root, "logs")
    a = h.ejob("a0", ["--standalone", "--nproc_per_node=2", "--log_dir", logs, "-t", "3"] +
               h.worker_args("lr=${local_rank}"))
    expect_exit(a, 0)
    recs = h.records()
    check(sorted(r["argv"][-1] for r in recs) == ["lr=0", "lr=1"], "substitution %s" % recs)
    out = a.output()
    check("[default0]:worker rank 0 ready\n" in out and "[default1]:worker rank 1 ready\n" in out, out)
    run_dir = os.path.join(logs, os.listdir(logs)[0])
    with open(os.path.join(run_dir, "attempt_0", "1", "stdout.log")) as f:
        check(f.read() == "worker rank 1 ready\n", "stdout.log")


def standalone_twice(h):
    """Two --standalone jobs at once on one machine, as torchrun runs them: the first hosts the
    c10d store on localhost:29400 (unless another program has it), the second finds the port
    taken and joins as a client under its own run id; each is a world of 1 of its own."""
    outs = [os.path.join(h.out, "s%d" % i) for i in range(2)]
    agents = []
    for i, out in enumerate(outs):
        os.makedirs(out)
        agents.append(h.ejob("s%d" % i, ["--standalone", "--nproc_per_node=1",
                                         os.path.join(HERE, "gloo_allreduce.py"), "--out", out,
                                         "--expect-world", "1"]))
    for a in agents:
        expect_exit(a, 0, timeout=120)
    recs = []
    for out in outs:
        with open(os.path.join(out, "r0.json")) as f:
            recs.append(json.load(f))
    check([(r["agent"], r["world"], r["ok"]) for r in recs] == [("s0", 1, True), ("s1", 1, True)],
          "records %s" % recs)


def c10d_hosts_at_once(h):
    """Two ejob-agents of a --nnodes=2 c10d job started at the same moment on one machine,
    30 times: both infer they host the store, and the kernel lets both bind the port and then
    fails both listens in ~1 start in 7 (SO_REUSEADDR); the agent retries a failed listen, so
    every time a store is hosted and both agents finish."""
    for i in range(30):
        args = ["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % free_port(),
                "--rdzv_id=once%d" % i, "--nnodes=2", "--no_python", "/bin/true"]
        # No PYTHON_EXEC: the agents skip asking the workers' python for its torch (~0.1 s of
        # python start-up each, which would set them apart) and reach the port together.
        pair = []
        for k in range(2):
            tag = "once%d_%d" % (i, k)
            env = {key: v for key, v in h.env(tag).items() if key != "PYTHON_EXEC"}
            pair.append(Agent(h.root, tag, [h.agent_binary] + args, env))
            h.agents.append(pair[-1])
        for a in pair:
            expect_exit(a, 0, timeout=60)
        check(any("hosting the rendezvous TCPStore" in a.output() for a in pair),
              "nobody hosted: %s" % [a.output()[-300:] for a in pair])


def _interop(h, ejob_first):
    h.start_etcd()
    args = ["--local_addr=127.0.0.1"] + rdzv(h, "mix", "4", "--rdzv_conf=last_call_timeout=2") + \
        [os.path.join(HERE, "gloo_allreduce.py"), "--out", h.out, "--expect-world", "4"]
    starters = [lambda i: h.ejob("ejob%d" % i, args), lambda i: h.torchrun("torchrun%d" % i, args)]
    if not ejob_first:
        starters.reverse()
    for start in starters:
        for i in range(2):
            start(i)
        time.sleep(1.5)
    for a in h.agents:
        expect_exit(a, 0, timeout=150)
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1, 2, 3], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 10.0 and r["world"] == 4 for r in recs), "all-reduce %s" % recs)
    check(all(r["master_addr"] == "127.0.0.1" for r in recs), "--local_addr published %s" % recs)
    check(h.etcd.state("mix")["status"] == "closed", "closed")


def interop_restart(h):
    """A worker crashes in a mixed group (1 ejob-agent + 1 torchrun agent): the peer's worker
    fails in its next collective, both agents re-rendezvous (the ejob-agent keeps its
    keep-alive until the torchrun agent has re-entered) and round 2 all-reduces again. The agent
    whose worker crashed spends a restart; the other may see the first one waiting before its
    own worker fails, which torch's agent and ejob-agent both take for a membership change
    (TORCHELASTIC_RESTART_COUNT stays 0): which worker crashes first is a race."""
    h.start_etcd()
    args = ["--local_addr=127.0.0.1"] + rdzv(h, "mixr", "2", "--max_restarts=2") + \
        [os.path.join(HERE, "gloo_allreduce.py"), "--out", h.out, "--expect-world", "2",
         "--crash-once", os.path.join(h.root, "crashed")]
    h.ejob("ejob0", args)
    h.torchrun("torchrun0", args)
    for a in h.agents:
        expect_exit(a, 0, timeout=180)
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 3.0 for r in recs), "round 2 %s" % recs)
    check(any(r["restart_count"] >= 1 for r in recs), "no agent spent a restart: %s" % recs)
    check(int(h.etcd.state("mixr")["version"]) >= 2, "re-rendezvous")


def interop_ejob_first(h):
    """2 ejob-agents then 2 torchrun agents form one round; gloo all_reduce over 4 ranks."""
    _interop(h, True)


def interop_torchrun_first(h):
    """2 torchrun agents then 2 ejob-agents form one round; gloo all_reduce over 4 ranks."""
    _interop(h, False)


def _c10d_interop(h, ejob_hosts):
    """2 ejob-agents + 2 torchrun agents in one c10d rendezvous (--nnodes=4): the first agent
    started hosts the TCPStore (its endpoint is local), the others say is_host=0 as agents on
    other machines would; gloo all_reduce over 4 ranks; group ranks follow the sorted
    (fqdn, pid, local_id) of the agents, as torchrun assigns them."""
    port = free_port()
    common = ["--local_addr=127.0.0.1", "--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % port,
              "--rdzv_id=c10dmix", "--nnodes=4"]
    worker = [os.path.join(HERE, "gloo_allreduce.py"), "--out", h.out, "--expect-world", "4"]
    client = ["--rdzv_conf=is_host=0"]
    order = [(h.ejob, "ejob"), (h.torchrun, "torchrun")]
    if not ejob_hosts:
        order.reverse()
    for n, (start, kind) in enumerate(order):
        for i in range(2):
            start("%s%d" % (kind, i), common + ([] if n == 0 and i == 0 else client) + worker)
            time.sleep(0.5)
    for a in h.agents:
        expect_exit(a, 0, timeout=150)
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1, 2, 3], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 10.0 and r["world"] == 4 for r in recs), "all-reduce %s" % recs)
    by_pid = sorted(h.agents, key=lambda a: a.proc.pid)
    group_ranks = {r["agent"]: r["group_rank"] for r in recs}
    check([group_ranks[a.name] for a in by_pid] == [0, 1, 2, 3],
          "group ranks by pid %s" % [(a.name, a.proc.pid, group_ranks[a.name]) for a in by_pid])
    check(all(r["master_addr"] == "127.0.0.1" for r in recs), "--local_addr published %s" % recs)
    host = h.agents[0]
    check(ejob_hosts == ("hosting the rendezvous TCPStore on port %d" % port in host.output()),
          "the first agent hosts the store")


def c10d_interop_ejob_hosts(h):
    """c10d: an ejob-agent hosts the store for 2 ejob-agents + 2 torchrun agents."""
    _c10d_interop(h, True)


def c10d_interop_torchrun_hosts(h):
    """c10d: a torchrun agent hosts the store for 2 torchrun agents + 2 ejob-agents."""
    _c10d_interop(h, False)


def node_lost(h, backend, run_id, conf, joiner_conf, victim="ejob"):
    """--nnodes=2:3: an ejob-agent, a torchrun agent and a second ejob-agent form a world of 3
    (with VICTIM="torchrun": an ejob-agent and a torchrun agent second and third); the third is
    SIGKILLed with its worker mid-training. The survivors' workers fail, their agents
    re-rendezvous, the dead node leaves the round (its heartbeat expires after 15 s, or at once
    when the ejob-agent hosting the store sees its connection close) and the two left form a
    world of 2 and finish. Returns the first agent."""
    common = ["--local_addr=127.0.0.1"] + backend + ["--rdzv_id=" + run_id, "--nnodes=2:3",
                                                      "--max_restarts=3"]
    worker = [os.path.join(HERE, "gloo_elastic.py"), "--out", h.out, "--final-world", "2"]
    first = h.ejob("ejob0", common + [conf] + worker)
    time.sleep(0.5)
    if victim == "ejob":
        survivor = h.torchrun("torchrun1", common + [joiner_conf] + worker)
        dead = h.ejob("ejob2", common + [joiner_conf] + worker)
    else:
        survivor = h.ejob("ejob1", common + [joiner_conf] + worker)
        dead = h.torchrun("torchrun2", common + [joiner_conf] + worker)
    wait_until(lambda: len([r for r in h.records() if r["world"] == 3]) == 3, 90, "a world of 3")
    dead.kill_all()
    lost_at = time.time()
    for a in (first, survivor):
        expect_exit(a, 0, timeout=150)
    finals = [r for r in h.records() if r["world"] == 2]
    check(sorted(r["rank"] for r in finals) == [0, 1], "world of 2 %s" % finals)
    check(all(r["ok"] and r["sum"] == 3.0 for r in finals), "all-reduce %s" % finals)
    check({r["agent"] for r in finals} == {"ejob0", survivor.name}, "survivors %s" % finals)
    print("node lost -> survivors done in %.1f s" % (time.time() - lost_at))
    return first


def c10d_fast_reform(h, victim):
    """node_lost over c10d, the first ejob-agent hosting the TCPStore, with a last call of an
    hour: the re-formed round of 2 (< max 3) can only complete by ejob's fast_reform, the host
    dropping the dead node when its store connection closes and completing once every
    connected node joined, and the host says which node left."""
    conf = "--rdzv_conf=last_call_timeout=3600"
    first = node_lost(h, ["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % free_port()],
                      "c10dloss", conf, conf + ",is_host=0", victim)
    out = first.output()
    check(re.search(r"rendezvous: node \S+ left \(its store connection closed\)", out),
          out[-1500:])


def c10d_node_lost(h):
    """c10d_fast_reform with an ejob-agent lost."""
    c10d_fast_reform(h, "ejob")


def c10d_torchrun_node_lost(h):
    """c10d_fast_reform with a torchrun agent lost (its connection known by its writes)."""
    c10d_fast_reform(h, "torchrun")


def c10d_node_lost_torch_timing(h):
    """node_lost over c10d with fast_reform=0: the dead node leaves when its heartbeat is
    stale and the round of 2 completes after its last call, as between torchrun agents."""
    conf = "--rdzv_conf=last_call_timeout=2,fast_reform=0"
    first = node_lost(h, ["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % free_port()],
                      "c10dslow", conf, conf + ",is_host=0")
    check("store connection closed" not in first.output(), first.output()[-1500:])


def etcd_v2_node_lost(h):
    """node_lost over etcd-v2 (the state in etcd, no store host)."""
    h.start_etcd()
    conf = "--rdzv_conf=last_call_timeout=2"
    node_lost(h, ["--rdzv_backend=etcd-v2", "--rdzv_endpoint=" + h.etcd.endpoint], "v2loss",
              conf, conf)


def c10d_late_joiner(h):
    """c10d, --nnodes=2:3: an ejob-agent hosts and a torchrun agent joins; their workers train
    in a world of 2. A third agent (ejob) joins late: the two see a node waiting, stop their
    workers and re-rendezvous, and the world of 3 all-reduces and finishes."""
    common = ["--local_addr=127.0.0.1", "--rdzv_backend=c10d",
              "--rdzv_endpoint=127.0.0.1:%d" % free_port(), "--rdzv_id=c10dlate", "--nnodes=2:3",
              "--max_restarts=3", "--monitor_interval=1"]
    worker = [os.path.join(HERE, "gloo_elastic.py"), "--out", h.out, "--final-world", "3"]
    conf = "--rdzv_conf=last_call_timeout=2"
    h.ejob("ejob0", common + [conf] + worker)
    time.sleep(0.5)
    h.torchrun("torchrun1", common + [conf + ",is_host=0"] + worker)
    wait_until(lambda: len([r for r in h.records() if r["world"] == 2]) == 2, 90, "a world of 2")
    joined_at = time.time()
    h.ejob("ejob2", common + [conf + ",is_host=0"] + worker)
    for a in h.agents:
        expect_exit(a, 0, timeout=150)
    finals = [r for r in h.records() if r["world"] == 3]
    check(sorted(r["rank"] for r in finals) == [0, 1, 2], "world of 3 %s" % finals)
    check(all(r["ok"] and r["sum"] == 6.0 for r in finals), "all-reduce %s" % finals)
    print("late joiner -> world of 3 done in %.1f s" % (time.time() - joined_at))


def c10d_store_host_lost(h):
    """c10d, --nnodes=4: the ejob-agent hosting the store is SIGKILLed while a torchrun agent
    and another ejob-agent wait for a fourth node. Both clients fail at once as torch's does
    (the store is gone; no reconnecting for a timeout), with the same exit status, and the
    ejob-agent names the store, the key and the round."""
    port = free_port()
    common = ["--local_addr=127.0.0.1", "--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % port,
              "--rdzv_id=c10dgone", "--nnodes=4"] + h.worker_args()
    host = h.ejob("ejob0", common[:5] + ["--rdzv_conf=is_host=1"] + common[5:])
    time.sleep(0.5)
    torch_client = h.torchrun("torchrun1", common[:5] + ["--rdzv_conf=is_host=0"] + common[5:])
    ejob_client = h.ejob("ejob2", common[:5] + ["--rdzv_conf=is_host=0"] + common[5:])
    wait_until(lambda: "log directory" in ejob_client.output(), 30, "the ejob client to start")
    time.sleep(4)  # torchrun's agent starts in ~2 s: then both clients wait in round 0
    host.kill_all()
    lost_at = time.time()
    torch_rc = torch_client.wait(60)
    ejob_rc = ejob_client.wait(60)
    check(torch_rc != 0 and ejob_rc == torch_rc, "exit statuses: torchrun %s, ejob %s" % (torch_rc, ejob_rc))
    out = ejob_client.output()
    check("ejob-agent: error: TCPStore 127.0.0.1:%d: " % port in out and
          "(rendezvous join, round 0)" in out and "torch.rendezvous.c10dgone" in out, out[-600:])
    print("store lost -> clients ended in %.1f s" % (time.time() - lost_at))


def c10d_restart(h):
    """c10d: a worker crashes in a mixed group (an ejob-agent hosting + a torchrun agent): the
    failing agent leaves for the wait list, the other sees a waiting node and re-joins, and
    round 1 all-reduces again."""
    port = free_port()
    args = ["--local_addr=127.0.0.1", "--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % port,
            "--rdzv_id=c10dr", "--nnodes=2", "--max_restarts=2"]
    worker = [os.path.join(HERE, "gloo_allreduce.py"), "--out", h.out, "--expect-world", "2",
              "--crash-once", os.path.join(h.root, "crashed")]
    h.ejob("ejob0", args + worker)
    time.sleep(0.5)
    h.torchrun("torchrun0", args + ["--rdzv_conf=is_host=0"] + worker)
    for a in h.agents:
        expect_exit(a, 0, timeout=180)
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 3.0 for r in recs), "round 2 %s" % recs)
    check(any(r["restart_count"] >= 1 for r in recs), "no agent spent a restart: %s" % recs)
    check("round 1: group_rank=" in h.agents[0].output(), "a second round")


def c10d_malformed_state(h):
    """c10d: a state that is not base64 of a pickle (written by a foreign client) ends the
    agent with exit 1 and a message naming the store and the key."""
    port = free_port()
    a = h.ejob("ejob0", ["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % port,
                         "--rdzv_id=bad", "--nnodes=2"] + h.worker_args())
    import datetime
    from torch.distributed import TCPStore
    store = TCPStore("127.0.0.1", port, None, False, datetime.timedelta(seconds=30))
    wait_until(lambda: store.get("torch.rendezvous.bad") != b"Y2FuaW1hZGFt", 30, "the first state")
    store.set("torch.rendezvous.bad", "bm90IGEgcGlja2xl")  # base64 of "not a pickle"
    del store  # the hosting agent keeps its store up while clients are connected
    expect_exit(a, 1, timeout=60)
    msg = ("rendezvous state: pickle opcode 0x6e at byte 0 is not one a torch rendezvous state "
           "uses (TCPStore 127.0.0.1:%d key torch.rendezvous.bad)" % port)
    check(msg in a.output(), a.output())


def etcd_v2_interop(h):
    """etcd-v2: 2 ejob-agents + 2 torchrun agents (started alternately) in one round; gloo
    all_reduce over 4 ranks; the state torch reads back from etcd is closed."""
    h.start_etcd()
    args = ["--local_addr=127.0.0.1", "--rdzv_backend=etcd-v2", "--rdzv_endpoint=" + h.etcd.endpoint,
            "--rdzv_id=v2mix", "--nnodes=4", os.path.join(HERE, "gloo_allreduce.py"), "--out", h.out,
            "--expect-world", "4"]
    for i in range(2):
        h.torchrun("torchrun%d" % i, args)
        h.ejob("ejob%d" % i, args)
        time.sleep(0.5)
    for a in h.agents:
        expect_exit(a, 0, timeout=150)
    recs = h.records()
    check(sorted(r["rank"] for r in recs) == [0, 1, 2, 3], "ranks %s" % recs)
    check(all(r["ok"] and r["sum"] == 10.0 and r["world"] == 4 for r in recs), "all-reduce %s" % recs)
    import base64
    import pickle
    node = h.etcd.get("/torch/elastic/rendezvous/v2mix")["node"]
    state = pickle.loads(base64.b64decode(node["value"]))
    check(state.closed and state.round == 0 and len(state.participants) == 4, "state %s" % vars(state))


SCENARIOS = {f.__name__: f for f in [
    fixed, elastic_last_call, late_joiner_scale_up, worker_crash_restart,
    agent_store_restart_counts, warm_workers, warm_worker_lost, worker_failure_final,
    agent_killed, signal_forwarding, closed_rendezvous, etcd_restart, malformed_state,
    https_client_certs, etcd_late, cli_errors,
    standalone, interop_ejob_first, interop_torchrun_first, interop_restart,
    c10d_interop_ejob_hosts, c10d_interop_torchrun_hosts, c10d_node_lost, c10d_torchrun_node_lost,
    c10d_node_lost_torch_timing, etcd_v2_interop,
    c10d_restart, c10d_malformed_state, etcd_v2_node_lost, c10d_late_joiner,
    c10d_store_host_lost, standalone_twice, c10d_hosts_at_once]}

if __name__ == "__main__":
    sys.exit(run_scenarios(SCENARIOS, sys.argv))
