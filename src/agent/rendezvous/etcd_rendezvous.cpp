#include "src/agent/rendezvous/etcd_rendezvous.hpp"

#include <algorithm>
#include <random>
#include <thread>

#include "src/agent/base/log.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int k_setup_ttl = 5;
constexpr int k_joinable_ttl = 10;
constexpr int k_frozen_ttl = 10;
constexpr int k_keep_alive_ttl = 10;
constexpr int k_run_dir_ttl = 7200;

/// Control flow of rendezvous_barrier, as in torch: retry at once, or after 1 s.
struct RetryImmediately {};
struct RetryableFailure {
  std::string reason;
};

/// torch's cas_delay() sleeps uniform(0, 100 ms) before each CAS attempt. With many agents
/// contending for one key that window is too short: almost every attempt fails and the
/// requests grow with the square of the agents. The window here widens with the measured
/// request latency and the number of consecutive failures, so attempts spread out and the
/// time grows linearly; it is never shorter than torch's.
void cas_delay(double latency_s, int failures) {
  thread_local std::mt19937 rng{std::random_device{}()};
  double window = std::max(0.1, 2.0 * latency_s * (1 + failures));
  std::uniform_real_distribution<double> d(0, window);
  std::this_thread::sleep_for(std::chrono::duration<double>(d(rng)));
}

[[noreturn]] void fail_unexpected(const std::string& what, const EtcdResult& r) {
  throw Error(ErrorCode::Transport,
              "etcd: " + what + ": " + r.message + (r.cause.empty() ? "" : " (" + r.cause + ")"));
}

}  // namespace

EtcdRendezvous::EtcdRendezvous(EtcdClientOptions options, EtcdSettings settings, std::string run_id,
                               int min_nodes, int max_nodes, FastLeave fast_leave)
    : m_options(std::move(options)),
      m_client(m_options),
      m_settings(std::move(settings)),
      m_prefix(m_settings.prefix),
      m_run_id(std::move(run_id)),
      m_min(min_nodes),
      m_max(max_nodes),
      m_fast_leave(fast_leave) {
  if (m_prefix.empty() || m_prefix.back() != '/') m_prefix += '/';
  // etcd may come up after the workers (its pod starts beside them): wait for it up to the
  // rendezvous timeout instead of failing the pod at once.
  auto deadline = Clock::now() + std::chrono::seconds(m_settings.timeout_s);
  for (bool warned = false;; warned = true) {
    try {
      connect();
      break;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Transport || Clock::now() >= deadline) throw;
      if (!warned) log_warning("waiting for etcd: " + e.message());
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
  m_run_lease = std::make_unique<LeaseRenewer>(m_options, path(""), k_run_dir_ttl);
}

void EtcdRendezvous::connect() {
  std::vector<std::string> machines = m_client.machines();
  std::string list;
  for (const auto& m : machines) list += (list.empty() ? "" : ", ") + m;
  log_info("etcd machines: " + list);
  if (m_prefix != "/") create_path_if_not_exists(m_prefix, std::nullopt);
  create_path_if_not_exists(path(""), k_run_dir_ttl);
  create_path_if_not_exists(path("/rdzv"), std::nullopt);
  EtcdWrite counter;
  counter.value = "0";
  counter.prev_exist = false;
  EtcdResult r = m_client.write(path("/rdzv/version_counter"), counter);
  if (!r.ok() && !r.is(etcd_error::node_exists)) fail_unexpected("create version_counter", r);
}

EtcdRendezvous::~EtcdRendezvous() = default;

std::string EtcdRendezvous::path(const std::string& rel) const {
  std::string p = rel.empty() || rel[0] != '/' ? "/" + rel : rel;
  return m_prefix + "run_" + m_run_id + p;
}

void EtcdRendezvous::create_path_if_not_exists(const std::string& p, std::optional<int> ttl) {
  EtcdWrite w;
  w.dir = true;
  w.prev_exist = false;
  w.ttl = ttl;
  EtcdResult r = m_client.write(p, w);
  if (!r.ok() && !r.is(etcd_error::node_exists)) fail_unexpected("create " + p, r);
}

EtcdRendezvous::Observed EtcdRendezvous::get_state() {
  auto start = Clock::now();
  EtcdResult r = m_client.get(path("/rdzv/active_version"));
  double took = std::chrono::duration<double>(Clock::now() - start).count();
  m_latency_s = 0.8 * m_latency_s + 0.2 * took;
  // The round was destroyed: creating the next one is the next step (torch sleeps 1 s first).
  if (r.is(etcd_error::key_not_found)) throw RetryImmediately{};
  if (!r.ok()) fail_unexpected("get active_version", r);
  return {r.node.value, r.etcd_index, parse_rdzv_state(r.node.value)};
}

std::optional<EtcdResult> EtcdRendezvous::cas(const std::string& value, const std::string& prev,
                                              std::optional<int> ttl) {
  EtcdWrite w;
  w.value = value;
  w.prev_value = prev;
  w.ttl = ttl;
  EtcdResult r = m_client.write(path("/rdzv/active_version"), w);
  if (r.ok()) return r;
  if (r.is(etcd_error::compare_failed) || r.is(etcd_error::key_not_found)) return std::nullopt;
  fail_unexpected("compare-and-swap active_version", r);
}

void EtcdRendezvous::check_deadline() const {
  if (Clock::now() > m_deadline)
    throw Error(ErrorCode::Timeout, "rendezvous for run_id=" + m_run_id + " timed out after " +
                                        std::to_string(m_settings.timeout_s) + " s");
}

void EtcdRendezvous::stop_keep_alive() {
  if (m_keep_alive) m_keep_alive->stop();
  m_keep_alive.reset();
}

void EtcdRendezvous::leave(const std::string& version) {
  stop_keep_alive();
  if (!m_own_keep_alive.empty()) {
    // The marker that lets the others' ejob-agents freeze the next round without the last
    // call (fast re-form, see the header). Without it they wait as torch does: only logged.
    EtcdWrite mark;
    mark.value = "";
    mark.ttl = m_settings.timeout_s;
    std::string rank = m_own_keep_alive.substr(m_own_keep_alive.rfind('/') + 1);
    EtcdResult marked = m_client.write(path("/rdzv/v_" + version + "/left/" + rank), mark);
    if (!marked.ok()) log_warning("could not mark this node as left: " + marked.message);
    EtcdResult gone = m_client.remove(m_own_keep_alive);
    if (!gone.ok() && !gone.is(etcd_error::key_not_found))
      fail_unexpected("delete " + m_own_keep_alive, gone);
    m_own_keep_alive.clear();
  }
  EtcdResult active = m_client.get(path("/rdzv/active_version"));
  if (active.is(etcd_error::key_not_found)) return;
  if (!active.ok()) fail_unexpected("get active_version", active);
  RdzvState s = parse_rdzv_state(active.node.value);
  if (s.status != "final" || s.version != version) return;
  EtcdResult d = m_client.remove(path("/rdzv/active_version"), active.node.value);
  if (!d.ok() && !d.is(etcd_error::compare_failed) && !d.is(etcd_error::key_not_found))
    fail_unexpected("destroy active_version", d);
  log_info("left rendezvous version " + version + " (keep-alive deleted, round destroyed)");
}

RendezvousResult EtcdRendezvous::next_rendezvous() {
  m_deadline = Clock::now() + std::chrono::seconds(m_settings.timeout_s);
  std::string last_failure;
  while (true) {
    if (Clock::now() > m_deadline)
      throw Error(ErrorCode::Timeout,
                  "rendezvous for run_id=" + m_run_id + " timed out after " +
                      std::to_string(m_settings.timeout_s) + " s" +
                      (last_failure.empty() ? "" : "; last failure: " + last_failure));
    stop_keep_alive();
    try {
      return init_phase();
    } catch (const RetryImmediately&) {
    } catch (const RetryableFailure& f) {
      log_debug("rendezvous: " + f.reason + "; retrying in 1 s");
      std::this_thread::sleep_for(std::chrono::seconds(1));
    } catch (const Error& e) {
      if (e.code() == ErrorCode::Timeout || e.code() == ErrorCode::Closed ||
          e.code() == ErrorCode::Internal)
        throw;
      if (e.message() != last_failure)
        log_warning("rendezvous attempt failed, will retry: " + e.message());
      last_failure = e.message();
      std::this_thread::sleep_for(std::chrono::seconds(1));
    }
  }
}

RendezvousResult EtcdRendezvous::init_phase() {
  std::optional<Observed> created = try_create();
  Observed obs = created ? *created : get_state();
  const RdzvState& s = obs.state;
  if (s.status == "closed")
    throw Error(ErrorCode::Closed, "rendezvous for run_id=" + m_run_id +
                                       " is closed (a run with this id already "
                                       "finished; use another --rdzv_id or delete " +
                                       m_prefix + "run_" + m_run_id + ")");
  if (s.status == "joinable") return join_phase(*s.version);
  if (s.status == "final") {
    handle_existing(*s.version);
    throw RetryImmediately{};
  }
  // torch sleeps 1 s after this watch in any case; once the state has moved on there is
  // nothing to wait for, so retry at once (same requests, earlier).
  Observed next = wait_for_change(obs.etcd_index + 1, std::nullopt);
  if (next.raw != obs.raw) throw RetryImmediately{};
  throw RetryableFailure{"the rendezvous is in a transitional state (" + s.status + ")"};
}

std::optional<EtcdRendezvous::Observed> EtcdRendezvous::try_create() {
  EtcdWrite setup;
  setup.value = to_json(RdzvState{"setup"});
  setup.prev_exist = false;
  setup.ttl = k_setup_ttl;
  EtcdResult created = m_client.write(path("/rdzv/active_version"), setup);
  if (created.is(etcd_error::node_exists)) return std::nullopt;
  if (!created.ok()) fail_unexpected("create active_version", created);
  EtcdResult counter = m_client.get(path("/rdzv/version_counter"));
  EtcdWrite bump;
  bump.prev_exist = true;
  bump.prev_index = counter.node.modified_index;
  std::string version;
  try {
    version = std::to_string(std::stoll(counter.node.value) + 1);
  } catch (const std::exception&) {
    version.clear();
  }
  bump.value = version;
  EtcdResult bumped = counter.ok() && !version.empty()
                          ? m_client.write(path("/rdzv/version_counter"), bump)
                          : counter;
  if (!counter.ok() || version.empty() || !bumped.ok())
    throw Error(
        ErrorCode::Internal,
        "Unexpected state of EtcdRendezvousHandler, worker needs to die (version_counter: " +
            (counter.ok() ? "'" + counter.node.value + "'" : counter.message) + ")");
  create_path_if_not_exists(path("/rdzv/v_" + version), std::nullopt);
  RdzvState joinable{"joinable", version, std::vector<int>{}, {}, {}};
  std::optional<EtcdResult> r = cas(to_json(joinable), *setup.value, std::nullopt);
  if (!r) throw RetryableFailure{"the new rendezvous state expired before it became joinable"};
  log_info("created rendezvous version " + version);
  return Observed{r->node.value, r->etcd_index, joinable};
}

RendezvousResult EtcdRendezvous::join_phase(const std::string& version) {
  Observed joined;
  int rank = join(version, joined);
  log_info("joined rendezvous version " + version + " as rank " + std::to_string(rank) + ": " +
           joined.raw);
  m_stayed = nodes_that_stayed();
  if (rank == m_min - 1 && joined.state.status == "joinable") {
    log_info("rank " + std::to_string(rank) + " is responsible for the join last call (" +
             std::to_string(m_settings.last_call_timeout_s) + " s)");
    last_call(version, Clock::now() + std::chrono::seconds(m_settings.last_call_timeout_s));
  }
  wait_for("frozen", "joinable", version);
  confirm(version, rank);
  wait_for("final", "frozen", version);
  Observed fin = get_state();
  if (fin.state.status != "final" || fin.state.version != version)
    throw RetryableFailure{"the round changed before it could be read back"};
  int world = static_cast<int>(fin.state.participants->size());
  log_info("rendezvous version " + version + " is complete: rank " + std::to_string(rank) + " of " +
           std::to_string(world));
  m_last_round = std::make_pair(version, world);
  return {version, rank, world};
}

int EtcdRendezvous::join(const std::string& version, Observed& out) {
  for (int failures = 0;; ++failures) {
    cas_delay(m_latency_s, failures);
    Observed obs = get_state();
    RdzvState s = obs.state;
    if (s.status != "joinable")
      throw RetryableFailure{"the round became non-joinable before this agent could join"};
    if (s.version != version) throw RetryImmediately{};
    if (static_cast<int>(s.participants->size()) >= m_max)
      throw Error(ErrorCode::Internal, "joinable rendezvous has no space left: " + obs.raw);
    int rank = static_cast<int>(s.participants->size());
    s.participants->push_back(rank);
    std::optional<int> ttl;
    if (static_cast<int>(s.participants->size()) == m_max) {
      s.status = "frozen";
      s.keep_alives = std::vector<std::string>{};
      ttl = k_frozen_ttl;
    } else if (static_cast<int>(s.participants->size()) >= m_min) {
      ttl = k_joinable_ttl;
    }
    std::string value = to_json(s);
    if (auto r = cas(value, obs.raw, ttl)) {
      out = {r->node.value, r->etcd_index, s};
      return rank;
    }
    log_debug("join CAS unsuccessful, retrying");
  }
}

void EtcdRendezvous::last_call(const std::string& version, Clock::time_point deadline) {
  Observed obs = get_state();
  while (true) {
    const RdzvState& s = obs.state;
    if (s.status == "frozen" && s.version == version) return;
    if (s.status != "joinable" || s.version != version)
      throw RetryableFailure{"the round changed during the last call"};
    if (Clock::now() >= deadline || everyone_back(s)) {
      if (freeze(obs)) return;
      cas_delay(m_latency_s, 0);
      obs = get_state();
      continue;
    }
    // Refresh the joinable TTL (guarded by CAS on the same value), then watch for a change.
    std::optional<EtcdResult> r = cas(obs.raw, obs.raw, k_joinable_ttl);
    if (!r) {
      cas_delay(m_latency_s, 0);
      obs = get_state();
      continue;
    }
    double left = std::chrono::duration<double>(deadline - Clock::now()).count();
    obs = wait_for_change(r->etcd_index + 1, std::min(k_joinable_ttl / 2.0, left + 1.0));
  }
}

int EtcdRendezvous::nodes_that_stayed() {
  if (!m_settings.fast_reform || !m_last_round) return 0;
  EtcdResult left = m_client.get(path("/rdzv/v_" + m_last_round->first + "/left"));
  // No marker: nobody left after a notice (a crash, a scale change): torch's last call.
  if (!left.ok() || left.node.nodes.empty()) return 0;
  return m_last_round->second - static_cast<int>(left.node.nodes.size());
}

bool EtcdRendezvous::everyone_back(const RdzvState& s) const {
  return m_stayed >= m_min && s.status == "joinable" &&
         static_cast<int>(s.participants->size()) >= m_stayed;
}

bool EtcdRendezvous::freeze(const Observed& joinable) {
  RdzvState frozen = joinable.state;
  frozen.status = "frozen";
  frozen.keep_alives = std::vector<std::string>{};
  if (everyone_back(joinable.state))
    log_info("the " + std::to_string(m_stayed) + " nodes that stayed in rendezvous version " +
             m_last_round->first + " joined; freezing version " + *joinable.state.version +
             " without the last call");
  return cas(to_json(frozen), joinable.raw, k_frozen_ttl).has_value();
}

void EtcdRendezvous::wait_for(const std::string& status, const std::string& from,
                              const std::string& version) {
  Observed obs = get_state();
  while (true) {
    const RdzvState& s = obs.state;
    if (s.status == status && s.version == version) return;
    if (s.status != from || s.version != version)
      throw RetryableFailure{"the round can no longer become " + status};
    if (from == "joinable" && everyone_back(s)) {
      freeze(obs);
      obs = get_state();
      continue;
    }
    // Every join or confirmation wakes every watcher. While many more must happen before the
    // transition we wait for, sleep through them and re-read, instead of waking N times.
    auto done =
        static_cast<int>(from == "joinable" ? s.participants->size() : s.keep_alives->size());
    int needed = from == "joinable" ? m_min : static_cast<int>(s.participants->size());
    if (needed - done > 1) {
      double nap = std::min(0.3, (needed - done) * m_latency_s);
      std::this_thread::sleep_for(std::chrono::duration<double>(nap));
      check_deadline();
      obs = get_state();
      continue;
    }
    obs = wait_for_change(obs.etcd_index + 1, std::nullopt);
  }
}

void EtcdRendezvous::confirm(const std::string& version, int rank) {
  std::string key = path("/rdzv/v_" + version + "/rank_" + std::to_string(rank));
  Clock::time_point key_written{};
  for (int failures = 0;; ++failures) {
    cas_delay(m_latency_s, failures);
    Observed obs = get_state();
    RdzvState s = obs.state;
    if (s.status != "frozen" || s.version != version) throw RetryImmediately{};
    // torch re-creates the key before every attempt; once per half TTL keeps it as fresh.
    if (Clock::now() - key_written > std::chrono::seconds(k_keep_alive_ttl / 2)) {
      EtcdWrite keep;
      keep.ttl = k_keep_alive_ttl;
      EtcdResult k = m_client.write(key, keep);
      if (!k.ok()) fail_unexpected("create keep-alive " + key, k);
      key_written = Clock::now();
    }
    s.keep_alives->push_back(key);
    bool finalize = s.keep_alives->size() == s.participants->size();
    if (finalize) {
      s.status = "final";
      s.num_workers_waiting = 0;
    }
    if (cas(to_json(s), obs.raw, finalize ? std::nullopt : std::optional<int>(k_frozen_ttl))) {
      m_keep_alive = std::make_unique<LeaseRenewer>(m_options, key, k_keep_alive_ttl);
      m_own_keep_alive = key;
      return;
    }
    log_debug("confirm membership CAS unsuccessful, retrying");
  }
}

void EtcdRendezvous::handle_existing(const std::string& version) {
  announce_waiting(version);
  wait_to_free(version);
  log_info("the previous rendezvous round changed; joining the next one");
}

void EtcdRendezvous::announce_waiting(const std::string& version) {
  for (int failures = 0;; ++failures) {
    cas_delay(m_latency_s, failures);
    Observed obs = get_state();
    RdzvState s = obs.state;
    if (s.status != "final" || s.version != version) throw RetryImmediately{};
    *s.num_workers_waiting += 1;
    if (cas(to_json(s), obs.raw, std::nullopt)) {
      log_info("added self to the waiting list of rendezvous version " + version);
      return;
    }
  }
}

void EtcdRendezvous::wait_to_free(const std::string& version) {
  Observed obs = get_state();
  std::string round_dir = path("/rdzv/v_" + version);
  while (true) {
    const RdzvState& s = obs.state;
    if (s.status != "final" || s.version != version) return;
    EtcdResult alive = m_client.get(round_dir);
    if (!alive.ok()) fail_unexpected("list " + round_dir, alive);
    std::vector<std::string> keys;
    for (const auto& n : alive.node.nodes) keys.push_back(n.key);
    for (const auto& k : *s.keep_alives) {
      if (std::find(keys.begin(), keys.end(), k) != keys.end()) continue;
      log_info("keep-alive " + k + " is gone; destroying rendezvous version " + version);
      EtcdResult d = m_client.remove(path("/rdzv/active_version"), obs.raw);
      if (!d.ok() && !d.is(etcd_error::compare_failed) && !d.is(etcd_error::key_not_found))
        fail_unexpected("destroy active_version", d);
      return;
    }
    bool mine = std::find(s.keep_alives->begin(), s.keep_alives->end(), m_own_keep_alive) !=
                s.keep_alives->end();
    if (m_fast_leave == FastLeave::On && mine &&
        *s.num_workers_waiting >= static_cast<int>(s.participants->size())) {
      // Every participant has re-entered: nobody needs this round any more (see header).
      log_info("all " + std::to_string(s.participants->size()) +
               " participants are waiting; releasing keep-alive " + m_own_keep_alive);
      m_client.remove(m_own_keep_alive);
      m_own_keep_alive.clear();
      obs = get_state();
      continue;
    }
    double left = std::chrono::duration<double>(m_deadline - Clock::now()).count();
    EtcdResult w = m_client.watch(path("/rdzv"), obs.etcd_index + 1, true,
                                  static_cast<long>((std::max(left, 0.0) + 1.0) * 1000));
    (void)w;  // any event, timeout or cleared index: re-read and look again
    check_deadline();
    obs = get_state();
  }
}

EtcdRendezvous::Observed EtcdRendezvous::wait_for_change(std::int64_t index,
                                                         std::optional<double> timeout_s) {
  double overall =
      std::max(std::chrono::duration<double>(m_deadline - Clock::now()).count(), 0.0) + 1.0;
  double t = timeout_s ? std::min(*timeout_s, overall) : overall;
  EtcdResult w =
      m_client.watch(path("/rdzv/active_version"), index, false, static_cast<long>(t * 1000));
  check_deadline();
  // The event carries the new value (exact bytes, usable for CAS): no GET needed, which
  // halves the requests of N agents woken by every change. Deletes and expiries re-read.
  bool carries_value = w.ok() && (w.action == "set" || w.action == "compareAndSwap" ||
                                  w.action == "create" || w.action == "update");
  if (!carries_value) return get_state();
  return {w.node.value, w.node.modified_index, parse_rdzv_state(w.node.value)};
}

std::string EtcdRendezvous::setup_store(const std::string& version) {
  std::string dir = path("/rdzv/v_" + version + "/kv");
  create_path_if_not_exists(dir, std::nullopt);
  return dir;
}

int EtcdRendezvous::num_nodes_waiting() {
  EtcdResult r = m_client.get(path("/rdzv/active_version"));
  if (!r.ok()) return 0;
  RdzvState s = parse_rdzv_state(r.node.value);
  return s.status == "final" ? *s.num_workers_waiting : 0;
}

bool EtcdRendezvous::is_closed() {
  EtcdResult r = m_client.get(path("/rdzv/active_version"));
  return r.ok() && parse_rdzv_state(r.node.value).status == "closed";
}

void EtcdRendezvous::set_closed() {
  while (true) {
    EtcdResult r = m_client.get(path("/rdzv/active_version"));
    if (r.is(etcd_error::key_not_found)) {
      // As torch: there is no round to mark (it was destroyed); shutdown only warns.
      log_warning("cannot close rendezvous for run_id=" + m_run_id + ": no active round");
      return;
    }
    if (!r.ok()) fail_unexpected("get active_version", r);
    RdzvState s = parse_rdzv_state(r.node.value);
    if (s.status == "closed") return;
    s.status = "closed";
    if (cas(to_json(s), r.node.value, std::nullopt)) return;
    log_debug("set closed CAS unsuccessful, retrying");
    cas_delay(m_latency_s, 0);
  }
}

}  // namespace ejob::agent
