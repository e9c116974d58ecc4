"""Elastic data-parallel training of a small CNN on scikit-learn's handwritten digits, on CPU.

What it shows: a training script that survives nodes coming and going. Every rank joins one
gloo process group from the environment the elastic launcher sets (RANK, WORLD_SIZE,
MASTER_ADDR, MASTER_PORT), trains with DistributedDataParallel and a DistributedSampler, and
rank 0 writes a checkpoint atomically after every epoch. When a node is lost the launchers
re-form with the nodes left and restart the workers, which resume from the last checkpoint.

When the cloud is about to take a spot node back, ejob-agent tells that node's workers
(docs/spot.md): it writes the notice to the file EJOB_PREEMPT_FILE names and sends SIGTERM.
Any SIGTERM means the same here (a pod being deleted, torchrun stopping its workers): the
worker finishes its batch, the node's local rank 0 saves a checkpoint of the current model
(every replica holds the same one) and the worker exits; the others resume from it.

The data (1,797 8x8 images, no download) ships with Debian's python3-sklearn; torch is
Debian's python3-torch (1.13) or any newer one. A run takes seconds per node on one CPU.

Run it:
    ejob submit examples/digits.yaml --local --wait        # 1 to 2 local nodes (from the repo root)
    PYTHON_EXEC=/usr/bin/python3 ejob-agent --rdzv_backend=etcd --rdzv_endpoint=127.0.0.1:2379 \
        --rdzv_id=digits1 --nnodes=1:2 --nproc_per_node=1 --max_restarts=3 \
        examples/digits/train.py --epochs=20                 # once per node
    /usr/bin/python3 -m torch.distributed.run --standalone --nproc_per_node=2 -r 1 -t 1 \
        examples/digits/train.py                             # torchrun, one node
    /usr/bin/python3 examples/digits/train.py                # one process, no launcher

Rank 0 prints one line per epoch (`epoch 3/20 loss 0.1234 world 2 (restart 0)`), `resumed from
epoch N (checkpoint PATH)` when it continues a run, and `test accuracy 0.9722` at the end.
"""

import argparse
import json
import os
import signal
import socket
import sys

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

SEED = 0
CHECKPOINT = "checkpoint.pt"


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32, help="per worker process")
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--checkpoint-dir", default=None,
                        help="default: $EJOB_CHECKPOINT_DIR, else "
                             "${XDG_STATE_HOME:-~/.local/state}/ejob/checkpoints/RUN_ID")
    return parser.parse_args()


def checkpoint_dir(flag):
    if flag:
        return flag
    if os.environ.get("EJOB_CHECKPOINT_DIR"):
        return os.environ["EJOB_CHECKPOINT_DIR"]
    state = os.environ.get("XDG_STATE_HOME") or os.path.expanduser("~/.local/state")
    run_id = os.environ.get("TORCHELASTIC_RUN_ID") or "digits"
    return os.path.join(state, "ejob", "checkpoints", run_id)


def load_data():
    """The digits as tensors, split 80/20 into train and test the same way on every run."""
    try:
        from sklearn.datasets import load_digits
        from sklearn.model_selection import train_test_split
    except ImportError:
        sys.exit("error: scikit-learn is missing; install Debian's python3-sklearn "
                 "(apt-get install python3-sklearn) and run this with /usr/bin/python3")
    digits = load_digits()
    x = torch.tensor(digits.images, dtype=torch.float32).unsqueeze(1) / 16.0  # N x 1 x 8 x 8
    y = torch.tensor(digits.target, dtype=torch.long)
    x_train, x_test, y_train, y_test = train_test_split(
        x, y, test_size=0.2, random_state=SEED, stratify=y)
    return TensorDataset(x_train, y_train), TensorDataset(x_test, y_test)


class Net(nn.Module):
    """Two 3x3 convolutions, one 2x2 max pool, two linear layers: ~40k parameters."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc2(F.relu(self.fc1(x.flatten(1))))


class StopRequest:
    """The launcher's request to stop: a preemption notice (EJOB_PREEMPT_FILE written, then
    SIGTERM, ejob-agent's --preempt-signal) or any SIGTERM. The handler only takes note; the
    training loop looks after every batch, so a checkpoint is never written mid-step."""

    def __init__(self):
        self.signalled = False
        self.path = os.environ.get("EJOB_PREEMPT_FILE")
        signal.signal(signal.SIGTERM, self._on_signal)

    def _on_signal(self, signum, frame):
        self.signalled = True

    def requested(self):
        return self.signalled or bool(self.path and os.path.exists(self.path))

    def notice(self):
        """The notice's fields (cloud, event, deadline, exit_by, ...), or None."""
        try:
            with open(self.path) as f:
                return json.load(f)
        except (TypeError, OSError, ValueError):
            return None


def init_distributed():
    """Joins the process group; without a launcher, a group of one on a free local port."""
    if "RANK" not in os.environ:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        os.environ.update(RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo")
    return dist.get_rank(), dist.get_world_size()


def save_checkpoint(path, model, optimizer, epoch):
    """Written to a temporary file and renamed: a reader sees the old checkpoint or the new one."""
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": epoch}
    tmp = f"{path}.tmp.{os.getpid()}"
    torch.save(state, tmp)
    os.replace(tmp, path)


def load_checkpoint(path, model, optimizer, rank):
    """Rank 0 reads the checkpoint, if any, and sends it to every rank, so that all ranks
    resume from the same epoch. Returns the last finished epoch (0 for a fresh start)."""
    state = [torch.load(path) if rank == 0 and os.path.exists(path) else None]
    dist.broadcast_object_list(state, src=0)
    if state[0] is None:
        return 0
    model.load_state_dict(state[0]["model"])
    optimizer.load_state_dict(state[0]["optimizer"])
    if rank == 0:
        print(f"resumed from epoch {state[0]['epoch']} (checkpoint {path})", flush=True)
    return state[0]["epoch"]


def train_epoch(model, loader, optimizer, stop):
    """One pass over this rank's shard; returns the mean loss over all ranks, or None when a
    stop was requested (the pass is left after the current batch)."""
    model.train()
    total = torch.zeros(2)  # sum of losses, number of samples
    for x, y in loader:
        if stop.requested():
            return None
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += torch.tensor([loss.item() * len(y), len(y)])
    dist.all_reduce(total)
    return (total[0] / total[1]).item()


def save_and_exit(path, net, optimizer, finished_epoch, stop):
    """A stop was requested: the node's first worker saves the model as it is now (with the
    last finished epoch, so a resumed run repeats the one under way with these weights), and
    every worker leaves."""
    if int(os.environ.get("LOCAL_RANK", "0")) == 0:
        save_checkpoint(path, net, optimizer, finished_epoch)
        notice = stop.notice()
        why = ("preemption notice (%s %s, the VM goes at %s)" % (
            notice["cloud"], notice["event"], notice["deadline"]) if notice else "SIGTERM")
        print(f"{why}: saved the model after epoch {finished_epoch} and part of the next "
              f"(checkpoint {path}); exiting", flush=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # without the process group's teardown (see the end of main)


@torch.no_grad()
def accuracy(model, dataset):
    model.eval()
    x, y = dataset.tensors
    return (model(x).argmax(1) == y).float().mean().item()


def main():
    args = parse_args()
    stop = StopRequest()  # before the slow start: a notice may come at any time
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    train_set, test_set = load_data()
    rank, world = init_distributed()
    restart = os.environ.get("TORCHELASTIC_RESTART_COUNT", "0")

    directory = checkpoint_dir(args.checkpoint_dir)
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, CHECKPOINT)

    net = Net()
    optimizer = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9)
    first = load_checkpoint(path, net, optimizer, rank) + 1
    model = DistributedDataParallel(net)

    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True, seed=SEED)
    loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler)
    for epoch in range(first, args.epochs + 1):
        sampler.set_epoch(epoch)
        loss = train_epoch(model, loader, optimizer, stop)
        if loss is None:
            save_and_exit(path, net, optimizer, epoch - 1, stop)
        if rank == 0:
            save_checkpoint(path, net, optimizer, epoch)
            print(f"epoch {epoch}/{args.epochs} loss {loss:.4f} world {world} (restart {restart})",
                  flush=True)

    if rank == 0:
        print(f"test accuracy {accuracy(net, test_set):.4f}", flush=True)
    dist.barrier()
    # Every rank is done and rank 0 has printed the result: leave without tearing the process
    # group down. In torch 1.13 the teardown can deadlock after a restart (ProcessGroupGloo's
    # destructor joins its worker thread while that thread waits for the GIL to free a tensor),
    # which would hang this worker and, with it, the node's exit barrier.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
