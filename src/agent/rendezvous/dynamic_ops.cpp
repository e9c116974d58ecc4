#include "src/agent/rendezvous/dynamic_ops.hpp"

#include <algorithm>
#include <optional>

namespace ejob::agent {
namespace {

template <typename Pairs>
auto find_node(Pairs& pairs, const NodeDesc& node) {
  return std::find_if(pairs.begin(), pairs.end(), [&](const auto& p) { return p.first == node; });
}

bool is_participant(const DynamicState& s, const NodeDesc& n) {
  return find_node(s.participants, n) != s.participants.end();
}

bool is_waiting(const DynamicState& s, const NodeDesc& n) {
  return std::find(s.wait_list.begin(), s.wait_list.end(), n) != s.wait_list.end();
}

bool is_redundant(const DynamicState& s, const NodeDesc& n) {
  return std::find(s.redundancy_list.begin(), s.redundancy_list.end(), n) !=
         s.redundancy_list.end();
}

bool torch2(const DynamicState& s) { return s.dialect == RdzvDialect::Torch2; }

/// _should_keep_alive: my heartbeat exists and is at least one interval old.
bool should_keep_alive(const RdzvContext& c) {
  auto it = find_node(c.state.last_heartbeats, c.me);
  return it != c.state.last_heartbeats.end() && it->second <= c.now - c.limits.keep_alive_interval;
}

/// _remove_participant_epilogue.
void removal_epilogue(DynamicState& s, const DynamicLimits& limits) {
  if (s.complete) {
    if (s.participants.empty()) {
      s.complete = false;
      s.round += 1;
    }
  } else if (static_cast<int>(s.participants.size()) < limits.min_nodes) {
    s.deadline.reset();
  }
}

void keep_alive(DynamicState& s, const NodeDesc& me, UtcTime now) {
  auto it = find_node(s.last_heartbeats, me);
  if (it != s.last_heartbeats.end())
    it->second = now;  // an existing dict key keeps its place
  else
    s.last_heartbeats.emplace_back(me, now);
}

/// Ranks 0.. in sorted order of the nodes; dict order is unchanged.
void assign_ranks(DynamicState& s) {
  std::vector<NodeDesc> sorted;
  for (const auto& p : s.participants) sorted.push_back(p.first);
  std::sort(sorted.begin(), sorted.end());
  for (auto& p : s.participants)
    p.second = std::lower_bound(sorted.begin(), sorted.end(), p.first) - sorted.begin();
}

/// Both torch versions rank the participants when the round completes.
void mark_complete(DynamicState& s) {
  s.complete = true;
  s.deadline.reset();
  assign_ranks(s);
}

void add_to_participants(DynamicState& s, const NodeDesc& me, const DynamicLimits& limits,
                         UtcTime now) {
  std::erase(s.wait_list, me);
  if (auto it = find_node(s.participants, me); it != s.participants.end())
    it->second = 0;
  else
    s.participants.emplace_back(me, 0);
  keep_alive(s, me, now);
  auto count = static_cast<int>(s.participants.size());
  if (count == limits.min_nodes) s.deadline = now + limits.last_call;
  if (count == limits.max_nodes) mark_complete(s);
}

void forget(std::vector<NodeDesc>& list, DynamicState& s, const NodeDesc& me) {
  std::erase(list, me);
  std::erase_if(s.last_heartbeats, [&](const auto& p) { return p.first == me; });
}

/// 2.6's extra first steps of a join: a node in the redundancy list waits there, without a
/// timeout, until the round has room or the run closes. nullopt: decide as 1.13 does.
std::optional<RdzvAction> decide_join_redundant(const RdzvContext& c) {
  const DynamicState& s = c.state;
  if (!torch2(s) || !is_redundant(s, c.me)) return std::nullopt;
  if (s.closed) return RdzvAction::GracefulExit;
  if (static_cast<int>(s.participants.size()) == c.limits.max_nodes)
    return should_keep_alive(c) ? RdzvAction::KeepAlive : RdzvAction::Sync;
  return RdzvAction::RemoveFromRedundancyList;
}

}  // namespace

std::int64_t rank_of(const DynamicState& state, const NodeDesc& node) {
  auto it = find_node(state.participants, node);
  return it == state.participants.end() ? -1 : it->second;
}

RdzvAction decide_join(const RdzvContext& c) {
  const DynamicState& s = c.state;
  if (auto redundant = decide_join_redundant(c)) return *redundant;
  if (s.closed) return RdzvAction::ErrorClosed;
  bool participant = is_participant(s, c.me);
  if (s.complete && participant) return RdzvAction::Finish;
  if (c.past_deadline) {
    if (c.in_rollback && participant) return RdzvAction::RemoveFromParticipants;
    if (c.in_rollback && is_waiting(s, c.me)) return RdzvAction::RemoveFromWaitList;
    return RdzvAction::ErrorTimeout;
  }
  auto count = static_cast<int>(s.participants.size());
  if (s.complete) {
    if (count < c.limits.max_nodes && !is_waiting(s, c.me)) return RdzvAction::AddToWaitList;
    if (torch2(s) && count >= c.limits.max_nodes && !is_waiting(s, c.me))
      return RdzvAction::AddToRedundancyList;
  } else if (participant) {
    // torch compares the deadline unconditionally here; it is set whenever count >= min.
    bool last_call_over = (s.deadline && *s.deadline < c.now) || c.every_live_node_joined;
    if (count >= c.limits.min_nodes && last_call_over) return RdzvAction::MarkComplete;
  } else {
    return RdzvAction::AddToParticipants;
  }
  return should_keep_alive(c) ? RdzvAction::KeepAlive : RdzvAction::Sync;
}

std::int64_t writes_before_join_can_end(const DynamicState& s, const NodeDesc& me,
                                        const DynamicLimits& limits) {
  auto count = static_cast<std::int64_t>(s.participants.size());
  if (s.complete || s.closed || !is_participant(s, me) || count >= limits.min_nodes) return 0;
  return limits.min_nodes - count;
}

RdzvAction decide_exit(const RdzvContext& c) {
  if (!is_participant(c.state, c.me)) return RdzvAction::Finish;
  return c.past_deadline ? RdzvAction::ErrorTimeout : RdzvAction::RemoveFromParticipants;
}

RdzvAction decide_leave(const RdzvContext& c) {
  if (c.past_deadline) return RdzvAction::ErrorTimeout;
  if (is_participant(c.state, c.me)) return RdzvAction::RemoveFromParticipants;
  if (is_waiting(c.state, c.me)) return RdzvAction::RemoveFromWaitList;
  if (is_redundant(c.state, c.me)) return RdzvAction::RemoveFromRedundancyList;
  return RdzvAction::Finish;
}

RdzvAction decide_close(const RdzvContext& c) {
  if (c.state.closed) return RdzvAction::Finish;
  return c.past_deadline ? RdzvAction::ErrorTimeout : RdzvAction::MarkClosed;
}

RdzvAction decide_keep_alive(const RdzvContext& c) {
  if (!should_keep_alive(c)) return RdzvAction::Finish;
  return c.past_deadline ? RdzvAction::ErrorTimeout : RdzvAction::KeepAlive;
}

void apply_action(RdzvAction action, DynamicState& s, const NodeDesc& me,
                  const DynamicLimits& limits, UtcTime now) {
  switch (action) {
    case RdzvAction::KeepAlive: keep_alive(s, me, now); break;
    case RdzvAction::AddToParticipants: add_to_participants(s, me, limits, now); break;
    case RdzvAction::AddToWaitList:
      std::erase(s.redundancy_list, me);
      if (!is_waiting(s, me)) s.wait_list.push_back(me);
      keep_alive(s, me, now);
      break;
    case RdzvAction::AddToRedundancyList:
      if (!is_redundant(s, me)) s.redundancy_list.push_back(me);
      keep_alive(s, me, now);
      break;
    case RdzvAction::RemoveFromRedundancyList: forget(s.redundancy_list, s, me); break;
    case RdzvAction::RemoveFromParticipants:
      std::erase_if(s.participants, [&](const auto& p) { return p.first == me; });
      std::erase_if(s.last_heartbeats, [&](const auto& p) { return p.first == me; });
      removal_epilogue(s, limits);
      break;
    case RdzvAction::RemoveFromWaitList: forget(s.wait_list, s, me); break;
    case RdzvAction::MarkComplete: mark_complete(s); break;
    case RdzvAction::MarkClosed: s.closed = true; break;
    default: break;
  }
}

std::vector<NodeDesc> remove_nodes(DynamicState& s, const DynamicLimits& limits,
                                   const std::vector<NodeDesc>& nodes) {
  std::vector<NodeDesc> removed;
  bool participant_removed = false;
  for (const auto& node : nodes) {
    bool found = std::erase_if(s.last_heartbeats, [&](const auto& p) { return p.first == node; });
    bool participant =
        std::erase_if(s.participants, [&](const auto& p) { return p.first == node; }) > 0;
    found |= participant;
    found |= std::erase(s.wait_list, node) > 0;
    found |= std::erase(s.redundancy_list, node) > 0;
    participant_removed |= participant;
    if (found) removed.push_back(node);
  }
  if (participant_removed) removal_epilogue(s, limits);
  return removed;
}

std::vector<NodeDesc> remove_dead_nodes(DynamicState& s, const DynamicLimits& limits, UtcTime now) {
  UtcTime expire = now - limits.stale_after();
  std::vector<NodeDesc> dead;
  for (const auto& [node, beat] : s.last_heartbeats)
    if (beat < expire) dead.push_back(node);
  return remove_nodes(s, limits, dead);
}

}  // namespace ejob::agent
