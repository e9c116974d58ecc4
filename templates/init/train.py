"""Elastic training skeleton for ejob (ejob-agent or torchrun as the launcher).

Workers may come and go (spot preemption, scale up/down): the launcher then restarts every
worker process with a new RANK/WORLD_SIZE. So the script
  * reads its rank and world size from the environment the launcher sets,
  * resumes from the newest checkpoint at start-up (model, optimizer, epoch, position),
  * lets only global rank 0 write checkpoints (to shared storage such as a Blob mount),
    atomically (write a temporary file, then rename), keeping the last few,
  * shards data with ElasticDistributedSampler, which can start mid-epoch where the last
    checkpoint left off,
  * saves a checkpoint and exits when told to stop: on a spot VM about to be taken back,
    ejob-agent writes the notice to the file EJOB_PREEMPT_FILE names and sends SIGTERM
    (docs/spot.md); any other SIGTERM (a pod being deleted) is taken the same way. The
    node's local rank 0 saves (every replica holds the same model) before the deadline.
Replace build_model() and build_dataset() with your own.
"""

import argparse
import glob
import json
import os
import signal

import torch
import torch.distributed as dist
from torch.distributed.elastic.utils.data import ElasticDistributedSampler
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset


def default_checkpoint_dir():
    """$CHECKPOINT_DIR; else the folder `ejob submit --local` gives the job
    ($EJOB_CHECKPOINT_DIR); else /checkpoints where it can be written (a pod, or a mount
    there); else under $XDG_STATE_HOME, so that a run as an ordinary user works too."""
    for var in ("CHECKPOINT_DIR", "EJOB_CHECKPOINT_DIR"):
        if os.environ.get(var):
            return os.environ[var]
    if os.access("/checkpoints", os.W_OK) or os.access("/", os.W_OK):
        return "/checkpoints"
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    return os.path.join(state, "ejob", "checkpoints", os.environ.get("TORCHELASTIC_RUN_ID", "train"))


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--checkpoint-dir", default=default_checkpoint_dir())
    p.add_argument("--checkpoint-every", type=int, default=100, help="steps between checkpoints")
    p.add_argument("--keep", type=int, default=3, help="checkpoints to keep")
    return p.parse_args()


def build_model():
    return torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))


def build_dataset():
    g = torch.Generator().manual_seed(0)
    x = torch.randn(10000, 32, generator=g)
    return TensorDataset(x, x.sum(dim=1, keepdim=True))


class StopRequest:
    """A preemption notice (EJOB_PREEMPT_FILE written, then SIGTERM) or any SIGTERM. The
    handler only takes note; the loop looks after every step."""

    def __init__(self):
        self.signalled = False
        self.path = os.environ.get("EJOB_PREEMPT_FILE")
        signal.signal(signal.SIGTERM, lambda signum, frame: setattr(self, "signalled", True))

    def requested(self):
        return self.signalled or bool(self.path and os.path.exists(self.path))

    def notice(self):
        """The notice (cloud, event, deadline, exit_by and their _epoch seconds), or None."""
        try:
            with open(self.path) as f:
                return json.load(f)
        except (TypeError, OSError, ValueError):
            return None


def newest_checkpoint(directory):
    paths = sorted(glob.glob(os.path.join(directory, "checkpoint-*.pt")))
    return paths[-1] if paths else None


def load_checkpoint(directory, model, optimizer, device):
    """Returns (epoch, samples seen in that epoch, step) of the newest checkpoint, or zeros."""
    path = newest_checkpoint(directory)
    if path is None:
        return 0, 0, 0
    state = torch.load(path, map_location=device)
    model.load_state_dict(state["model"])
    optimizer.load_state_dict(state["optimizer"])
    print(f"resumed from {path}: epoch {state['epoch']}, sample {state['sample']}", flush=True)
    return state["epoch"], state["sample"], state["step"]


def save_checkpoint(directory, step, model, optimizer, epoch, sample, keep):
    """Rank 0 only: write atomically, then drop all but the newest `keep` checkpoints."""
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"checkpoint-{step:012d}.pt")
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "epoch": epoch, "sample": sample, "step": step}
    torch.save(state, path + ".tmp")
    os.replace(path + ".tmp", path)
    for old in sorted(glob.glob(os.path.join(directory, "checkpoint-*.pt")))[:-keep]:
        os.remove(old)


def main():
    args = parse_args()
    stop = StopRequest()
    # The launcher sets RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT.
    rank, local_rank = int(os.environ["RANK"]), int(os.environ["LOCAL_RANK"])
    world = int(os.environ["WORLD_SIZE"])
    use_cuda = torch.cuda.is_available()
    device = torch.device(f"cuda:{local_rank}" if use_cuda else "cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    dist.init_process_group("nccl" if use_cuda else "gloo")

    model = build_model().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    # Every rank loads the same checkpoint, so all replicas start identical.
    epoch, sample, step = load_checkpoint(args.checkpoint_dir, model, optimizer, device)
    ddp = DistributedDataParallel(model, device_ids=[local_rank] if use_cuda else None)

    dataset = build_dataset()
    while epoch < args.epochs:
        # start_index skips what the previous world already trained on in this epoch.
        sampler = ElasticDistributedSampler(dataset, num_replicas=world, rank=rank,
                                            start_index=sample)
        sampler.set_epoch(epoch)
        loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler)
        for x, y in loader:
            if stop.requested():
                # This node is going: its first worker saves where training is, then all leave
                # (the other nodes' next collective fails and they resume from here).
                if local_rank == 0:
                    save_checkpoint(args.checkpoint_dir, step, model, optimizer, epoch, sample,
                                    args.keep)
                    print(f"stopping at step {step} ({stop.notice() or 'SIGTERM'}): saved",
                          flush=True)
                os._exit(0)
            loss = torch.nn.functional.mse_loss(ddp(x.to(device)), y.to(device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            sample += args.batch_size * world
            if step % args.checkpoint_every == 0 and rank == 0:
                save_checkpoint(args.checkpoint_dir, step, model, optimizer, epoch, sample,
                                args.keep)
        if rank == 0:
            print(f"epoch {epoch} done, loss {loss.item():.4f}, world {world}", flush=True)
        epoch, sample = epoch + 1, 0
        if rank == 0:
            save_checkpoint(args.checkpoint_dir, step, model, optimizer, epoch, sample, args.keep)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
