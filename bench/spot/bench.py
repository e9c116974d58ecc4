"""Spot preemption, side by side in one run: how long the surviving nodes stop training when a
node is taken back after a cloud's notice, against when the same node is lost without one.

Each case is a real rendezvous of 3 nodes on this machine (--nnodes=2:3, the agents' default
rendezvous settings): ejob-agent `ejob0` (the c10d store's host), ejob-agent `victim` (watching
a fake Azure Scheduled Events service, tests/agent/fake_metadata.py, through
EJOB_SPOT_METADATA_URL) and a real torchrun agent `torchrun1` (Debian's torch 1.13), training
bench/spot/trainer.py (DDP over gloo on the digits, a step every 50 ms, rank 0 checkpointing
every 100 steps). After 40 steps of the world of 3 the victim goes:

  notice  the cloud announces a Preempt 30 s ahead: ejob-agent tells its worker (the preempt
          file and SIGTERM), the worker checkpoints and exits, the agent leaves the rendezvous
  kill    its agent and worker are SIGKILLed: `ejob evict` without --notice, a process crash
          (the kernel closes the node's sockets: the peers see the loss at once)
  vanish  its agent and worker are SIGSTOPped and never resumed: a VM gone without a word
          (no FIN, no RST: a peer learns of it only from a timeout; the collectives' timeout
          is --collective-timeout, torch's default is 30 minutes)

Figures per case: `stall` = the survivors' first step in the world of 2 minus their last step in
the world of 3 (the time the survivors did not train), `lost` = finished steps of the world of 3
after the checkpoint the world of 2 resumed from, and for a notice `told` = the notice posted ->
the worker told. The cases alternate (etcd and c10d, each mode in turn); medians are printed,
with the ratios notice/kill and notice/vanish (issue target: <= 1/5, steps lost 0, told <= 1 s).

Usage (Debian's python, which has torch):
  /usr/bin/python3 bench/spot/bench.py [--agent build/ci/ejob-agent] [--repeat 3]
      [--backends etcd,c10d] [--modes notice,kill,vanish] [--collective-timeout 60] [--keep]
"""
import argparse
import glob
import json
import os
import signal
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "agent"))
from fake_metadata import FakeMetadata  # noqa: E402
from harness import Failure, Harness, free_port, wait_until  # noqa: E402

WARM_STEPS = 40
NEW_WORLD_STEPS = 10
SURVIVORS = ("ejob0", "torchrun1")


def steps(h, tag):
    """[(time, world, step)] of one node's worker(s), oldest first."""
    path = os.path.join(h.out, "steps-%s.log" % tag)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [(float(t), int(w), int(s)) for t, w, s in
                (line.split() for line in f if line.endswith("\n"))]


def in_world(h, tag, size):
    return [r for r in steps(h, tag) if r[1] == size]


def start_nodes(h, backend, args):
    if backend == "etcd":
        h.start_etcd()
        rdzv = ["--rdzv_backend=etcd", "--rdzv_endpoint=" + h.etcd.endpoint]
    else:
        rdzv = ["--rdzv_backend=c10d", "--rdzv_endpoint=127.0.0.1:%d" % free_port()]
    common = ["--local_addr=127.0.0.1", "--rdzv_id=bench", "--nnodes=2:3", "--max_restarts=10",
              "--monitor_interval=1"] + rdzv
    ckpt = os.path.join(h.root, "ckpt")
    os.makedirs(ckpt, exist_ok=True)
    script = [os.path.join(HERE, "trainer.py"), "--out", h.out, "--ckpt", ckpt,
              "--collective-timeout", str(args.collective_timeout)]
    # ejob0 hosts the c10d store, as the master pod of a PyTorchJob does; the others only
    # connect (on one machine whoever binds the port first would host it).
    host, guest = (["--rdzv_conf=is_host=1"], ["--rdzv_conf=is_host=0"]) if backend == "c10d" else ([], [])
    fake = FakeMetadata("azure")
    # A victim killed mid-request resets its connection: not worth a traceback per case.
    fake.server.handle_error = lambda request, address: None
    h.ejob("ejob0", common + host + script)
    h.ejob("victim", common + guest + script,
           {"EJOB_SPOT_NOTICES": "azure", "EJOB_SPOT_METADATA_URL": fake.url})
    h.torchrun("torchrun1", common + guest + script)
    return fake


def victim_pids(victim):
    return sorted(set([victim.proc.pid] + victim.started_processes()))


def take_victim(h, mode, fake):
    """The victim goes; returns when it was told (the event's time)."""
    victim = h.agents[1]
    at = time.time()
    if mode == "notice":
        fake.notice(30)
    elif mode == "kill":
        victim.kill_all()
    else:  # vanish: frozen, sockets left open, as a VM that is gone without a word
        for pid in victim_pids(victim):
            try:
                os.kill(pid, signal.SIGSTOP)
            except ProcessLookupError:
                pass
    return at


def measure(h, mode, event_at):
    last_old = max(r[0] for tag in SURVIVORS for r in in_world(h, tag, 3))
    firsts = [in_world(h, tag, 2)[0] for tag in SURVIVORS]
    first_new = max(r[0] for r in firsts)
    finished_old = max(r[2] for tag in SURVIVORS for r in in_world(h, tag, 3))
    resumed_from = min(r[2] for r in firsts) - 1
    figures = {"stall": first_new - last_old, "from_event": first_new - event_at,
               "lost": finished_old - resumed_from}
    if mode == "notice":
        told = glob.glob(os.path.join(h.out, "told-victim.json"))
        if not told:
            raise Failure("the victim's worker was never told of the notice")
        with open(told[0]) as f:
            figures["told"] = json.load(f)["told"] - event_at
    return figures


def run_case(args, backend, mode):
    h = Harness(args.agent)
    fake = None
    try:
        fake = start_nodes(h, backend, args)
        wait_until(lambda: all(len(in_world(h, t, 3)) >= WARM_STEPS for t in SURVIVORS), 180,
                   "the world of 3 training")
        event_at = take_victim(h, mode, fake)
        wait_until(lambda: all(len(in_world(h, t, 2)) >= NEW_WORLD_STEPS for t in SURVIVORS),
                   args.collective_timeout + 300, "the survivors training in a world of 2")
        return measure(h, mode, event_at)
    except Failure:
        for a in h.agents:
            print("---- %s ----\n%s" % (a.name, a.output()[-3000:]), file=sys.stderr)
        raise
    finally:
        if fake:
            fake.close()
        for pid in victim_pids(h.agents[1]) if len(h.agents) > 1 else []:
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        h.close(keep=args.keep)


def report(results, modes):
    print("\n%-6s %-7s %8s %8s %8s %6s %5s" % ("", "mode", "stall s", "min", "event->", "told s",
                                                "lost"))
    for backend in sorted({b for b, _ in results}):
        med = {}
        for mode in modes:
            runs = results.get((backend, mode), [])
            if not runs:
                continue
            med[mode] = statistics.median(r["stall"] for r in runs)
            told = [r["told"] for r in runs if "told" in r]
            print("%-6s %-7s %8.2f %8.2f %8.2f %6s %5s" % (
                backend, mode, med[mode], min(r["stall"] for r in runs),
                statistics.median(r["from_event"] for r in runs),
                "%.2f" % max(told) if told else "-", max(r["lost"] for r in runs)))
        for other in ("kill", "vanish"):
            if "notice" in med and other in med:
                print("%-6s notice / %s: %.3f" % (backend, other, med["notice"] / med[other]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent", default=os.path.join(REPO, "build", "ci", "ejob-agent"))
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--backends", default="etcd,c10d")
    p.add_argument("--modes", default="notice,kill,vanish")
    p.add_argument("--collective-timeout", type=float, default=60.0)
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    modes = args.modes.split(",")
    results = {}
    for rep in range(args.repeat):
        order = modes if rep % 2 == 0 else list(reversed(modes))
        for backend in args.backends.split(","):
            for mode in order:
                r = run_case(args, backend, mode)
                results.setdefault((backend, mode), []).append(r)
                print("run %d %-4s %-6s stall %.2f s, from the event %.2f s, lost %d%s" % (
                    rep + 1, backend, mode, r["stall"], r["from_event"], r["lost"],
                    ", told %.2f s" % r["told"] if "told" in r else ""), flush=True)
    report(results, modes)


if __name__ == "__main__":
    main()
