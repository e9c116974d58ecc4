#include "src/agent/rendezvous/round_watcher.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/rendezvous/rdzv_state.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

EtcdRoundWatcher::EtcdRoundWatcher(const EtcdClientOptions& options, std::string state_key,
                                   std::string version)
    : m_client(options), m_key(std::move(state_key)), m_version(std::move(version)) {
  m_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (m_fd < 0) throw Error(ErrorCode::Internal, "eventfd failed");
  m_thread = start_helper_thread([this] { run(); });
}

EtcdRoundWatcher::~EtcdRoundWatcher() {
  stop();
  ::close(m_fd);
}

void EtcdRoundWatcher::stop() {
  m_stop = true;
  m_client.cancel();
  if (m_thread.joinable()) m_thread.join();
}

bool EtcdRoundWatcher::needs_restart(const EtcdResult& r) const {
  if (r.is(etcd_error::key_not_found)) return true;
  if (!r.ok()) return false;
  try {
    RdzvState s = parse_rdzv_state(r.node.value);
    if (s.status == "closed") return false;
    if (s.version != m_version) return true;
    return s.status == "final" && s.num_workers_waiting.value_or(0) > 0;
  } catch (const Error& e) {
    log_warning("watching the rendezvous: " + e.message());
    return false;
  }
}

void EtcdRoundWatcher::run() {
  while (!m_stop) {
    try {
      EtcdResult cur = m_client.get(m_key);
      if (cur.outcome == EtcdOutcome::Cancelled) return;
      if (needs_restart(cur)) {
        log_info("rendezvous membership changed: " +
                 (cur.ok() ? cur.node.value : std::string("the round was destroyed")));
        std::uint64_t one = 1;
        ssize_t n = ::write(m_fd, &one, sizeof one);
        (void)n;
        return;
      }
      EtcdResult w = m_client.watch(m_key, cur.etcd_index + 1, false, 60000);
      if (w.outcome == EtcdOutcome::Cancelled) return;
    } catch (const Error& e) {
      log_warning("watching the rendezvous, will retry: " + e.message());
      for (int i = 0; i < 10 && !m_stop; ++i) ::usleep(100000);
    }
  }
}

}  // namespace ejob::agent
