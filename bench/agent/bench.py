"""ejob-agent next to torchrun (Debian's torch 1.13 through tests/agent/torchrun_wrapper.py) on
one real etcd (or, with --backend c10d, one TCPStore hosted by the first agent), in one run. Prints each figure and the ratio torchrun / ejob-agent.

  1. peak RSS of the agent process (VmHWM), 1 node, 1 worker
  2. kill -9 of one worker (2 nodes, --max_restarts=1) -> both workers running again
  3. launch of 4 agents (--nnodes=4) -> all 4 workers running
  4. kill -9 of one node of 4 (--nnodes=3:4) -> the 3 survivors' workers running again
     (--node-lost; ~1 min a run, so off by default)
  5. rendezvous of N ejob-agents, N = 2..128 (-> all N workers running), started one by one
     and released together

Workers are the stdlib test worker (tests/agent/worker.py) so the figures measure the agents,
not torch's import time. Usage: bench.py AGENT_BINARY [--backend etcd|c10d] [--max-n 128]
[--repeat 3]
"""
import argparse
import os
import signal
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "agent"))
from harness import Agent, Harness, free_port, wait_until  # noqa: E402

BACKEND = "etcd"


def rdzv(h, run_id, nnodes, *extra):
    if BACKEND == "c10d":
        # Every agent names the same local endpoint: the first to bind hosts the store, the
        # others (ejob-agent and torchrun alike) fall back to being its clients.
        if not hasattr(h, "store_port"):
            h.store_port = free_port()
        endpoint = "127.0.0.1:%d" % h.store_port
    else:
        endpoint = h.etcd.endpoint
    return ["--rdzv_backend=" + BACKEND, "--rdzv_endpoint=" + endpoint, "--rdzv_id=" + run_id,
            "--nnodes=" + nnodes] + list(extra)


def start(h, kind, tag, args):
    return h.ejob(tag, args) if kind == "ejob" else h.torchrun(tag, args)


def peak_rss_kib(agent):
    """Samples VmHWM of the agent process until it exits."""
    peak = 0
    while agent.proc.poll() is None:
        try:
            with open("/proc/%d/status" % agent.proc.pid) as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.02)
    return peak


def bench_rss(binary, kind, n):
    h = Harness(binary)
    try:
        h.start_etcd()
        hold = os.path.join(h.root, "release")
        a = start(h, kind, "a", rdzv(h, "rss%d" % n, "1") + h.worker_args("--hold", hold))
        wait_until(lambda: h.records(), 60, "the worker")
        time.sleep(0.5)
        open(hold, "w").close()
        return peak_rss_kib(a)
    finally:
        h.close(keep=False)


def bench_crash(binary, kind, n):
    """Seconds from kill -9 of a worker to both workers of the next round running."""
    h = Harness(binary)
    try:
        h.start_etcd()
        hold = os.path.join(h.root, "release")
        args = rdzv(h, "crash%d" % n, "2", "--max_restarts=1") + h.worker_args("--hold", hold)
        agents = [start(h, kind, "a%d" % i, args) for i in range(2)]
        first = wait_until(lambda: len(h.records()) == 2 and h.records(), 120, "round 1")
        time.sleep(1.0)
        victim = first[1]
        t_kill = time.time()
        os.kill(victim["pid"], signal.SIGKILL)
        port = victim["MASTER_PORT"]
        second = wait_until(lambda: (lambda r: r if len(r) == 2 else None)(
            [r for r in h.records() if r["MASTER_PORT"] != port]), 120, "round 2")
        open(hold, "w").close()
        for a in agents:
            a.wait(60)
        return max(r["t"] for r in second) - t_kill
    finally:
        h.close(keep=False)


def port_open(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def bench_node_lost(binary, kind, n):
    """4 nodes of a --nnodes=3:4 job whose workers are linked (a lost peer fails them, as a
    collective does); kill -9 of one node's agent and worker -> the 3 survivors' workers of
    the next round running. Both launchers keep torch's defaults: the dead node leaves the old
    round when its heartbeat is 15 s stale, the new round of 3 waits last_call_timeout (30 s)."""
    h = Harness(binary)
    try:
        h.start_etcd()
        hold = os.path.join(h.root, "release")
        args = rdzv(h, "lost%d" % n, "3:4", "--max_restarts=3") + \
            h.worker_args("--hold", hold, "--linked")
        # a0 alone first, so that it hosts the c10d store: losing the host ends a c10d run
        # for torchrun and ejob-agent alike (the store is not replicated).
        agents = [start(h, kind, "a0", args)]
        if BACKEND == "c10d":
            wait_until(lambda: port_open(h.store_port), 60, "a0's store")
        agents += [start(h, kind, "a%d" % i, args) for i in range(1, 4)]
        first = wait_until(lambda: len(h.records()) == 4 and h.records(), 120, "round 1")
        time.sleep(1.0)
        victim = next(r for r in first if r["AGENT_TAG"] == "a3")
        t_kill = time.time()
        os.kill(agents[3].proc.pid, signal.SIGKILL)
        os.kill(victim["pid"], signal.SIGKILL)
        port = victim["MASTER_PORT"]
        second = wait_until(lambda: (lambda r: r if len(r) == 3 else None)(
            [r for r in h.records() if r["MASTER_PORT"] != port]), 180, "the survivors' round")
        open(hold, "w").close()
        for a in agents[:3]:
            a.wait(60)
        return max(r["t"] for r in second) - t_kill
    finally:
        h.close(keep=os.environ.get("BENCH_KEEP") == "1")


def bench_start(binary, kind, n, nodes=4):
    """Seconds from launching `nodes` agents to all their workers running."""
    h = Harness(binary)
    try:
        h.start_etcd()
        hold = os.path.join(h.root, "release")
        args = rdzv(h, "start%d" % n, str(nodes)) + h.worker_args("--hold", hold)
        t0 = time.time()
        agents = [start(h, kind, "a%d" % i, args) for i in range(nodes)]
        recs = wait_until(lambda: len(h.records()) == nodes and h.records(), 300, "all workers")
        open(hold, "w").close()
        for a in agents:
            a.wait(120)
        return max(r["t"] for r in recs) - t0
    finally:
        h.close(keep=False)


def bench_scale(binary, n, together=False):
    """ejob-agents only: N agents, --nnodes=N, a shell worker; from the launch -> all workers ran.
    together: N shells wait on a FIFO and exec the agents at once (N pods starting together),
    timed from the release; else the agents are started one by one, timed from the first."""
    h = Harness(binary)
    try:
        if BACKEND == "etcd":
            h.start_etcd()
        args = rdzv(h, "scale%d" % n, str(n), "--no_python") + \
            ["/bin/sh", "-c", 'date +%s.%N > "$0/.$RANK" && mv "$0/.$RANK" "$0/$RANK"', h.out]
        release = start_together(h, binary, args, n) if together else None
        t0 = time.time()
        if release:
            go = release()
        else:
            for i in range(n):
                h.ejob("a%d" % i, args)
        done = lambda: [f for f in os.listdir(h.out) if not f.startswith(".")]  # noqa: E731
        wait_until(lambda: len(done()) == n, 600, "all workers")
        t_end = max(float(open(os.path.join(h.out, f)).read()) for f in done())
        for a in h.agents:
            a.wait(300)
        if release:
            os.close(go)
        return t_end - t0
    finally:
        h.close(keep=False)


def start_together(h, binary, args, n):
    """Starts N shells that block opening a FIFO, then exec the agent; returns the release (it
    opens the FIFO for writing, which lets every opener through, and returns that fd)."""
    fifo = os.path.join(h.root, "go")
    os.mkfifo(fifo)
    for i in range(n):
        h.agents.append(Agent(h.root, "a%d" % i, ["/bin/sh", "-c", ': <"$0"; exec "$@"', fifo,
                                                  binary] + args, h.env("a%d" % i)))

    def blocked(a):
        try:
            with open("/proc/%d/wchan" % a.proc.pid) as f:
                return f.read() == "wait_for_partner"
        except OSError:
            return False
    wait_until(lambda: all(blocked(a) for a in h.agents), 60, "the shells at the FIFO")
    return lambda: os.open(fifo, os.O_WRONLY)


def median_of(fn, repeat):
    values = [fn(i) for i in range(repeat)]
    return statistics.median(values), values


def main():
    p = argparse.ArgumentParser()
    p.add_argument("agent")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--max-n", type=int, default=128)
    p.add_argument("--backend", choices=["etcd", "c10d"], default="etcd")
    p.add_argument("--node-lost", action="store_true")
    a = p.parse_args()
    global BACKEND
    BACKEND = a.backend
    binary = os.path.abspath(a.agent)
    rows = []
    benches = [("peak RSS of the agent", bench_rss, "MiB", 20),
               ("worker crash -> all workers restarted", bench_crash, "s", 10),
               # issue 15's target for c10d; the legacy etcd rendezvous's was 3x
               ("4-node start -> all workers running", bench_start, "s",
                10 if BACKEND == "c10d" else 3)]
    if a.node_lost:
        benches.append(("node lost -> survivors running again", bench_node_lost, "s", 5))
    for name, fn, unit, target in benches:
        e, ev = median_of(lambda i: fn(binary, "ejob", i), a.repeat)
        t, tv = median_of(lambda i: fn(binary, "torchrun", i), a.repeat)
        if unit == "MiB":
            e, t, ev, tv = e / 1024, t / 1024, [v / 1024 for v in ev], [v / 1024 for v in tv]
        ratio = t / e if e else float("inf")
        rows.append((name, e, t, unit, ratio, target))
        print("%-40s ejob-agent %8.3f %s  torchrun %8.3f %s  ratio %6.1fx (target >= %dx) %s"
              % (name, e, unit, t, unit, ratio, target, "ok" if ratio >= target else "MISSED"),
              flush=True)
        print("    runs: ejob %s torchrun %s" % (["%.3f" % v for v in ev], ["%.3f" % v for v in tv]),
              flush=True)
    for together, how in ((False, "started one by one"), (True, "released together")):
        print("rendezvous of N ejob-agents, %s (-> all N workers ran; median of %d):"
              % (how, a.repeat), flush=True)
        n, prev = 2, None
        while n <= a.max_n:
            s, runs = median_of(lambda i: bench_scale(binary, n, together), a.repeat)
            growth = "" if prev is None else "  x%.2f for x2 agents" % (s / prev)
            print("    N=%4d  %7.3f s  %.1f ms/agent%s  runs %s" % (
                n, s, 1000 * s / n, growth, ["%.3f" % v for v in runs]), flush=True)
            prev, n = s, n * 2


if __name__ == "__main__":
    main()
