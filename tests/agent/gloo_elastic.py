"""A torch worker for elastic scenarios: gloo process group, all_reduce of (rank + 1), one
JSON record per round in --out. While the world is not --final-world it keeps all-reducing (a
job in training) until a peer dies and the collective fails (exit 1) or its agent stops it for
a new round (a node joined); in a world of --final-world it records and exits 0."""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--final-world", type=int, required=True)
    a = p.parse_args()
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo")
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    rec = {"rank": rank, "world": world, "sum": t.item(), "ok": t.item() == world * (world + 1) / 2,
           "agent": os.environ.get("AGENT_TAG"),
           "restart_count": int(os.environ["TORCHELASTIC_RESTART_COUNT"])}
    # Written whole, then renamed: the test polls the folder meanwhile (a half-written
    # record failed it with a JSON error).
    path = os.path.join(a.out, "w%d_r%d.json" % (world, rank))
    with open(path + ".tmp", "w") as f:
        json.dump(rec, f)
    os.rename(path + ".tmp", path)
    print(json.dumps(rec), flush=True)
    if world != a.final_world:
        deadline = time.time() + 150
        while time.time() < deadline:  # training until a peer is lost or joins
            dist.all_reduce(torch.tensor([1.0]))
            time.sleep(0.2)
        sys.exit(2)
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0 if rec["ok"] else 1)


if __name__ == "__main__":
    main()
