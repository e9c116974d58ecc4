"""GPU check for the worker image: NCCL all_reduce on one CUDA device per worker.

Run under ejob-agent on a machine with NVIDIA GPUs, e.g.
  ejob-agent --standalone --nproc_per_node=gpu tests/agent/nccl_allreduce.py
or across nodes with --rdzv_backend=etcd. Each worker uses cuda:LOCAL_RANK, all-reduces a
tensor of (rank + 1) of --mib MiB, checks the sum against WORLD_SIZE, and prints one JSON line
with the bus bandwidth of the timed iterations. Exits non-zero on a wrong sum.
"""
import argparse
import json
import os
import sys
import time

import torch
import torch.distributed as dist


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mib", type=int, default=64)
    p.add_argument("--iters", type=int, default=20)
    a = p.parse_args()
    local = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local)
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    assert rank == int(os.environ["RANK"]) and world == int(os.environ["WORLD_SIZE"])
    n = a.mib * 1024 * 1024 // 4
    x = torch.full((n,), float(rank + 1), device="cuda")
    dist.all_reduce(x)
    expected = world * (world + 1) / 2
    ok = bool(torch.all(x == expected).item())
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(a.iters):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    elapsed = (time.perf_counter() - start) / a.iters
    busbw = (n * 4) * 2 * (world - 1) / world / elapsed / 1e9 if world > 1 else 0.0
    print(json.dumps({"rank": rank, "world": world, "device": torch.cuda.get_device_name(local),
                      "ok": ok, "mib": a.mib, "busbw_GBps": round(busbw, 2),
                      "nccl": ".".join(map(str, torch.cuda.nccl.version()))}), flush=True)
    dist.barrier()
    dist.destroy_process_group()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
