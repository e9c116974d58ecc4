#include "ejob/agent/round_announcer.hpp"

#include "ejob/agent/c10d_store.hpp"

namespace ejob::agent {

std::string announcer_key(const std::string& run_id) {
  return "ejob.rendezvous." + run_id + "/announcer";
}

std::string news_key(const std::string& run_id) { return "ejob.rendezvous." + run_id + "/news"; }

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
  if (!state) return {};
  std::string news = std::to_string(state->round) + (state->complete ? " 1" : " 0") +
                     (state->wait_list.empty() ? " 0" : " 1") + (state->closed ? " 1" : " 0");
  if (news == m_news) return {};
  m_news = news;
  return {{"/" + news_key(m_run_id), news}};
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
