"""The training script of the spot bench (bench/spot/bench.py): a small MLP trained on
scikit-learn's handwritten digits with DistributedDataParallel over gloo, one step every
--step-ms, paced so that the bench's clock has a fine grain and 3 nodes fit on 2 cores.

What it records, in --out:
  steps-<AGENT_TAG>.log   one line per finished step: `<unix time> <world size> <step>`
  told-<AGENT_TAG>.json   when this worker was told to stop (SIGTERM or EJOB_PREEMPT_FILE,
                          whichever it saw first) and the step it checkpointed
Checkpoints (--ckpt, shared by the nodes as a volume would be): every --every steps by rank 0,
and by every worker that is told to stop, after the step it is in (step-<N>.pt, written and
renamed). A (re)started world resumes from the newest one: the steps lost are the finished
steps after it.
"""
import argparse
import glob
import json
import os
import re
import signal
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from sklearn.datasets import load_digits

TOLD = []


def on_sigterm(signum, frame):
    if not TOLD:
        TOLD.append(time.time())


def preempt_file_time():
    path = os.environ.get("EJOB_PREEMPT_FILE")
    try:
        return os.stat(path).st_mtime if path else None
    except FileNotFoundError:
        return None


def latest_checkpoint(folder):
    steps = [int(m.group(1)) for p in glob.glob(os.path.join(folder, "step-*.pt"))
             if (m := re.search(r"step-(\d+)\.pt$", p))]
    return os.path.join(folder, "step-%d.pt" % max(steps)) if steps else None


def save(folder, model, optimizer, step):
    path = os.path.join(folder, "step-%d.pt" % step)
    tmp = "%s.%d.tmp" % (path, os.getpid())
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "step": step}, tmp)
    os.replace(tmp, path)


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--ckpt", required=True)
    p.add_argument("--every", type=int, default=100, help="periodic checkpoint every N steps")
    p.add_argument("--step-ms", type=float, default=50.0)
    p.add_argument("--collective-timeout", type=float, default=1800.0,
                   help="seconds a collective waits for a silent peer (torch's default: 1800)")
    return p.parse_args()


def main():
    a = parse_args()
    signal.signal(signal.SIGTERM, on_sigterm)
    tag = os.environ.get("AGENT_TAG", "node")
    dist.init_process_group("gloo", timeout=timedelta(seconds=a.collective_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    ddp = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(ddp.parameters(), lr=0.05)
    digits = load_digits()
    x = torch.tensor(digits.data, dtype=torch.float32) / 16.0
    y = torch.tensor(digits.target)
    step = 0
    resume = latest_checkpoint(a.ckpt)
    if resume:
        state = torch.load(resume)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        step = state["step"]
    log = open(os.path.join(a.out, "steps-%s.log" % tag), "a", buffering=1)
    while True:
        told = TOLD[0] if TOLD else preempt_file_time()
        if told is not None:
            save(a.ckpt, model, optimizer, step)
            with open(os.path.join(a.out, "told-%s.json" % tag), "w") as f:
                json.dump({"told": told, "step": step, "world": world, "rank": rank}, f)
            sys.exit(0)
        begin = time.time()
        batch = torch.arange(step * 32 * world + rank * 32, step * 32 * world + rank * 32 + 32) % len(y)
        optimizer.zero_grad()
        nn.functional.cross_entropy(ddp(x[batch]), y[batch]).backward()
        optimizer.step()
        step += 1
        log.write("%.3f %d %d\n" % (time.time(), world, step))
        if rank == 0 and step % a.every == 0:
            save(a.ckpt, model, optimizer, step)
        time.sleep(max(0.0, a.step_ms / 1000.0 - (time.time() - begin)))


if __name__ == "__main__":
    main()
