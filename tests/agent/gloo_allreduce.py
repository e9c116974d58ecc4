"""A real torch worker: gloo process group, all_reduce of (rank + 1), checks RANK/WORLD_SIZE.

Exits 0 when the sum equals WORLD_SIZE*(WORLD_SIZE+1)/2 and the env agrees with the process
group; writes one JSON line per worker to --out when given.
"""
import argparse
import json
import os
import sys
import time

PRELOADED = "torch" in sys.modules  # ejob-agent's warm workers (--preload torch)

import torch  # noqa: E402
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out")
    p.add_argument("--expect-world", type=int, required=True)
    p.add_argument("--crash-once", help="rank 1 exits 3 after the all_reduce if this marker "
                   "file can be created (a crash in the middle of training)")
    p.add_argument("--hold", help="after recording, wait until this file exists (a job that is "
                   "still training)")
    p.add_argument("--peer-waits", action="store_true", help="with --crash-once: before the "
                   "crash, the other ranks wait to be stopped instead of failing in a collective, "
                   "so that only the crashed rank's agent spends a restart")
    a = p.parse_args()
    rank = int(os.environ["RANK"])
    world = int(os.environ["WORLD_SIZE"])
    waits = a.peer_waits and rank != 1 and not os.path.exists(a.crash_once)
    dist.init_process_group("gloo")
    ok = dist.get_rank() == rank and dist.get_world_size() == world == a.expect_world
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    ok = ok and t.item() == world * (world + 1) / 2
    if a.crash_once and rank == 1:
        try:
            os.close(os.open(a.crash_once, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            os._exit(3)
        except FileExistsError:
            pass
    while waits:
        time.sleep(0.1)  # until the agent stops this worker for the next round
    dist.barrier()
    rec = {"rank": rank, "world": world, "sum": t.item(), "ok": ok,
           "group_rank": int(os.environ["GROUP_RANK"]), "agent": os.environ.get("AGENT_TAG"),
           "restart_count": int(os.environ["TORCHELASTIC_RESTART_COUNT"]),
           "master_addr": os.environ["MASTER_ADDR"],
           "agent_store": os.environ.get("TORCHELASTIC_USE_AGENT_STORE"),
           "preloaded": PRELOADED, "argv0": sys.argv[0], "path0": sys.path[0]}
    if a.out:
        # Written whole, then renamed: the test polls the folder meanwhile (a half-written
        # record failed it with a JSON error).
        path = os.path.join(a.out, "r%d.json" % rank)
        with open(path + ".tmp", "w") as f:
            json.dump(rec, f)
        os.rename(path + ".tmp", path)
    print(json.dumps(rec), flush=True)
    while a.hold and not os.path.exists(a.hold):
        time.sleep(0.1)
    dist.destroy_process_group()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
