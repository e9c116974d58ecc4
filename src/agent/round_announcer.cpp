#include "ejob/agent/round_announcer.hpp"

#include "ejob/agent/c10d_store.hpp"

namespace ejob::agent {

std::string announcer_key(const std::string& run_id) {
  return "ejob.rendezvous." + run_id + "/announcer";
}

std::string completion_key(const std::string& run_id, std::int64_t round) {
  return "ejob.rendezvous." + run_id + "/complete/" + std::to_string(round);
}

RoundAnnouncer::RoundAnnouncer(const std::string& run_id, StoreObserver* inner)
    : m_run_id(run_id), m_key("/torch.rendezvous." + run_id), m_inner(inner) {}

void RoundAnnouncer::written(std::uint64_t connection, const std::string& key,
                             const std::string& value) {
  if (m_inner) m_inner->written(connection, key, value);
  if (key != m_key) return;
  {
    std::lock_guard lock(m_mutex);
    ++m_writes;
  }
  m_written.notify_all();
}

void RoundAnnouncer::closed(std::uint64_t connection) {
  if (m_inner) m_inner->closed(connection);
}

std::vector<std::pair<std::string, std::string>> RoundAnnouncer::initial() {
  return {{"/" + announcer_key(m_run_id), "1"}};
}

std::vector<std::pair<std::string, std::string>> RoundAnnouncer::derived(const std::string& key,
                                                                         const std::string& value) {
  if (key != m_key) return {};
  std::optional<DynamicState> state = stored_state(value);
  if (!state || !state->complete || state->closed || m_announced == state->round) return {};
  m_announced = state->round;
  return {{"/" + completion_key(m_run_id, state->round), "1"}};
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
