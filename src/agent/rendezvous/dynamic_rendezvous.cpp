#include "src/agent/rendezvous/dynamic_rendezvous.hpp"

#include <algorithm>
#include <random>

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/rendezvous/state_pickle.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using Clock = std::chrono::steady_clock;

/// torch's state read cache and poll delay.
constexpr auto k_cache = std::chrono::seconds(1);
constexpr auto k_poll = std::chrono::seconds(1);
/// The random delay of a node's first join: at most torch's 0.3 s, and 1 ms per node.
constexpr std::chrono::microseconds k_stagger_max{300000};
constexpr std::chrono::microseconds k_stagger_per_node{1000};
/// The pause after a wake-up while waiting: 1 ms per participant, at most 0.1 s.
constexpr std::chrono::microseconds k_nap_per_node{1000};
constexpr std::chrono::microseconds k_nap_max{100000};
/// One write's share of the back-off window after a lost write.
constexpr std::chrono::microseconds k_backoff_slot{250};
/// How long after an operation's deadline a node may still leave cleanly.
constexpr auto k_rollback = std::chrono::seconds(5);

}  // namespace

DynamicRendezvous::DynamicRendezvous(std::unique_ptr<StateBackend> backend, NodeDesc me,
                                     DynamicLimits limits, DynamicTimeouts timeouts,
                                     RdzvDialect dialect, const NodeLiveness* liveness)
    : m_backend(std::move(backend)),
      m_me(std::move(me)),
      m_dialect(dialect),
      m_limits(limits),
      m_timeouts(timeouts),
      m_liveness(liveness) {
  m_state.dialect = dialect;
}

DynamicRendezvous::~DynamicRendezvous() { stop_heartbeats(); }

/// _BackendRendezvousStateHolder.sync: write when dirty, else read unless the cache is fresh;
/// adopt what the backend holds, then drop dead nodes. Returns whether our write won (nullopt
/// when nothing was written).
std::optional<bool> DynamicRendezvous::sync() {
  std::optional<bool> won;
  // A change announced since the last sync makes the cached state stale: read it at once.
  std::uint64_t changes = m_backend->changes_seen();
  bool changed = changes != m_changes_at_sync;
  m_changes_at_sync = changes;
  if (m_dirty) {
    bool ours = false;
    adopt(m_backend->set_state(pickle_state(m_state), m_token, ours));
    won = ours;
  } else {
    if (!changed && m_last_sync && *m_last_sync >= Clock::now() - k_cache) return std::nullopt;
    adopt(m_backend->get_state());
  }
  m_dirty = false;
  m_last_sync = Clock::now();
  std::vector<NodeDesc> dead = remove_dead_nodes(m_state, m_limits, utc_now());
  for (const auto& n : dead) log_debug("rendezvous: node " + to_string(n) + " is dead");
  drop_gone_nodes();
  return won;
}

/// As torch's sanitize does with stale heartbeats, for nodes whose store connections closed:
/// in memory, written with this node's next change.
void DynamicRendezvous::drop_gone_nodes() {
  if (!m_liveness) return;
  std::vector<NodeDesc> gone = m_liveness->gone();
  std::erase(gone, m_me);
  for (const auto& n : remove_nodes(m_state, m_limits, gone))
    if (m_reported_gone.insert(n).second)
      log_info("rendezvous: node " + to_string(n) + " left (its store connection closed)");
}

bool DynamicRendezvous::every_live_node_joined() const {
  if (!m_liveness || m_state.round == 0 || m_state.complete) return false;
  std::vector<NodeDesc> connected = m_liveness->connected();
  for (const auto& n : connected)
    if (rank_of(m_state, n) < 0) return false;
  return !connected.empty();
}

void DynamicRendezvous::adopt(const std::optional<StateBackend::Stored>& stored) {
  if (!stored) {
    m_state = DynamicState{};
    m_state.dialect = m_dialect;
    m_token.reset();
    return;
  }
  try {
    m_state = unpickle_state(stored->pickle);
  } catch (const Error& e) {
    throw Error(e.code(), e.message() + " (" + m_backend->where() + ")");
  }
  // A state of the other torch: its agents would fail on ours (naive vs aware times).
  if (m_state.dialect != m_dialect) {
    auto name = [](RdzvDialect d) { return d == RdzvDialect::Torch2 ? "2.x" : "1.13"; };
    throw Error(ErrorCode::Input, std::string("the rendezvous state is torch ") +
                                      name(m_state.dialect) + "'s; this agent speaks torch " +
                                      name(m_dialect) +
                                      "'s (every node of a job must run the same torch; "
                                      "--torch_version) (" +
                                      m_backend->where() + ")");
  }
  m_token = stored->token;
}

/// _DistributedRendezvousOpExecutor.run: sync, decide, then finish, fail, wait a second, or
/// change the local state and write it at the next sync.
void DynamicRendezvous::run_op(Decide decide, Clock::time_point deadline, const char* name) {
  while (true) {
    std::optional<bool> won;
    try {
      won = sync();
      if (won == false) {
        back_off();
        continue;  // the next sync reads what was written meanwhile
      }
    } catch (const Error& e) {
      // A store that answers garbage or went away: say which step of which round met it.
      if (e.code() != ErrorCode::Transport) throw;
      throw Error(e.code(), e.message() + " (rendezvous " + name + ", round " +
                                std::to_string(m_state.round) + ")");
    }
    Clock::time_point now = Clock::now();
    RdzvContext ctx{m_me,
                    m_state,
                    m_limits,
                    utc_now(),
                    now > deadline,
                    now <= deadline + k_rollback,
                    every_live_node_joined()};
    RdzvAction action = decide(ctx);
    log_debug(std::string("rendezvous ") + name + ": round " + std::to_string(m_state.round) +
              ", " + std::to_string(m_state.participants.size()) + " participants: action " +
              std::to_string(static_cast<int>(action)));
    switch (action) {
      case RdzvAction::Finish: return;
      case RdzvAction::ErrorClosed:
        throw Error(ErrorCode::Closed, "the rendezvous is closed (" + m_backend->where() + ")");
      case RdzvAction::GracefulExit:
        throw Error(ErrorCode::Closed,
                    "the rendezvous closed while this node waited in its "
                    "redundancy list (" +
                        m_backend->where() + ")");
      case RdzvAction::ErrorTimeout:
        throw Error(ErrorCode::Timeout, std::string("rendezvous ") + name + " timed out in round " +
                                            std::to_string(m_state.round) + " (" +
                                            m_backend->where() + ")");
      case RdzvAction::Sync: wait_for_others(won.value_or(false)); break;
      default:
        apply_action(action, m_state, m_me, m_limits, ctx.now);
        m_dirty = true;
        // 2.6: a node leaving the redundancy list joins with a fresh join timeout.
        if (action == RdzvAction::RemoveFromRedundancyList) deadline = now + m_timeouts.join;
    }
  }
}

/// torch sleeps 1 s; waking as soon as other agents wrote the state decides the same things
/// earlier (the next sync reads the new state). A participant short of min_nodes sleeps through
/// the joins that must come first (at 128 agents, each would otherwise read the state ~8 times
/// while the round fills). Where the backend wakes every waiting agent at every write, a nap
/// that grows with the round lets the writes of a crowd pass together before this one reads.
void DynamicRendezvous::wait_for_others(bool wrote) {
  std::int64_t missing = writes_before_join_can_end(m_state, m_me, m_limits);
  // Our own write is announced too, after sync() read the count.
  auto writes = static_cast<std::uint64_t>(std::max<std::int64_t>(missing, 1)) + wrote;
  auto nap = std::min<std::chrono::microseconds>(
      k_nap_per_node * static_cast<int>(m_state.participants.size()), k_nap_max);
  bool crowd = missing == 0 && m_backend->wakes_on_every_write();
  m_lock.unlock();  // let heartbeats through while waiting
  m_backend->wait_for_changes(m_changes_at_sync, writes, k_poll);
  if (crowd) std::this_thread::sleep_for(nap);
  m_lock.lock();
}

/// After a lost compare-and-swap: every node that has yet to write retries, and only one of
/// them can win each write's time; retrying at once, N nodes wrote ~N²/2 times (6,800 writes for
/// 128 nodes started together, one winner every ~5 ms). Each waits a random share of a window of
/// k_backoff_slot (about one write's time) per node still out, so that about one tries at a
/// time.
void DynamicRendezvous::back_off() {
  auto out = std::max<std::int64_t>(
      1, m_limits.max_nodes - static_cast<std::int64_t>(m_state.participants.size()));
  auto window = std::min<std::chrono::microseconds>(k_backoff_slot * out, k_poll);
  std::uniform_int_distribution<std::int64_t> pick(0, window.count());
  m_lock.unlock();
  std::this_thread::sleep_for(std::chrono::microseconds(pick(m_rng)));
  m_lock.lock();
}

DynamicWorld DynamicRendezvous::next_rendezvous() {
  stop_heartbeats();
  std::unique_lock lock(m_lock);
  if (m_state.round == 0) {
    // torch staggers the first attempt of every node by up to 0.3 s whatever their number, to
    // spread the writes of the state. They queue for one compare-and-swap each (~0.1 ms of
    // decoding and encoding at 128 nodes): a window of k_stagger_per_node per node spreads them
    // as well, and 4 nodes do not wait 0.24 s on average for the last of them. 300 nodes and
    // more get torch's 0.3 s.
    auto window =
        std::min<std::chrono::microseconds>(k_stagger_max, k_stagger_per_node * m_limits.max_nodes);
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::microseconds(
        std::uniform_int_distribution<std::int64_t>(0, window.count())(m_rng)));
    lock.lock();
  }
  auto deadline = Clock::now() + m_timeouts.join;
  run_op(decide_exit, deadline, "exit");
  run_op(decide_join, deadline, "join");
  DynamicWorld world{m_state.round, static_cast<int>(rank_of(m_state, m_me)),
                     static_cast<int>(m_state.participants.size())};
  lock.unlock();
  start_heartbeats();
  return world;
}

void DynamicRendezvous::wait_for_change(std::chrono::milliseconds timeout) {
  std::uint64_t seen = 0;
  {
    std::lock_guard lock(m_lock);
    seen = m_changes_at_sync;
  }
  m_backend->wait_for_changes(seen, 1, timeout);
}

int DynamicRendezvous::num_nodes_waiting() {
  std::lock_guard lock(m_lock);
  sync();
  return static_cast<int>(m_state.wait_list.size());
}

bool DynamicRendezvous::is_closed() {
  std::lock_guard lock(m_lock);
  sync();
  return m_state.closed;
}

void DynamicRendezvous::shutdown() {
  stop_heartbeats();
  try {
    std::lock_guard lock(m_lock);
    run_op(decide_close, Clock::now() + m_timeouts.close, "close");
  } catch (const Error& e) {
    log_warning("the rendezvous could not be closed: " + e.message());
  }
}

void DynamicRendezvous::leave() {
  stop_heartbeats();
  std::lock_guard lock(m_lock);
  run_op(decide_leave, Clock::now() + m_timeouts.close, "leave");
}

bool DynamicRendezvous::round_changed(std::int64_t round, int world_size) {
  std::lock_guard lock(m_lock);
  sync();
  return !m_state.wait_list.empty() || m_state.round != round || !m_state.complete ||
         static_cast<int>(m_state.participants.size()) != world_size || rank_of(m_state, m_me) < 0;
}

void DynamicRendezvous::start_heartbeats() {
  stop_heartbeats();
  m_heartbeat_stop = false;
  m_heartbeat = start_helper_thread([this] { heartbeat_loop(); });
}

void DynamicRendezvous::stop_heartbeats() {
  if (!m_heartbeat.joinable()) return;
  {
    std::lock_guard lock(m_lock);
    m_heartbeat_stop = true;
  }
  m_heartbeat_cv.notify_all();
  m_heartbeat.join();
}

/// Every keep-alive interval: the keep-alive op (writes only when my heartbeat is 5 s old).
void DynamicRendezvous::heartbeat_loop() {
  std::unique_lock lock(m_lock);
  while (!m_heartbeat_cv.wait_for(lock, m_limits.keep_alive_interval,
                                  [this] { return m_heartbeat_stop; })) {
    try {
      run_op(decide_keep_alive, Clock::now() + m_timeouts.heartbeat, "keep-alive");
    } catch (const Error& e) {
      log_warning("rendezvous keep-alive failed: " + e.message());
    }
  }
}

}  // namespace ejob::agent
