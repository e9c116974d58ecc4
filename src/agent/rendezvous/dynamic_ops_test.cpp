#include "src/agent/rendezvous/dynamic_ops.hpp"

#include <catch2/catch.hpp>

using namespace ejob::agent;
using namespace std::chrono_literals;

namespace {

const UtcTime k_now = UtcTime(1795000000000000us);
const NodeDesc k_a{"a", 300, 0}, k_b{"b", 100, 0}, k_c{"a", 200, 0};

RdzvAction join(const NodeDesc& me, const DynamicState& s, const DynamicLimits& l,
                UtcTime now = k_now) {
  return decide_join(RdzvContext{me, s, l, now});
}

DynamicState joined(const std::vector<NodeDesc>& nodes, const DynamicLimits& l) {
  DynamicState s;
  for (const auto& n : nodes) apply_action(RdzvAction::AddToParticipants, s, n, l, k_now);
  return s;
}

}  // namespace

TEST_CASE("dynamic ops: joining sets the last call at min and completes at max, ranks sorted") {
  DynamicLimits l{2, 3};
  DynamicState s;
  CHECK(join(k_a, s, l) == RdzvAction::AddToParticipants);
  apply_action(RdzvAction::AddToParticipants, s, k_a, l, k_now);
  CHECK_FALSE(s.deadline);
  CHECK(join(k_a, s, l) == RdzvAction::Sync);  // alone, waiting for min
  apply_action(RdzvAction::AddToParticipants, s, k_b, l, k_now);
  CHECK(s.deadline == k_now + 30s);
  CHECK(join(k_a, s, l, k_now + 4s) == RdzvAction::Sync);
  CHECK(join(k_a, s, l, k_now + 29s) == RdzvAction::KeepAlive);  // my heartbeat is 5 s old
  CHECK(join(k_a, s, l, k_now + 31s) == RdzvAction::MarkComplete);
  apply_action(RdzvAction::AddToParticipants, s, k_c, l, k_now);
  CHECK(s.complete);
  CHECK_FALSE(s.deadline);
  // Dict order is join order; ranks follow (fqdn, pid, local_id): a_200 < a_300 < b_100.
  CHECK(s.participants ==
        std::vector<std::pair<NodeDesc, std::int64_t>>{{k_a, 1}, {k_b, 2}, {k_c, 0}});
  CHECK(join(k_a, s, l) == RdzvAction::Finish);
}

TEST_CASE("dynamic ops: a late node waits for the next round only while the round has room") {
  DynamicLimits l{2, 3};
  DynamicState s = joined({k_a, k_b}, l);
  apply_action(RdzvAction::MarkComplete, s, k_a, l, k_now);
  NodeDesc late{"z", 1, 0};
  CHECK(join(late, s, l) == RdzvAction::AddToWaitList);
  apply_action(RdzvAction::AddToWaitList, s, late, l, k_now);
  CHECK(join(late, s, l) == RdzvAction::Sync);
  DynamicLimits full{2, 2};
  DynamicState f = joined({k_a, k_b}, full);
  CHECK(join(late, f, full) == RdzvAction::Sync);  // full: poll until the join timeout
}

TEST_CASE("dynamic ops: the last participant to leave a complete round starts the next one") {
  DynamicLimits l{2, 2};
  DynamicState s = joined({k_a, k_b}, l);
  CHECK(decide_exit(RdzvContext{k_a, s, l, k_now}) == RdzvAction::RemoveFromParticipants);
  apply_action(RdzvAction::RemoveFromParticipants, s, k_a, l, k_now);
  CHECK(s.complete);
  CHECK(s.round == 0);
  apply_action(RdzvAction::RemoveFromParticipants, s, k_b, l, k_now);
  CHECK_FALSE(s.complete);
  CHECK(s.round == 1);
  CHECK(decide_exit(RdzvContext{k_a, s, l, k_now}) == RdzvAction::Finish);
}

TEST_CASE("dynamic ops: a leaving node goes from participants, wait list and redundancy list") {
  DynamicLimits l{1, 3};
  DynamicState s = joined({k_a, k_b}, l);
  apply_action(RdzvAction::MarkComplete, s, k_a, l, k_now);
  auto leave = [&](const NodeDesc& me) { return decide_leave(RdzvContext{me, s, l, k_now}); };
  CHECK(leave(k_a) == RdzvAction::RemoveFromParticipants);
  apply_action(RdzvAction::RemoveFromParticipants, s, k_a, l, k_now);
  CHECK(s.complete);  // k_b is still in it, one short
  CHECK(s.round == 0);
  CHECK(leave(k_a) == RdzvAction::Finish);
  apply_action(RdzvAction::AddToWaitList, s, k_c, l, k_now);
  CHECK(leave(k_c) == RdzvAction::RemoveFromWaitList);
  apply_action(RdzvAction::RemoveFromWaitList, s, k_c, l, k_now);
  CHECK(s.wait_list.empty());
  apply_action(RdzvAction::RemoveFromParticipants, s, k_b, l, k_now);
  CHECK(s.round == 1);  // the last one out starts the next round
  CHECK_FALSE(s.complete);
  DynamicState t;
  t.dialect = RdzvDialect::Torch2;
  apply_action(RdzvAction::AddToRedundancyList, t, k_a, l, k_now);
  CHECK(decide_leave(RdzvContext{k_a, t, l, k_now}) == RdzvAction::RemoveFromRedundancyList);
  CHECK(decide_leave(RdzvContext{k_a, t, l, k_now, true}) == RdzvAction::ErrorTimeout);
}

TEST_CASE("dynamic ops: heartbeats older than 15 s remove their node, with the epilogue") {
  DynamicLimits l{2, 3};
  DynamicState s = joined({k_a, k_b}, l);
  s.last_heartbeats[1].second = k_now - 16s;
  CHECK(remove_dead_nodes(s, l, k_now + 0s) == std::vector<NodeDesc>{k_b});
  CHECK(s.participants.size() == 1);
  CHECK_FALSE(s.deadline);  // fewer than min again: no last call
  CHECK(remove_dead_nodes(s, l, k_now).empty());
}

TEST_CASE("dynamic ops: keep-alive every 5 s, closed runs and timeouts") {
  DynamicLimits l{1, 2};
  DynamicState s = joined({k_a}, l);
  CHECK(decide_keep_alive(RdzvContext{k_a, s, l, k_now + 4s}) == RdzvAction::Finish);
  CHECK(decide_keep_alive(RdzvContext{k_a, s, l, k_now + 5s}) == RdzvAction::KeepAlive);
  apply_action(RdzvAction::KeepAlive, s, k_a, l, k_now + 5s);
  CHECK(s.last_heartbeats[0].second == k_now + 5s);
  CHECK(join(k_b, s, l, k_now) == RdzvAction::AddToParticipants);
  CHECK(decide_join(RdzvContext{k_a, s, l, k_now, true, true}) ==
        RdzvAction::RemoveFromParticipants);
  CHECK(decide_join(RdzvContext{k_a, s, l, k_now, true, false}) == RdzvAction::ErrorTimeout);
  apply_action(RdzvAction::MarkClosed, s, k_a, l, k_now);
  CHECK(join(k_b, s, l) == RdzvAction::ErrorClosed);
  CHECK(decide_close(RdzvContext{k_a, s, l, k_now}) == RdzvAction::Finish);
}

namespace {

DynamicState torch2_state() {
  DynamicState s;
  s.dialect = RdzvDialect::Torch2;
  return s;
}

}  // namespace

TEST_CASE("dynamic ops, torch 2.x: ranks are set when the round completes, as in 1.13") {
  DynamicLimits l{1, 3};
  DynamicState s = torch2_state();
  apply_action(RdzvAction::AddToParticipants, s, k_a, l, k_now);
  apply_action(RdzvAction::AddToParticipants, s, k_b, l, k_now);
  CHECK(s.participants == std::vector<std::pair<NodeDesc, std::int64_t>>{{k_a, 0}, {k_b, 0}});
  apply_action(RdzvAction::MarkComplete, s, k_a, l, k_now);
  CHECK(s.participants == std::vector<std::pair<NodeDesc, std::int64_t>>{{k_a, 0}, {k_b, 1}});
}

TEST_CASE("dynamic ops, torch 2.x: a node finding the round full waits in the redundancy list") {
  DynamicLimits l{1, 2};
  DynamicState s = torch2_state();
  for (const auto& n : {k_a, k_b}) apply_action(RdzvAction::AddToParticipants, s, n, l, k_now);
  REQUIRE(s.complete);
  CHECK(join(k_c, s, l) == RdzvAction::AddToRedundancyList);
  apply_action(RdzvAction::AddToRedundancyList, s, k_c, l, k_now);
  CHECK(s.redundancy_list == std::vector<NodeDesc>{k_c});
  CHECK(join(k_c, s, l) == RdzvAction::Sync);
  CHECK(join(k_c, s, l, k_now + 6s) == RdzvAction::KeepAlive);
  // No join timeout applies there.
  CHECK(decide_join(RdzvContext{k_c, s, l, k_now, true, false}) == RdzvAction::Sync);
  // A slot frees: it leaves the list (and its heartbeat) to join again.
  apply_action(RdzvAction::RemoveFromParticipants, s, k_b, l, k_now);
  CHECK(join(k_c, s, l) == RdzvAction::RemoveFromRedundancyList);
  apply_action(RdzvAction::RemoveFromRedundancyList, s, k_c, l, k_now);
  CHECK(s.redundancy_list.empty());
  CHECK(join(k_c, s, l) == RdzvAction::AddToWaitList);
  // The run closes while a node is redundant: it exits quietly; others get ErrorClosed.
  apply_action(RdzvAction::AddToRedundancyList, s, k_b, l, k_now);
  s.closed = true;
  CHECK(join(k_b, s, l) == RdzvAction::GracefulExit);
  CHECK(join(k_c, s, l) == RdzvAction::ErrorClosed);
  // Dead redundant nodes are dropped by the sanitizer like any other.
  remove_dead_nodes(s, l, k_now + 16s);
  CHECK(s.redundancy_list.empty());
}

TEST_CASE("dynamic ops, torch 1.13: a full round never puts a node in a redundancy list") {
  DynamicLimits l{1, 2};
  DynamicState s = joined({k_a, k_b}, l);
  REQUIRE(s.complete);
  CHECK(join(k_c, s, l) == RdzvAction::Sync);
}

TEST_CASE("dynamic ops: a re-formed round completes once every live node joined (ejob's rule)") {
  DynamicLimits l{2, 4};
  DynamicState s = joined({k_a, k_b}, l);
  s.round = 1;
  RdzvContext c{k_a, s, l, k_now};
  CHECK(decide_join(c) == RdzvAction::Sync);  // torch's rule: wait for the last call
  c.every_live_node_joined = true;
  CHECK(decide_join(c) == RdzvAction::MarkComplete);
  DynamicState alone = joined({k_a}, l);  // below min, nothing completes
  CHECK(decide_join(RdzvContext{k_a, alone, l, k_now, false, false, true}) == RdzvAction::Sync);
}

TEST_CASE("dynamic ops: nodes known dead leave heartbeats, participants and lists") {
  DynamicLimits l{1, 3};
  DynamicState s = joined({k_a, k_b}, l);
  apply_action(RdzvAction::MarkComplete, s, k_a, l, k_now);
  NodeDesc waiting{"w", 9, 0}, stranger{"s", 1, 0};
  apply_action(RdzvAction::AddToWaitList, s, waiting, l, k_now);
  CHECK(remove_nodes(s, l, {k_b, waiting, stranger}) == std::vector<NodeDesc>{k_b, waiting});
  CHECK(s.participants.size() == 1);
  CHECK(s.wait_list.empty());
  CHECK(s.last_heartbeats.size() == 1);
  CHECK(s.complete);  // a participant is left: the round goes on
  CHECK(remove_nodes(s, l, {k_a}) == std::vector<NodeDesc>{k_a});
  CHECK_FALSE(s.complete);  // the last one left: the next round
  CHECK(s.round == 1);
}

TEST_CASE("dynamic ops: a participant short of min knows how many joins must come first") {
  DynamicLimits l{4, 6};
  NodeDesc outsider{"z", 1, 0};
  DynamicState s = joined({k_a}, l);
  CHECK(writes_before_join_can_end(s, k_a, l) == 3);
  apply_action(RdzvAction::AddToParticipants, s, k_b, l, k_now);
  CHECK(writes_before_join_can_end(s, k_a, l) == 2);
  CHECK(writes_before_join_can_end(s, outsider, l) == 0);  // not a participant: cannot tell
  apply_action(RdzvAction::AddToParticipants, s, k_c, l, k_now);
  apply_action(RdzvAction::AddToParticipants, s, outsider, l, k_now);
  CHECK(writes_before_join_can_end(s, k_a, l) == 0);  // at min: the last call's clock decides
  DynamicState closed = joined({k_a}, l);
  closed.closed = true;
  CHECK(writes_before_join_can_end(closed, k_a, l) == 0);
}
