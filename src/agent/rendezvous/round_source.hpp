#pragma once
/// Where an agent's rounds come from: the etcd rendezvous (EtcdRoundSource) or fixed ranks
/// (StaticRoundSource, for --rdzv_backend=static). A round is complete when
/// the agent knows its group rank, its workers' ranks and MASTER_ADDR/MASTER_PORT.

#include <chrono>
#include <memory>
#include <string>

#include "src/agent/rendezvous/membership_watcher.hpp"
#include "src/agent/rendezvous/rank_assignment.hpp"

namespace ejob::agent {

/// The timeout torch's agent gives the round's store (the workers' store of each backend).
inline constexpr std::chrono::seconds k_round_store_timeout{300};

/// One completed round.
struct Round {
  std::string version;
  int group_rank = 0;
  int group_world_size = 0;
  WorkerRanks ranks;
  std::string master_addr;
  int master_port = 0;
  /// torch 2.x: MASTER_ADDR:MASTER_PORT is the group-rank-0 agent's store for the workers.
  bool use_agent_store = false;
};

/// The rendezvous as the agent's control loop sees it.
class RoundSource {
 public:
  virtual ~RoundSource() = default;
  /// Blocks until the next round is complete (throws as EtcdRendezvous::next_rendezvous).
  virtual Round next_round() = 0;
  /// Starts watching `round` for membership changes; nullptr when the backend has none.
  virtual std::unique_ptr<RoundWatcher> watch(const Round& round) = 0;
  /// The exit barrier: waits (300 s at most) until every agent of the round finished.
  virtual void exit_barrier(const Round& round) = 0;
  /// Closes the run for everybody (after success or failure, never after a signal).
  virtual void shutdown() = 0;
  /// Leaves the rendezvous for good without closing the run, the way the protocol lets the
  /// others see it at once (a node whose VM the cloud takes back): they re-form without this
  /// one instead of waiting for its keep-alive to expire. Failures are logged, not thrown.
  virtual void leave(const Round& /*round*/) {}
};

}  // namespace ejob::agent
