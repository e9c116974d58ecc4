#include "src/agent/rendezvous/dynamic_state.hpp"

namespace ejob::agent {

UtcTime utc_now() {
  return std::chrono::time_point_cast<std::chrono::microseconds>(std::chrono::system_clock::now());
}

std::string to_string(const NodeDesc& node) {
  return node.fqdn + "_" + std::to_string(node.pid) + "_" + std::to_string(node.local_id);
}

}  // namespace ejob::agent
