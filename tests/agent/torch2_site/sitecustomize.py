"""Loaded by every python of torch2_it.py (PYTHONPATH) inside the Debian 13 root.

Debian builds torch 2.6 without libuv, yet TCPStore's `use_libuv` defaults to True and neither
torchrun's c10d backend, its shared agent store, nor init_process_group("env://") pass it: as
packaged, every c10d torchrun and every env:// worker fails with "use_libuv was requested but
PyTorch was build without libuv support". This makes the default False (torch's classic server;
the bytes on the wire are the same) wherever those modules name TCPStore.
"""
import importlib

import torch.distributed as dist
from torch.distributed.elastic.rendezvous import c10d_rendezvous_backend

# The module, not the function torch.distributed.rendezvous that shadows it as an attribute.
rendezvous = importlib.import_module("torch.distributed.rendezvous")


class _ClassicTCPStore(dist.TCPStore):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("use_libuv", False)
        super().__init__(*args, **kwargs)


for _module in (dist, rendezvous, c10d_rendezvous_backend):
    _module.TCPStore = _ClassicTCPStore
