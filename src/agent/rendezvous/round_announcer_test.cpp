#include "src/agent/rendezvous/round_announcer.hpp"

#include <catch2/catch.hpp>
#include <thread>

#include "src/agent/rendezvous/c10d_store.hpp"
#include "src/agent/rendezvous/dynamic_ops.hpp"
#include "src/agent/rendezvous/state_pickle.hpp"
#include "src/agent/store/store_codec.hpp"
#include "src/agent/store/tcp_store_client.hpp"

using namespace ejob::agent;
using namespace std::chrono_literals;

namespace {

const DynamicLimits k_limits{2, 2};
const NodeDesc k_a{"a", 1, 0}, k_b{"b", 2, 0}, k_late{"c", 3, 0};

std::string stored(const DynamicState& s) { return b64encode(pickle_state(s)); }

/// The news events a watch of the news key has received so far.
std::vector<std::string> news_seen(TcpStoreClient& watcher) {
  std::vector<std::string> out;
  while (watcher.readable(300ms)) out.push_back(watcher.next_event());
  return out;
}

}  // namespace

TEST_CASE("round announcer: news when the state's phase changes, and the writes counted") {
  RoundAnnouncer announcer("run", nullptr);
  TcpStoreServer server(0, &announcer);
  TcpStoreClient agent("127.0.0.1", server.port(), 10s);
  TcpStoreClient watcher("127.0.0.1", server.port(), 10s);
  CHECK(agent.check({announcer_key("run")}));  // there before anyone wrote
  CHECK(announcer_key("run") == "ejob.rendezvous.run/announcer");
  CHECK(news_key("run") == "ejob.rendezvous.run/news");
  watcher.watch_key(news_key("run"));

  DynamicState s;
  agent.set("torch.rendezvous.run", k_c10d_no_state);  // no state yet: no news
  apply_action(RdzvAction::AddToParticipants, s, k_a, k_limits, utc_now());
  agent.set("torch.rendezvous.run", stored(s));
  agent.set("torch.rendezvous.other", "not a state");  // another key: not counted
  CHECK(news_seen(watcher) == std::vector<std::string>{"0 0 0 0"});

  apply_action(RdzvAction::AddToParticipants, s, k_b, k_limits, utc_now());
  REQUIRE(s.complete);                                                                // max reached
  CHECK(agent.compare_set("torch.rendezvous.run", "stale", stored(s)) != stored(s));  // lost
  agent.set("torch.rendezvous.run", stored(s));
  agent.set("torch.rendezvous.run", stored(s));  // a keep-alive's rewrite: the same phase
  agent.set("torch.rendezvous.run", "garbage");  // does not decode: no news
  apply_action(RdzvAction::AddToWaitList, s, k_late, k_limits, utc_now());
  agent.set("torch.rendezvous.run", stored(s));
  apply_action(RdzvAction::MarkClosed, s, k_a, k_limits, utc_now());
  agent.set("torch.rendezvous.run", stored(s));
  CHECK(news_seen(watcher) == std::vector<std::string>{"0 1 0 0", "0 1 1 0", "0 1 1 1"});
  CHECK(announcer.writes() == 7);
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
