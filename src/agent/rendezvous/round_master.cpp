#include "src/agent/rendezvous/round_master.hpp"

#include "src/agent/base/host_identity.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {
/// Written before MASTER_ADDR/MASTER_PORT by an ejob group rank 0 that hosts the workers'
/// store; torch's agents never read it.
constexpr const char* k_agent_store_key = "EJOB_AGENT_STORE";
}  // namespace

int parse_master_port(const std::string& text, const std::string& round) {
  try {
    return std::stoi(text);
  } catch (const std::exception&) {
    throw Error(ErrorCode::Input, "MASTER_PORT in the rendezvous store is not a number: " + text +
                                      " (round " + round + ")");
  }
}

void RoundMaster::publish(KeyValueStore& store, const std::string& addr) {
  int port = 0;
  if (m_host) {
    m_store = TcpStoreServer::for_workers();
    port = m_store->port();
    store.set(k_agent_store_key, "1");
  } else {
    port = free_local_port();
  }
  store.set("MASTER_ADDR", addr);
  store.set("MASTER_PORT", std::to_string(port));
}

void RoundMaster::read(KeyValueStore& store, Round& round) const {
  std::vector<std::string> master = store.get({"MASTER_ADDR", "MASTER_PORT"});
  round.master_addr = master[0];
  round.master_port = parse_master_port(master[1], round.version);
  round.use_agent_store = m_store ? true : store.contains(k_agent_store_key);
}

}  // namespace ejob::agent
