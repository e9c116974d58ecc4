"""A stdlib-only worker for the agent's integration tests.

Records its environment and argv as one JSON file in --out, then behaves as asked:
  --crash-rank R --crash-at-restart K   exit 3 (or die by --crash-signal) when RANK=R and
                                        TORCHELASTIC_RESTART_COUNT=K
  --crash-once FILE                     ... only the first time (FILE marks it)
  --hold FILE                           wait until FILE exists (a running job)
  --child                               start a grandchild that sleeps (orphan checks)
  --linked                              with --hold: RANK 0 listens on MASTER_PORT, every
                                        other rank connects; a dropped link fails the worker
                                        (exit 1), as a collective fails when a peer dies
"""
import socket
import argparse
import json
import os
import signal
import subprocess
import sys
import time

KEYS = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE", "ROLE_RANK",
        "ROLE_NAME", "LOCAL_WORLD_SIZE", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS", "TORCHELASTIC_RUN_ID",
        "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE", "NCCL_ASYNC_ERROR_HANDLING",
        "OMP_NUM_THREADS", "AGENT_TAG"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--crash-rank", type=int, default=-1)
    p.add_argument("--crash-at-restart", type=int, default=0)
    p.add_argument("--crash-signal", type=int, default=0)
    p.add_argument("--crash-once", help="crash only if this marker file can be created")
    p.add_argument("--hold")
    p.add_argument("--child", action="store_true")
    p.add_argument("--linked", action="store_true")
    p.add_argument("rest", nargs="*")
    a = p.parse_args()
    rec = {k: os.environ.get(k) for k in KEYS}
    rec["argv"] = sys.argv[1:]
    rec["pid"] = os.getpid()
    rec["t"] = time.time()
    rec["pgid"] = os.getpgid(0)
    if a.child:
        rec["child"] = subprocess.Popen(["sleep", "300"]).pid
    name = "%s_%s_%d.json" % (os.environ.get("AGENT_TAG", "x"), os.environ["RANK"], os.getpid())
    tmp = os.path.join(a.out, name + ".tmp")
    with open(tmp, "w") as f:
        json.dump(rec, f)
    os.rename(tmp, os.path.join(a.out, name))
    print("worker rank %s ready" % os.environ["RANK"], flush=True)
    restart = int(os.environ["TORCHELASTIC_RESTART_COUNT"])
    crash = int(os.environ["RANK"]) == a.crash_rank and restart == a.crash_at_restart
    if crash and a.crash_once:
        try:
            os.close(os.open(a.crash_once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        except FileExistsError:
            crash = False
    if crash:
        if a.crash_signal:
            os.kill(os.getpid(), a.crash_signal)
        sys.exit(3)
    links = link_ranks(a.out) if a.linked else []
    while a.hold and not os.path.exists(a.hold):
        for s in links:
            s.settimeout(0)
            try:
                if s.recv(1) == b"":
                    sys.exit(1)  # the peer is gone
            except BlockingIOError:
                pass
            except OSError:
                sys.exit(1)
        time.sleep(0.05)


def link_ranks(out):
    """Rank 0 accepts a connection from every other rank on MASTER_ADDR:MASTER_PORT, or, where
    the agent hosts the workers' store there (TORCHELASTIC_USE_AGENT_STORE=True), on a free
    port it names in a file of --out, as a process group would find it in that store."""
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    addr = (os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]))
    agent_store = os.environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True"
    port_file = os.path.join(out, "link_%d.port" % addr[1])
    if rank == 0:
        server = socket.create_server((addr[0], 0) if agent_store else addr, reuse_port=False)
        if agent_store:
            with open(port_file + ".tmp", "w") as f:
                f.write(str(server.getsockname()[1]))
            os.rename(port_file + ".tmp", port_file)
        links = [server.accept()[0] for _ in range(world - 1)]
        server.close()
        return links
    deadline = time.time() + 60
    while True:
        try:
            if agent_store:
                with open(port_file) as f:
                    addr = (addr[0], int(f.read()))
            return [socket.create_connection(addr, timeout=5)]
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


if __name__ == "__main__":
    main()
