"""torchrun from Debian's torch 1.13 on Python 3.11, with the Std.from_str fix.

torch 1.13's Std.from_str looks a value up by iterating the IntFlag; since Python 3.11 that
iteration skips NONE (0) and ALL (3), so the default `-r 0`/`-t 0` parse to None and every
launch crashes (protocol notes §4). This wrapper replaces the classmethod with Std(int(v)) (and
the mapping form likewise) and then runs torch.distributed.run as `python -m` would.

It also accepts torch >= 2.0's `--local_addr ADDR` (as the first argument): torch 1.13 always
publishes socket.getfqdn(hostname) as MASTER_ADDR when it is group rank 0, which a machine whose
hostname does not resolve (a chroot, some CI containers) cannot reach; torch 2.x publishes
`local_addr or _get_fq_hostname()`, and so does this wrapper.
"""
import re
import runpy
import sys

from torch.distributed.elastic.multiprocessing import api


def _from_str(cls, vm):
    if re.match(api._VALUE_REGEX, vm):
        return cls(int(vm))
    if re.match(api._MAPPING_REGEX, vm):
        return {int(i): cls(int(v)) for i, v in (m.split(":") for m in vm.split(","))}
    raise ValueError(f"{vm} does not match: <{api._VALUE_REGEX}> or <{api._MAPPING_REGEX}>")


api.Std.from_str = classmethod(_from_str)


def _local_addr(argv):
    """Takes `--local_addr ADDR` / `--local_addr=ADDR` (or the dash spelling) when it is the
    first argument, which is where the tests put it."""
    if len(argv) < 2:
        return None
    name, eq, value = argv[1].partition("=")
    if name not in ("--local_addr", "--local-addr"):
        return None
    if eq:
        del argv[1]
    else:
        value = argv[2]
        del argv[1:3]
    return value


_addr = _local_addr(sys.argv)
if _addr is not None:
    from torch.distributed.elastic.agent.server import api as agent_api

    agent_api._get_fq_hostname = lambda: _addr

sys.argv[0] = "torchrun"
runpy.run_module("torch.distributed.run", run_name="__main__", alter_sys=True)
