#pragma once
/// The ejob-agent program: parse torchrun's command line, pick the rendezvous, run the agent.

namespace ejob::agent {

/// main() of ejob-agent. Returns 0 on success, 1 on failure (as torchrun), 2 for a bad
/// command line, 128+signal when stopped by a signal.
int agent_main(int argc, char** argv);

}  // namespace ejob::agent
