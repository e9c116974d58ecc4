#pragma once
/// The `etcd` rendezvous backend of torch.distributed.elastic (etcd_rendezvous.py), so that
/// ejob-agents and torchrun agents can form one round: the key layout, JSON states, CAS on exact
/// previous values, TTLs, last call, keep-alives, waiting list and destruction of dead rounds of
/// §1.3–1.4 of the protocol notes.
///
/// One deliberate, protocol-compatible addition ("fast leave"): an agent waiting to replace a
/// final round it was a member of deletes its own keep-alive once every participant has
/// announced itself waiting, instead of letting the key expire (≤10 s). Peers that watch the
/// round see the key gone and destroy the round at once. While some participant has not yet
/// re-entered (a torchrun agent between its monitor ticks), the key is kept, so that agent
/// still sees `num_workers_waiting > 0`.
///
/// A second one, "fast re-form" (rdzv_conf `fast_reform`, default on): an agent that leaves
/// for good after a notice first writes a marker `…/rdzv/v_<version>/left/rank_<r>`. In the
/// next round, an ejob-agent that was in that round counts the nodes that stayed (its size
/// less the markers) and freezes the round as soon as that many have joined, instead of the
/// last call's 30 s: nobody known is left to wait for. A torchrun agent holding the last call
/// sees the round frozen, as when `max` nodes joined.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "src/agent/etcd/etcd_client.hpp"
#include "src/agent/etcd/lease_renewer.hpp"
#include "src/agent/rendezvous/rdzv_conf.hpp"
#include "src/agent/rendezvous/rdzv_state.hpp"

namespace ejob::agent {

/// Whether to delete one's keep-alive when everyone of a final round is waiting (see above).
enum class FastLeave { On, Off };

/// The outcome of one rendezvous: the round's version, this agent's group rank and the
/// number of agents.
struct RendezvousResult {
  std::string version;
  int rank = 0;
  int world_size = 0;
};

/// The etcd rendezvous of one run id.
class EtcdRendezvous {
 public:
  /// Connects and creates the run's directories (`P/`, `P/run_<id>/` with TTL 7200 refreshed
  /// every 3600 s, `…/rdzv/`, `…/rdzv/version_counter`). Waits for an unreachable etcd up to
  /// the rendezvous timeout, then throws ejob::Error(Transport) with the last failure.
  EtcdRendezvous(EtcdClientOptions options, EtcdSettings settings, std::string run_id,
                 int min_nodes, int max_nodes, FastLeave fast_leave = FastLeave::On);
  ~EtcdRendezvous();
  EtcdRendezvous(const EtcdRendezvous&) = delete;
  EtcdRendezvous& operator=(const EtcdRendezvous&) = delete;

  /// rendezvous_barrier(): blocks until this agent is in a final round. Throws
  /// ejob::Error(Closed) when the run is closed, ejob::Error(Timeout) after the rdzv timeout
  /// (naming the last retryable failure), ejob::Error(Internal) when the state machine breaks.
  RendezvousResult next_rendezvous();
  /// Creates the round's store directory `…/rdzv/v_<version>/kv` and returns its path.
  std::string setup_store(const std::string& version);
  /// `num_workers_waiting` of a final round, else 0.
  int num_nodes_waiting();
  /// True when the state is `closed`.
  bool is_closed();
  /// Marks the run closed (CAS loop keeping the other fields).
  void set_closed();
  /// Stops refreshing this agent's keep-alive (it then expires within 10 s).
  void stop_keep_alive();
  /// Leaves the final round `version` for good without closing the run: stops refreshing this
  /// agent's keep-alive, deletes it, and destroys the round by compare-and-delete, as an agent
  /// waiting to replace it does once a keep-alive is gone (§1.4, step 8). The others create
  /// the next round at once instead of after the key's TTL (≤ 10 s). Leaves a round that is
  /// no longer the active one alone. Throws ejob::Error(Transport).
  void leave(const std::string& version);

  /// The full etcd path of `rel` under the run, e.g. path("/rdzv") = `P/run_<id>/rdzv`.
  [[nodiscard]] std::string path(const std::string& rel) const;
  [[nodiscard]] EtcdClient& client() { return m_client; }
  [[nodiscard]] const EtcdClientOptions& client_options() const { return m_options; }
  [[nodiscard]] const std::string& run_id() const { return m_run_id; }

 private:
  /// A state as read: the exact value (for CAS), the X-Etcd-Index and the parsed state.
  struct Observed {
    std::string raw;
    std::int64_t etcd_index = 0;
    RdzvState state;
  };

  void connect();
  void create_path_if_not_exists(const std::string& path, std::optional<int> ttl);
  Observed get_state();
  std::optional<EtcdResult> cas(const std::string& value, const std::string& prev,
                                std::optional<int> ttl);
  RendezvousResult init_phase();
  std::optional<Observed> try_create();
  RendezvousResult join_phase(const std::string& version);
  int join(const std::string& version, Observed& out);
  void last_call(const std::string& version, std::chrono::steady_clock::time_point deadline);
  [[nodiscard]] int nodes_that_stayed();
  [[nodiscard]] bool everyone_back(const RdzvState& s) const;
  bool freeze(const Observed& joinable);
  void wait_for(const std::string& status, const std::string& from, const std::string& version);
  void confirm(const std::string& version, int rank);
  void handle_existing(const std::string& version);
  void announce_waiting(const std::string& version);
  void wait_to_free(const std::string& version);
  Observed wait_for_change(std::int64_t index, std::optional<double> timeout_s);
  void check_deadline() const;

  EtcdClientOptions m_options;
  EtcdClient m_client;
  EtcdSettings m_settings;
  std::string m_prefix;
  std::string m_run_id;
  int m_min;
  int m_max;
  FastLeave m_fast_leave;
  std::chrono::steady_clock::time_point m_deadline;
  std::unique_ptr<LeaseRenewer> m_run_lease;
  std::unique_ptr<LeaseRenewer> m_keep_alive;
  std::string m_own_keep_alive;  ///< the keep-alive key of the last round this agent completed
  /// The last round this agent completed (version, size): what fast re-form counts from.
  std::optional<std::pair<std::string, int>> m_last_round;
  int m_stayed = 0;            ///< nodes of m_last_round that did not leave; 0 = unknown
  double m_latency_s = 0.002;  ///< moving average of the state GET's round trip
};

}  // namespace ejob::agent
