#pragma once
/// What a short-lived process need not free. The `ejob` executable exits right after its one
/// command, so it turns keeping on (cli/main.cpp), and the big structures of a render handed
/// here (template trees, the chart, the values) then live until the process ends instead of
/// being taken apart node by node — a tenth of a small chart's instructions — as compilers
/// skip freeing at exit (clang -disable-free). Off, the default (tests, benchmarks, anything
/// that runs more than one command), nothing is kept and callers free as usual.

#include <memory>

namespace ejob {

/// Keeps `object` alive until the process exits, when keeping is on; else drops the reference.
void keep_until_exit(std::shared_ptr<const void> object);

/// Turns keeping on or off for the rest of the process (kept objects stay kept).
void set_keep_until_exit(bool on);

}  // namespace ejob
