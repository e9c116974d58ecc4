"""torch's own TCPStore (1.13, or 2.6 in the Debian 13 root) as a peer of the C++ store tests
(src/agent/store/tcp_store_test.cpp). torch 2.x's client also runs what 1.13 lacks: APPEND,
MULTI_SET/MULTI_GET, and a WAIT that times out (CANCEL_WAIT) on a connection used again after.
Debian's torch 2.6 is built without libuv, so its stores are the classic server (use_libuv=False);
the bytes on the wire are the same.

  torch_store_peer.py server          host a TCPStore (is_master=True) on a free port, print
                                      the port, serve until stdin closes
  torch_store_peer.py client PORT     run torch's client against the store at PORT and print
                                      one line per result
  torch_store_peer.py workers PORT    the stores two workers of different restart counts make
                                      of an agent's store at PORT (TORCHELASTIC_USE_AGENT_STORE=
                                      True): what one writes, the other reads
"""

import datetime
import sys
import threading
import time

import torch
import torch.distributed as dist

TIMEOUT = datetime.timedelta(seconds=10)
TORCH2 = int(torch.__version__.split(".")[0]) >= 2
STORE_ARGS = {"use_libuv": False} if TORCH2 else {}


def serve():
    store = dist.TCPStore("127.0.0.1", 0, None, True, TIMEOUT, wait_for_workers=False,
                          **STORE_ARGS)
    print(store.port, flush=True)
    sys.stdin.read()


def show(*values):
    print(" ".join(repr(v) for v in values), flush=True)


def run_client(port):
    c = dist.TCPStore("127.0.0.1", port, None, False, TIMEOUT, **STORE_ARGS)
    c.set("k1", "hello")
    show("get", c.get("k1"))
    show("add", c.add("cnt", 5), c.add("cnt", -2), c.get("cnt"))
    show("cas-create", c.compare_set("cas", "", "first"))
    show("cas-swap", c.compare_set("cas", "first", "second"))
    show("cas-mismatch", c.compare_set("cas", "zzz", "third"))
    show("cas-absent", c.compare_set("nokey", "x", "y"))
    show("num_keys", c.num_keys())
    show("delete", c.delete_key("k1"), c.delete_key("k1"))
    try:
        c.wait(["never"], datetime.timedelta(milliseconds=300))
        show("wait", "returned")
    except RuntimeError as e:
        show("wait", "timed out" if "Timeout" in str(e) or "timeout" in str(e) else str(e))
    # A get that blocks until another client (its own connection) sets the key.
    other = dist.TCPStore("127.0.0.1", port, None, False, TIMEOUT, **STORE_ARGS)
    threading.Timer(0.3, lambda: other.set("late", b"\x00\xffbinary")).start()
    started = time.monotonic()
    value = c.get("late")
    show("late", value, time.monotonic() - started >= 0.25)
    show("prefix", dist.PrefixStore("torch.rendezvous.r.0", c).get("MASTER_ADDR"))
    if TORCH2:
        torch2_only(c)


def torch2_only(c):
    c.append("app", "a")
    c.append("app", b"b")
    show("append", c.get("app"))
    c.multi_set(["m1", "m2"], ["1", b"\x002"])
    show("multi", c.multi_get(["m1", "m2"]))
    # Since "never" came after the earlier timed-out WAIT was cancelled, nothing late arrives.
    c.set("never", "now")
    show("after-cancel", c.get("never"), c.check(["m1", "app"]), c.num_keys())


def run_workers(port):
    """torch's own _create_c10d_store, as init_process_group's env:// rendezvous calls it."""
    import importlib
    import os
    rendezvous = importlib.import_module("torch.distributed.rendezvous")
    if TORCH2:  # as torch2_site/sitecustomize.py: Debian's 2.6 has no libuv, which it asks for
        rendezvous.TCPStore = lambda *a, **k: dist.TCPStore(*a, **k, **STORE_ARGS)
    os.environ["TORCHELASTIC_USE_AGENT_STORE"] = "True"
    stores = []
    for count in ("0", "1"):
        os.environ["TORCHELASTIC_RESTART_COUNT"] = count
        stores.append(rendezvous._create_c10d_store("127.0.0.1", port, int(count), 2, TIMEOUT))
    stores[1].set("from-1", "a")
    stores[0].add("barrier", 1)
    stores[1].add("barrier", 1)
    show("workers", stores[0].get("from-1"), stores[0].get("barrier"), stores[1].get("barrier"))


def main():
    if sys.argv[1] == "server":
        serve()
    elif sys.argv[1] == "workers":
        run_workers(int(sys.argv[2]))
    else:
        run_client(int(sys.argv[2]))


main()
