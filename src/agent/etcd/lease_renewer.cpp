#include "src/agent/etcd/lease_renewer.hpp"

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/base/log.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

LeaseRenewer::LeaseRenewer(const EtcdClientOptions& options, std::string key, int ttl_s)
    : m_client(options), m_key(std::move(key)), m_ttl_s(ttl_s) {
  m_thread = start_helper_thread([this] { run(); });
}

LeaseRenewer::~LeaseRenewer() { stop(); }

void LeaseRenewer::stop() {
  {
    std::lock_guard<std::mutex> lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  m_client.cancel();
  if (m_thread.joinable()) m_thread.join();
}

void LeaseRenewer::run() {
  EtcdWrite refresh;
  refresh.ttl = m_ttl_s;
  refresh.refresh = true;
  refresh.prev_exist = true;
  auto period = std::chrono::milliseconds(m_ttl_s * 500);
  while (true) {
    {
      std::unique_lock<std::mutex> lock(m_mutex);
      if (m_wake.wait_for(lock, period, [this] { return m_stop; })) return;
    }
    try {
      EtcdResult r = m_client.write(m_key, refresh);
      if (r.is(etcd_error::key_not_found)) {
        log_debug("lease on " + m_key + " ended: the key is gone");
        return;
      }
    } catch (const Error& e) {
      log_warning("could not refresh " + m_key + ", will retry: " + e.message());
    }
  }
}

}  // namespace ejob::agent
