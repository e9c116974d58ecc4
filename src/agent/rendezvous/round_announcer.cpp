#include "src/agent/rendezvous/round_announcer.hpp"

#include "src/agent/rendezvous/c10d_store.hpp"

namespace ejob::agent {

std::string announcer_key(const std::string& run_id) {
  return "ejob.rendezvous." + run_id + "/announcer";
}

std::string news_key(const std::string& run_id) { return "ejob.rendezvous." + run_id + "/news"; }

RoundAnnouncer::RoundAnnouncer(const std::string& run_id, ConnectionLiveness* liveness)
    : m_run_id(run_id), m_key("/torch.rendezvous." + run_id), m_liveness(liveness) {}

void RoundAnnouncer::written(std::uint64_t connection, const std::string& key,
                             const std::string& value) {
  if (key != m_key) return;
  m_pending.clear();
  if (std::optional<DynamicState> state = stored_state(value)) {
    if (m_liveness) m_liveness->state_written(connection, *state);
    m_pending = std::to_string(state->round) + (state->complete ? " 1" : " 0") +
                (state->wait_list.empty() ? " 0" : " 1") + (state->closed ? " 1" : " 0");
  }
  {
    std::lock_guard lock(m_mutex);
    ++m_writes;
  }
  m_written.notify_all();
}

void RoundAnnouncer::closed(std::uint64_t connection) {
  if (m_liveness) m_liveness->closed(connection);
}

std::vector<std::pair<std::string, std::string>> RoundAnnouncer::initial() {
  return {{"/" + announcer_key(m_run_id), "1"}};
}

/// The server calls it right after written() for the same write, on the same thread.
std::vector<std::pair<std::string, std::string>> RoundAnnouncer::derived(
    const std::string& key, const std::string& /*value*/) {
  if (key != m_key || m_pending.empty() || m_pending == m_news) return {};
  m_news = m_pending;
  return {{"/" + news_key(m_run_id), m_news}};
}

std::uint64_t RoundAnnouncer::writes() const {
  std::lock_guard lock(m_mutex);
  return m_writes;
}

void RoundAnnouncer::wait_for_writes(std::uint64_t until, std::chrono::milliseconds timeout) const {
  std::unique_lock lock(m_mutex);
  m_written.wait_for(lock, timeout, [&] { return m_writes >= until; });
}

}  // namespace ejob::agent
