#include "ejob/agent/round_announcer.hpp"

#include <catch2/catch.hpp>
#include <thread>

#include "ejob/agent/c10d_store.hpp"
#include "ejob/agent/dynamic_ops.hpp"
#include "ejob/agent/state_pickle.hpp"
#include "ejob/agent/store_codec.hpp"
#include "ejob/agent/tcp_store_client.hpp"
#include "ejob/util/error.hpp"

using namespace ejob::agent;
using namespace std::chrono_literals;

namespace {

const DynamicLimits k_limits{2, 2};

std::string stored(const DynamicState& s) { return b64encode(pickle_state(s)); }

/// Whether a WAIT for `key` returns within `timeout` (false: it timed out).
bool appears(TcpStoreClient& c, const std::string& key, std::chrono::milliseconds timeout) {
  try {
    c.wait({key}, timeout);
    return true;
  } catch (const ejob::Error& e) {
    if (e.code() != ejob::ErrorCode::Timeout) throw;
    return false;
  }
}

}  // namespace

TEST_CASE("round announcer: a completed round's key, once, and the writes counted") {
  RoundAnnouncer announcer("run", nullptr);
  TcpStoreServer server(0, &announcer);
  TcpStoreClient agent("127.0.0.1", server.port(), 10s);
  TcpStoreClient waiter("127.0.0.1", server.port(), 10s);
  CHECK(agent.check({announcer_key("run")}));  // there before anyone wrote
  CHECK(announcer_key("run") == "ejob.rendezvous.run/announcer");
  CHECK(completion_key("run", 3) == "ejob.rendezvous.run/complete/3");

  DynamicState s;
  apply_action(RdzvAction::AddToParticipants, s, NodeDesc{"a", 1, 0}, k_limits, utc_now());
  agent.set("torch.rendezvous.run", k_c10d_no_state);
  agent.set("torch.rendezvous.run", stored(s));
  agent.set("torch.rendezvous.other", "not a state");  // another key: not counted
  CHECK_FALSE(appears(waiter, completion_key("run", 0), 200ms));
  CHECK(announcer.writes() == 2);

  apply_action(RdzvAction::AddToParticipants, s, NodeDesc{"b", 2, 0}, k_limits, utc_now());
  REQUIRE(s.complete);  // max reached
  std::string before = stored(s);
  CHECK(agent.compare_set("torch.rendezvous.run", "stale", before) != before);  // lost: no write
  agent.set("torch.rendezvous.run", before);
  CHECK(appears(waiter, completion_key("run", 0), 5s));
  CHECK(announcer.writes() == 3);
  announcer.wait_for_writes(3, 10s);  // reached: returns at once

  // A keep-alive of the complete round writes the state again; round 0 is announced once.
  std::int64_t keys = agent.num_keys();
  agent.set("torch.rendezvous.run", before);
  CHECK(agent.num_keys() == keys);
  agent.set("torch.rendezvous.run", "garbage");  // does not decode: nothing to announce
  CHECK(agent.num_keys() == keys);
}

TEST_CASE("round announcer: the host's in-process wait ends at the awaited write") {
  RoundAnnouncer announcer("run", nullptr);
  TcpStoreServer server(0, &announcer);
  TcpStoreClient agent("127.0.0.1", server.port(), 10s);
  std::thread writer([&] {
    for (int i = 0; i < 3; ++i) agent.set("torch.rendezvous.run", std::to_string(i));
  });
  announcer.wait_for_writes(3, 10s);
  CHECK(announcer.writes() >= 3);
  writer.join();
}
