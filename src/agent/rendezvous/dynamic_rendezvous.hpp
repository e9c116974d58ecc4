#pragma once
/// torch 1.13's DynamicRendezvousHandler (protocols/torch-c10d.md §5): the shared state read
/// and written whole through a StateBackend (a TCPStore key for c10d), kept in sync with a 1 s
/// read cache, sanitized of dead nodes, and driven by the join/exit/close/keep-alive
/// operations of dynamic_ops; a heartbeat thread rewrites this node's keep-alive every 5 s.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "src/agent/rendezvous/dynamic_ops.hpp"

namespace ejob::agent {

/// Where the pickled state lives; tokens make writes compare-and-swap.
class StateBackend {
 public:
  virtual ~StateBackend() = default;
  /// The pickled state and its token; nullopt when there is no state yet.
  struct Stored {
    std::string pickle;
    std::string token;
  };
  virtual std::optional<Stored> get_state() = 0;
  /// Writes `pickle` if the state is still the one `token` names (nullopt: none yet). Returns
  /// what is stored afterwards (nullopt: still none) and sets `won` when it is ours.
  virtual std::optional<Stored> set_state(const std::string& pickle,
                                          const std::optional<std::string>& token, bool& won) = 0;
  /// How many changes of the stored state the backend has seen announced (0 when it cannot
  /// tell: then every wait is a plain sleep).
  [[nodiscard]] virtual std::uint64_t changes_seen() { return 0; }
  /// Waits until `writes` more writes than `seen` (a changes_seen() value) were announced, or
  /// `timeout` passed; a backend told of the state's news rather than of every write waits for
  /// its next news after `seen` instead.
  virtual void wait_for_changes(std::uint64_t /*seen*/, std::uint64_t /*writes*/,
                                std::chrono::milliseconds timeout) {
    std::this_thread::sleep_for(timeout);
  }
  /// Whether a wait ends at every write of another agent (then a crowd of waiters nap after
  /// waking, so that they do not all read the state after each write).
  [[nodiscard]] virtual bool wakes_on_every_write() { return true; }
  /// Where the state is, for messages (e.g. `TCPStore host:port key torch.rendezvous.x`).
  [[nodiscard]] virtual std::string where() const = 0;
};

/// What the agent hosting the store knows of the other agents beyond the shared state: whose
/// store connections are open. A node's connection closes when its agent dies (kill -9, a
/// lost machine) — 15 s before its heartbeat goes stale — and torch's store client never
/// reconnects, so a node whose connections all closed is gone for good.
class NodeLiveness {
 public:
  virtual ~NodeLiveness() = default;
  /// Nodes that wrote the state and whose store connections have all closed since.
  [[nodiscard]] virtual std::vector<NodeDesc> gone() const = 0;
  /// Nodes that hold a store connection open and renewed their heartbeat within the last
  /// keep_alive_interval * keep_alive_max_attempt.
  [[nodiscard]] virtual std::vector<NodeDesc> connected() const = 0;
};

/// The timeouts of --rdzv_conf (torch's RendezvousTimeout).
struct DynamicTimeouts {
  std::chrono::seconds join{600};
  std::chrono::seconds close{30};
  std::chrono::seconds heartbeat{5};
};

/// The completed round as next_rendezvous returns it.
struct DynamicWorld {
  std::int64_t round = 0;
  int rank = 0;
  int world_size = 0;
};

/// One node's handler.
class DynamicRendezvous {
 public:
  /// `dialect`: the torch whose state this node writes; a state of the other one is refused.
  /// `liveness` (the store host's, may be null; must outlive this) drops gone nodes at once
  /// and completes a re-formed round without a last call once every connected node joined.
  DynamicRendezvous(std::unique_ptr<StateBackend> backend, NodeDesc me, DynamicLimits limits,
                    DynamicTimeouts timeouts, RdzvDialect dialect = RdzvDialect::Torch1_13,
                    const NodeLiveness* liveness = nullptr);
  ~DynamicRendezvous();
  DynamicRendezvous(const DynamicRendezvous&) = delete;
  DynamicRendezvous& operator=(const DynamicRendezvous&) = delete;

  /// Leaves the current round if in one, joins the next and waits until it completes;
  /// starts heartbeats. Throws ejob::Error(Closed) for a closed run, (Timeout) after the
  /// join timeout, (Input) for a state that does not decode, (Transport) from the backend.
  DynamicWorld next_rendezvous();
  /// `len(wait_list)` after a sync (served from the 1 s cache when fresh).
  int num_nodes_waiting();
  /// `closed` after a sync.
  bool is_closed();
  /// Stops heartbeats and marks the run closed; failures are logged, not thrown.
  void shutdown();
  /// Stops heartbeats and takes this node out of the state for good (decide_leave) without
  /// closing the run: a complete round's other participants then see it one short, and the
  /// last of them to leave it starts the next round at once, instead of after this node's
  /// heartbeat went stale (15 s). Throws as next_rendezvous (within the close timeout).
  void leave();
  /// Whether the complete round `round` of `world_size` nodes, this one among them, is no
  /// longer as it was (after a sync, served from the 1 s cache when fresh): nodes wait to
  /// join, a participant left it or was dropped as dead, or the round moved on.
  bool round_changed(std::int64_t round, int world_size);
  /// Returns when the stored state changed (as far as the backend can tell) or after
  /// `timeout`; a watcher's cheap way to poll num_nodes_waiting().
  void wait_for_change(std::chrono::milliseconds timeout);
  [[nodiscard]] const NodeDesc& me() const { return m_me; }

 private:
  using Decide = RdzvAction (*)(const RdzvContext&);
  void run_op(Decide decide, std::chrono::steady_clock::time_point deadline, const char* name);
  void wait_for_others(bool wrote);
  void back_off();
  std::optional<bool> sync();
  void adopt(const std::optional<StateBackend::Stored>& stored);
  void drop_gone_nodes();
  [[nodiscard]] bool every_live_node_joined() const;
  void start_heartbeats();
  void stop_heartbeats();
  void heartbeat_loop();

  std::unique_ptr<StateBackend> m_backend;
  NodeDesc m_me;
  RdzvDialect m_dialect;
  DynamicLimits m_limits;
  DynamicTimeouts m_timeouts;
  const NodeLiveness* m_liveness;
  std::set<NodeDesc> m_reported_gone;  ///< gone nodes already logged

  // The state holder (guarded by m_lock, which torch calls the heartbeat lock).
  std::mutex m_lock;
  DynamicState m_state;
  std::optional<std::string> m_token;
  bool m_dirty = false;
  std::optional<std::chrono::steady_clock::time_point> m_last_sync;
  std::uint64_t m_changes_at_sync = 0;  ///< the backend's change count when last synced
  std::mt19937 m_rng{std::random_device{}()};

  std::thread m_heartbeat;
  std::condition_variable m_heartbeat_cv;
  bool m_heartbeat_stop = false;
};

}  // namespace ejob::agent
