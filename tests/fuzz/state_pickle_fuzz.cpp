// The rendezvous state pickle decoder (src/agent/rendezvous/state_unpickle.cpp): the input is
// the bytes another agent (or anything that can write the store) put under the state key. A
// state that decodes must also pickle back.
#include <string>

#include "src/agent/rendezvous/state_pickle.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ejob::fuzz::refusals_expected([&] {
    const ejob::agent::DynamicState state =
        ejob::agent::unpickle_state(ejob::fuzz::as_text(data, size));
    (void)ejob::agent::pickle_state(state);
  });
  return 0;
}
