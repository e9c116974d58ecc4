#include "src/agent/rendezvous/c10d_store.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <unistd.h>

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/rendezvous/state_pickle.hpp"
#include "src/agent/store/store_codec.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

bool is_loopback(const std::string& host) {
  in_addr v4{};
  in6_addr v6{};
  if (::inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  if (::inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

/// The canonical name and addresses of this host (getaddrinfo(gethostname(), AI_CANONNAME)).
std::vector<std::string> own_names(const std::string& hostname) {
  std::vector<std::string> out;
  addrinfo hints{};
  hints.ai_flags = AI_CANONNAME;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(hostname.c_str(), nullptr, &hints, &res) != 0) return out;
  for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
    if (a->ai_canonname) out.emplace_back(a->ai_canonname);
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        a->ai_family == AF_INET6
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr);
    if (::inet_ntop(a->ai_family, raw, text, sizeof text)) out.emplace_back(text);
  }
  ::freeaddrinfo(res);
  return out;
}

}  // namespace

std::optional<DynamicState> stored_state(const std::string& value) {
  if (value == k_c10d_no_state) return std::nullopt;
  try {
    return unpickle_state(b64decode(value));
  } catch (const Error&) {
    return std::nullopt;
  }
}

bool endpoint_is_local(const std::string& host) {
  if (host == "localhost" || is_loopback(host)) return true;
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  if (host == name) return true;
  for (const auto& n : own_names(name))
    if (n == host) return true;
  return false;
}

C10dStateBackend::C10dStateBackend(std::unique_ptr<TcpStoreClient> client,
                                   const std::string& run_id,
                                   std::unique_ptr<TcpStoreClient> side_client,
                                   const RoundAnnouncer* host, bool announced)
    : m_client(std::move(client)),
      m_key("torch.rendezvous." + run_id),
      m_side_client(std::move(side_client)),
      m_host(host),
      m_announced(announced) {
  m_client->compare_set(m_key, "", k_c10d_no_state);
  if (m_host || !m_side_client) return;
  m_side_client->watch_key(m_announced ? news_key(run_id) : m_key);
  m_watching = true;
  m_watch_thread = start_helper_thread([this] { watch_loop(); });
}

C10dStateBackend::~C10dStateBackend() {
  {
    std::lock_guard lock(m_watch_mutex);
    m_watch_stop = true;
  }
  if (m_watch_thread.joinable()) m_watch_thread.join();
}

/// Counts the key's change events until stopped; a lost watch connection ends the count
/// (waits become plain sleeps again, as in torch).
void C10dStateBackend::watch_loop() {
  try {
    while (true) {
      {
        std::lock_guard lock(m_watch_mutex);
        if (m_watch_stop) return;
      }
      if (!m_side_client->readable(std::chrono::milliseconds(200))) continue;
      m_side_client->next_event();
      std::lock_guard lock(m_watch_mutex);
      ++m_changes;
      m_watch_cv.notify_all();
    }
  } catch (const Error& e) {
    log_debug("rendezvous state watch ended: " + e.message());
  }
  std::lock_guard lock(m_watch_mutex);
  m_watching = false;
  m_watch_cv.notify_all();
}

std::uint64_t C10dStateBackend::changes_seen() {
  if (m_host) return m_host->writes();
  std::lock_guard lock(m_watch_mutex);
  return m_changes;
}

bool C10dStateBackend::wakes_on_every_write() { return m_host || !m_announced; }

void C10dStateBackend::wait_for_changes(std::uint64_t seen, std::uint64_t writes,
                                        std::chrono::milliseconds timeout) {
  if (m_host) return m_host->wait_for_writes(seen + writes, timeout);
  std::uint64_t until = seen + (m_announced ? 1 : writes);
  std::unique_lock lock(m_watch_mutex);
  if (!m_watching) {
    lock.unlock();
    std::this_thread::sleep_for(timeout);
    return;
  }
  m_watch_cv.wait_for(lock, timeout, [&] { return m_changes >= until || !m_watching; });
}

std::string C10dStateBackend::where() const {
  return "TCPStore " + m_client->endpoint() + " key " + m_key;
}

std::optional<StateBackend::Stored> C10dStateBackend::decode(const std::string& stored) const {
  if (stored == k_c10d_no_state) return std::nullopt;
  try {
    return Stored{b64decode(stored), stored};
  } catch (const Error& e) {
    throw Error(ErrorCode::Input, "rendezvous state is " + e.message() + " (" + where() + ")");
  }
}

std::optional<StateBackend::Stored> C10dStateBackend::get_state() {
  return decode(m_client->get_existing(m_key));  // written by the constructor
}

/// compare_set against the exact base64 last read; the reply is what the store holds now, and
/// the write won iff it decodes to our pickle (the store does not say).
std::optional<StateBackend::Stored> C10dStateBackend::set_state(
    const std::string& pickle, const std::optional<std::string>& token, bool& won) {
  std::string reply =
      m_client->compare_set(m_key, token.value_or(k_c10d_no_state), b64encode(pickle));
  std::optional<Stored> now = decode(reply);
  won = now && now->pickle == pickle;
  return now;
}

void TcpKeyValueStore::set(const std::string& key, const std::string& value) {
  m_client.set(key, value);
}

std::vector<std::string> TcpKeyValueStore::get(const std::vector<std::string>& keys) {
  return m_client.multi_get(keys);  // waits up to the round store's timeout
}

}  // namespace ejob::agent
