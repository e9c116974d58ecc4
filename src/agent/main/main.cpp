// ejob-agent: parses torchrun's command line and runs the agent (src/agent/elastic/agent_main.hpp).
#include "src/agent/elastic/agent_main.hpp"

int main(int argc, char** argv) { return ejob::agent::agent_main(argc, argv); }
