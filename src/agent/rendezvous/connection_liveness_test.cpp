#include "src/agent/rendezvous/connection_liveness.hpp"

#include <catch2/catch.hpp>
#include <thread>

#include "src/agent/rendezvous/dynamic_ops.hpp"
#include "src/agent/rendezvous/state_pickle.hpp"
#include "src/agent/store/store_codec.hpp"
#include "src/agent/store/tcp_store_client.hpp"

using namespace ejob::agent;
using namespace std::chrono_literals;

namespace {

const NodeDesc k_a{"a", 1, 0}, k_b{"b", 2, 0};
const DynamicLimits k_limits{1, 3};

/// One agent's connection writing the shared state the way torch's c10d backend does.
struct Agent {
  TcpStoreClient client;
  NodeDesc node;
  Agent(int port, NodeDesc n) : client("127.0.0.1", port, 10s), node(std::move(n)) {}
  /// Reads the state, applies `action` as this node at `now`, writes it back.
  void act(RdzvAction action, UtcTime now) {
    std::string key = "torch.rendezvous.run";
    std::string stored = client.compare_set(key, "", "Y2FuaW1hZGFt");
    DynamicState s = stored == "Y2FuaW1hZGFt" ? DynamicState{} : unpickle_state(b64decode(stored));
    apply_action(action, s, node, k_limits, now);
    client.compare_set(key, stored, b64encode(pickle_state(s)));
  }
};

/// The server's thread tells the observer; give it the time to have done so.
template <typename F>
bool eventually(F f) {
  for (int i = 0; i < 500 && !f(); ++i) std::this_thread::sleep_for(10ms);
  return f();
}

}  // namespace

TEST_CASE("connection liveness: a node's connection is the one that renews its heartbeat") {
  ConnectionLiveness liveness("run", 1h);
  TcpStoreServer server(0, &liveness);
  auto a = std::make_unique<Agent>(server.port(), k_a);
  Agent b(server.port(), k_b);
  TcpStoreClient bystander("127.0.0.1", server.port(), 10s);
  UtcTime t = utc_now();
  a->act(RdzvAction::AddToParticipants, t);
  b.act(RdzvAction::AddToParticipants, t + 1s);
  bystander.set("torch.rendezvous.run.0/MASTER_ADDR", "x");  // other keys say nothing
  CHECK(eventually([&] { return liveness.connected().size() == 2; }));
  CHECK(liveness.connected() == std::vector<NodeDesc>{k_a, k_b});
  CHECK(liveness.gone().empty());

  // A write that renews nobody's heartbeat (completing the round) attributes nothing.
  b.act(RdzvAction::MarkComplete, t + 2s);
  a.reset();  // a's agent dies: its connection closes
  CHECK(eventually([&] { return liveness.gone() == std::vector<NodeDesc>{k_a}; }));
  CHECK(liveness.connected() == std::vector<NodeDesc>{k_b});
}

TEST_CASE("connection liveness: a node is gone only when its last connection closed") {
  ConnectionLiveness liveness("run", 1h);
  TcpStoreServer server(0, &liveness);
  auto first = std::make_unique<Agent>(server.port(), k_a);
  Agent second(server.port(), k_a);  // the same node writing from another connection
  UtcTime t = utc_now();
  first->act(RdzvAction::AddToParticipants, t);
  second.act(RdzvAction::KeepAlive, t + 5s);
  CHECK(eventually([&] { return liveness.connected() == std::vector<NodeDesc>{k_a}; }));
  first.reset();
  std::this_thread::sleep_for(100ms);
  CHECK(liveness.gone().empty());
  CHECK(liveness.connected() == std::vector<NodeDesc>{k_a});
}

TEST_CASE("connection liveness: a state that does not decode and another run's key are ignored") {
  ConnectionLiveness liveness("run", 1h);
  TcpStoreServer server(0, &liveness);
  TcpStoreClient c("127.0.0.1", server.port(), 10s);
  c.set("torch.rendezvous.run", "not base64 of a pickle");
  DynamicState s;
  apply_action(RdzvAction::AddToParticipants, s, k_a, k_limits, utc_now());
  c.set("torch.rendezvous.other", b64encode(pickle_state(s)));
  c.set("torch.rendezvous.run.0", b64encode(pickle_state(s)));
  CHECK(c.get("torch.rendezvous.run") == "not base64 of a pickle");  // all were served
  CHECK(liveness.connected().empty());
}

TEST_CASE("connection liveness: an open connection whose node stopped renewing is not connected") {
  ConnectionLiveness liveness("run", 0s);  // every renewal is already stale
  TcpStoreServer server(0, &liveness);
  Agent a(server.port(), k_a);
  a.act(RdzvAction::AddToParticipants, utc_now());
  CHECK(a.client.get("torch.rendezvous.run").size() > 0);  // the write was served
  CHECK(liveness.connected().empty());
  CHECK(liveness.gone().empty());  // nor gone: torch's heartbeat rule decides about it
}
