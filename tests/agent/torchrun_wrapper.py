"""torchrun from Debian's torch 1.13 on Python 3.11, with the Std.from_str fix.

torch 1.13's Std.from_str looks a value up by iterating the IntFlag; since Python 3.11 that
iteration skips NONE (0) and ALL (3), so the default `-r 0`/`-t 0` parse to None and every
launch crashes (protocol notes §4). This wrapper replaces the classmethod with Std(int(v)) (and
the mapping form likewise) and then runs torch.distributed.run as `python -m` would.
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
sys.argv[0] = "torchrun"
runpy.run_module("torch.distributed.run", run_name="__main__", alter_sys=True)
