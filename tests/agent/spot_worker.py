"""A torch worker for the preemption scenarios (spot_it.py): gloo process group, all_reduce of
(rank + 1), one JSON record per round in --out (w<world>_r<rank>.json). While the world is not
--final-world it trains, an all_reduce every 0.1 s; when its agent tells it the VM goes
(EJOB_PREEMPT_FILE appeared, or the agent's signal, SIGTERM) it writes a checkpoint,
ckpt_<agent>_r<rank>.json with its step and the notice it read, and exits 0. A lost peer
fails the collective (exit 1); a SIGTERM without a notice file (a membership change) also
checkpoints and exits. In a world of --final-world it records and exits 0."""
import argparse
import json
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

STOP = []


def write_json(path, rec):
    # Whole, then renamed: the test polls the folder meanwhile.
    with open(path + ".tmp", "w") as f:
        json.dump(rec, f)
    os.rename(path + ".tmp", path)


def notice():
    path = os.environ.get("EJOB_PREEMPT_FILE")
    if not path or not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def checkpoint(out, rank, world, step):
    rec = {"rank": rank, "world": world, "step": step, "notice": notice(),
           "signalled": bool(STOP), "agent": os.environ.get("AGENT_TAG"),
           "preempt_file": os.environ.get("EJOB_PREEMPT_FILE")}
    write_json(os.path.join(out, "ckpt_%s_r%d.json" % (rec["agent"], rank)), rec)
    print("checkpoint " + json.dumps(rec), flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--final-world", type=int, required=True)
    a = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: STOP.append(1))
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo")
    t = torch.tensor([float(rank + 1)])
    dist.all_reduce(t)
    rec = {"rank": rank, "world": world, "sum": t.item(), "ok": t.item() == world * (world + 1) / 2,
           "agent": os.environ.get("AGENT_TAG"),
           "restart_count": int(os.environ["TORCHELASTIC_RESTART_COUNT"])}
    write_json(os.path.join(a.out, "w%d_r%d.json" % (world, rank)), rec)
    print(json.dumps(rec), flush=True)
    if world != a.final_world:
        step, deadline = 0, time.time() + 150
        while time.time() < deadline:  # training until told, or until a peer is lost
            if STOP or notice():
                checkpoint(a.out, rank, world, step)
                sys.exit(0)
            dist.all_reduce(torch.tensor([1.0]))
            step += 1
            time.sleep(0.1)
        sys.exit(2)
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0 if rec["ok"] else 1)


if __name__ == "__main__":
    main()
