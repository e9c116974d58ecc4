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

#include "src/agent/rendezvous/dynamic_state.hpp"

namespace ejob::agent {

/// `pickle.dumps(state, protocol=4)`, in the state's dialect (torch 1.13's or 2.x's fields,
/// naive or UTC-aware datetimes).
std::string pickle_state(const DynamicState& state);

/// `pickle.loads` restricted to what a torch 1.13 or 2.x state holds (protocols 2 to 5, with
/// or without frames); the result's dialect is the one its fields are in. Throws
/// ejob::Error(Input) naming the opcode and its offset for an opcode outside the subset, the
/// global for a class other than the state's, `_NodeDesc`, and `datetime`'s, an unknown field,
/// and a state that mixes the two torch versions' fields.
DynamicState unpickle_state(std::string_view bytes);

}  // namespace ejob::agent
