#pragma once
/// The pickle of a DynamicState, both ways, exactly as CPython's pickler writes it with
/// protocol 4 (protocols/torch-c10d.md §4.2, §4.4): the subset of opcodes and globals that
/// torch's `_RendezvousState` needs, and nothing else, because the bytes come from the network.
///
/// Writer conventions, matching Python for a state that went through pickle once (which is
/// every state torch writes after its first read): a `_NodeDesc` equal to one already written
/// is a memo reference (Python shares the object after unpickling); field names and the module
/// name are memo references after their first use (Python interns them); host names,
/// datetimes and everything else are written in full each time.

#include <string>
#include <string_view>

#include "ejob/agent/dynamic_state.hpp"

namespace ejob::agent {

/// `pickle.dumps(state, protocol=4)`.
std::string pickle_state(const DynamicState& state);

/// `pickle.loads` restricted to what a torch 1.13 state holds (protocols 2 to 5, with or
/// without frames). Throws ejob::Error(Input) naming the opcode and its offset for an opcode
/// outside the subset, the global for a class other than the state's, `_NodeDesc`, and
/// `datetime`, and the field for a state of another torch version (e.g. 2.x's `addr`).
DynamicState unpickle_state(std::string_view bytes);

}  // namespace ejob::agent
