#pragma once
/// The decisions and state changes of torch's dynamic rendezvous (`dynamic_rendezvous.py`,
/// protocols/torch-c10d.md §5), as pure functions of the state, the clock and this node: what
/// DynamicRendezvous runs in its sync/decide/mutate loop. Kept literal, because torchrun
/// agents apply the same rules to the same shared state; a state in torch 2.x's dialect gets
/// 2.6's additions (the redundancy list of nodes that found the round full).

#include <chrono>

#include "src/agent/rendezvous/dynamic_state.hpp"

namespace ejob::agent {

/// The rendezvous limits every agent of a run shares.
struct DynamicLimits {
  int min_nodes = 1;
  int max_nodes = 1;
  std::chrono::seconds last_call{30};
  /// A node whose last heartbeat is older than keep_alive_interval * keep_alive_max_attempt
  /// is dead (torch: 5 s * 3).
  std::chrono::seconds keep_alive_interval{5};
  int keep_alive_max_attempt = 3;

  [[nodiscard]] std::chrono::seconds stale_after() const {
    return keep_alive_interval * keep_alive_max_attempt;
  }
};

/// torch's _Action.
enum class RdzvAction {
  KeepAlive,
  AddToParticipants,
  AddToWaitList,
  AddToRedundancyList,  ///< 2.x
  RemoveFromParticipants,
  RemoveFromWaitList,
  RemoveFromRedundancyList,  ///< 2.x: a slot freed; join again (with a fresh join deadline)
  MarkComplete,
  MarkClosed,
  Sync,
  ErrorClosed,
  GracefulExit,  ///< 2.x: closed while in the redundancy list (RendezvousGracefulExitError)
  ErrorTimeout,
  Finish,
};

/// What a decision looks at.
struct RdzvContext {
  const NodeDesc& me;
  const DynamicState& state;
  const DynamicLimits& limits;
  UtcTime now;
  /// The operation's deadline has passed; `in_rollback`: by at most 5 s (torch's grace to
  /// leave cleanly).
  bool past_deadline = false;
  bool in_rollback = false;
  /// The store host sees every node with an open store connection among the participants of
  /// a re-formed (round > 0) round: nobody known is left to wait for, so the round completes
  /// without its last call (ejob-agent's own rule; torch always waits last_call_timeout).
  bool every_live_node_joined = false;
};

/// _RendezvousJoinOp.
RdzvAction decide_join(const RdzvContext& c);
/// _RendezvousExitOp.
RdzvAction decide_exit(const RdzvContext& c);
/// A node leaving for good (ejob's, no torch op): out of the participants as the exit op
/// removes it, then off the wait and redundancy lists; Finish once in none of them.
RdzvAction decide_leave(const RdzvContext& c);
/// _RendezvousCloseOp.
RdzvAction decide_close(const RdzvContext& c);
/// _RendezvousKeepAliveOp.
RdzvAction decide_keep_alive(const RdzvContext& c);

/// Applies a mutating action to the state, as _DistributedRendezvousOpExecutor does.
void apply_action(RdzvAction action, DynamicState& state, const NodeDesc& me,
                  const DynamicLimits& limits, UtcTime now);

/// _sanitize: drops nodes whose heartbeat expired (from heartbeats, participants, wait list
/// and redundancy list), then the removal epilogue. Returns the dead nodes.
std::vector<NodeDesc> remove_dead_nodes(DynamicState& state, const DynamicLimits& limits,
                                        UtcTime now);
/// What _sanitize does to its dead nodes, for nodes known dead otherwise. Returns those of
/// `nodes` that were in the state.
std::vector<NodeDesc> remove_nodes(DynamicState& state, const DynamicLimits& limits,
                                   const std::vector<NodeDesc>& nodes);

/// How many writes of the state must follow this one before a waiting participant's join can
/// end other than by a clock: the joins still missing to min_nodes (each join is one write; the
/// last one also marks the round complete when min is max); 0 when that cannot be told (the
/// round has its minimum, or this node is not a participant).
std::int64_t writes_before_join_can_end(const DynamicState& state, const NodeDesc& me,
                                        const DynamicLimits& limits);

/// The participant's group rank, or -1.
std::int64_t rank_of(const DynamicState& state, const NodeDesc& node);

}  // namespace ejob::agent
