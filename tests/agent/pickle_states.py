"""Rendezvous states built with torch's own classes (1.13, or 2.6 in the Debian 13 root) and
pickled by Python, for the C++ pickle codec's tests (src/agent/rendezvous/state_pickle_test.cpp). torch 2.x
states have `addr` nodes, a `redundancy_list` and UTC-aware times (datetime.timezone.utc, as
torch 2.x's datetime.now(timezone.utc)).

Prints one JSON line per case: the state as plain data (containers in Python's iteration
order, times as microseconds since the epoch) and `pickle.dumps(state, protocol)` in hex.
Host names are built at run time so that each is its own str object, as in a state that
went through pickle (the C++ writer memoizes nodes, never host names); a node that appears
in several containers is one object, as after unpickling."""

import datetime
import json
import pickle
import sys

import torch
from torch.distributed.elastic.rendezvous.dynamic_rendezvous import _NodeDesc, _RendezvousState

TORCH2 = int(torch.__version__.split(".")[0]) >= 2
EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc if TORCH2 else None)


def fresh(text):
    """A new str object equal to text (text longer than one character)."""
    return "".join(list(text))


def when(us):
    return EPOCH + datetime.timedelta(microseconds=us)


def micros(t):
    return (t - EPOCH) // datetime.timedelta(microseconds=1)


def node_json(n):
    return [n.addr if TORCH2 else n.fqdn, n.pid, n.local_id]


def describe(s):
    out = {
        "round": s.round,
        "complete": s.complete,
        "deadline": None if s.deadline is None else micros(s.deadline),
        "closed": s.closed,
        "participants": [[node_json(n), r] for n, r in s.participants.items()],
        "wait_list": [node_json(n) for n in s.wait_list],
        "last_heartbeats": [[node_json(n), micros(t)] for n, t in s.last_heartbeats.items()],
    }
    if TORCH2:
        out["redundancy_list"] = [node_json(n) for n in s.redundancy_list]
    return out


def state(nodes, ranks=None, waiting=(), beats=True, redundant=(), **fields):
    s = _RendezvousState()
    for k, v in fields.items():
        setattr(s, k, v)
    for i, n in enumerate(nodes):
        s.participants[n] = ranks[i] if ranks else 0
    for n in waiting:
        s.wait_list.add(n)
    for n in redundant:
        s.redundancy_list.add(n)
    if beats:
        t0 = 1795000000123456
        for i, n in enumerate(list(nodes) + list(waiting) + list(redundant)):
            s.last_heartbeats[n] = when(t0 + i * 1000003)
    return s


def nodes(count, host="localhost", pid0=27734):
    return [_NodeDesc(fresh(host), pid0 + i, 0) for i in range(count)]


def cases():
    two = nodes(2)
    yield "empty", _RendezvousState()
    yield "one joined, deadline", state(nodes(1), deadline=when(1795000030000000))
    yield "two, complete", state(two, ranks=[0, 1], complete=True)
    yield "wait list of one", state(two, ranks=[1, 0], complete=True, waiting=nodes(1, "b.x", 9))
    yield "wait list of three", state(nodes(1), complete=True, waiting=nodes(3, "w.y", 5))
    yield "closed, round 7", state(two, ranks=[0, 1], complete=True, closed=True, round=7)
    yield "no heartbeats", state(two, beats=False, round=300)
    yield "large pids and ids", state([_NodeDesc(fresh("h1"), 70000, 3),
                                      _NodeDesc(fresh("h2"), 4194304, 70000),
                                      _NodeDesc(fresh("h3"), 2**40, 2**31)])
    yield "unicode and long names", state([_NodeDesc(fresh("n\u00f6de-\u6771\u4eac"), 1, 0),
                                          _NodeDesc(fresh("x" * 300), 2, 0)])
    yield "300 nodes (LONG_BINGET)", state(nodes(300), ranks=list(range(300)), complete=True)
    yield "1000 nodes (one full batch)", state(nodes(1000), beats=False)
    yield "1001 nodes (two batches, frames)", state(nodes(1001))
    yield "1000 waiting", state(nodes(1), complete=True, waiting=nodes(1000, "q.z", 100))
    yield "2500 nodes (frames)", state(nodes(2500, "node-0123456789.cluster.local"))
    if TORCH2:
        yield "redundancy list of two", state(two, ranks=[0, 1], complete=True,
                                              redundant=nodes(2, "r.x", 40))
        yield "waiting and redundant", state(nodes(1), complete=True, waiting=nodes(1, "w.y", 7),
                                             redundant=nodes(1, "r.y", 8),
                                             deadline=when(1795000030000000))
        yield "1001 redundant", state(nodes(1), complete=True, redundant=nodes(1001, "rr", 3))


def main():
    protocol = int(sys.argv[1]) if len(sys.argv) > 1 else 4
    for name, s in cases():
        data = pickle.dumps(s, protocol=protocol)
        print(json.dumps({"name": name, "state": describe(s), "pickle": data.hex()}))


main()
