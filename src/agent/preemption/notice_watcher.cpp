#include "src/agent/preemption/notice_watcher.hpp"

#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>

#include "src/agent/base/agent_signals.hpp"
#include "src/agent/base/log.hpp"
#include "src/agent/preemption/cloud_time.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// The order `auto` asks in. Each cloud's question is one request that the others answer with
/// an error at once, so the order only costs a few milliseconds on AWS and GCE.
constexpr Cloud k_detection_order[] = {Cloud::Azure, Cloud::Aws, Cloud::Gce};

}  // namespace

NoticeWatcher::NoticeWatcher(NoticeSettings settings, std::unique_ptr<MetadataHttp> http,
                             std::function<void()> on_notice)
    : m_settings(settings), m_http(std::move(http)), m_on_notice(std::move(on_notice)) {
  if (m_settings.source == NoticeSource::Off) return;
  m_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (m_fd < 0) throw Error(ErrorCode::Internal, "eventfd failed");
  m_thread = start_helper_thread([this] { run(); });
}

NoticeWatcher::~NoticeWatcher() {
  stop();
  if (m_fd >= 0) ::close(m_fd);
}

void NoticeWatcher::stop() {
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  m_wake.notify_all();
  if (m_http) m_http->cancel();
  if (m_thread.joinable()) m_thread.join();
}

std::optional<PreemptionNotice> NoticeWatcher::notice() const {
  std::lock_guard lock(m_mutex);
  return m_notice;
}

std::optional<Cloud> NoticeWatcher::cloud() const {
  std::lock_guard lock(m_mutex);
  return m_found;
}

bool NoticeWatcher::stopping() const {
  std::lock_guard lock(m_mutex);
  return m_stop;
}

/// Waits `how_long` unless stopped meanwhile; true when stopped.
bool NoticeWatcher::pause(std::chrono::milliseconds how_long) {
  std::unique_lock lock(m_mutex);
  return m_wake.wait_for(lock, how_long, [this] { return m_stop; });
}

void NoticeWatcher::run() {
  try {
    m_cloud = find_cloud();
    if (!m_cloud) return;
    {
      std::lock_guard lock(m_mutex);
      m_found = m_cloud->cloud();
    }
    log_info("spot notices: watching " + m_cloud->describe());
    watch(*m_cloud);
  } catch (const std::exception& e) {
    // The watch is a help, never a reason to stop training.
    log_warning(std::string("spot notices: the watch ended: ") + e.what());
  }
}

/// The named cloud (asked until it answers), or the one that answers `auto`'s question;
/// nullptr when none does or the watch was stopped.
std::unique_ptr<CloudWatcher> NoticeWatcher::find_cloud() {
  std::optional<Cloud> named = cloud_of(m_settings.source);
  if (!named) return detect_any();
  std::unique_ptr<CloudWatcher> cloud = make_cloud_watcher(*named, *m_http);
  auto wait = m_settings.poll_interval;
  for (;;) {
    if (cloud->detect() == Detection::Found) return cloud;
    if (stopping()) return nullptr;  // the request was cancelled: nothing to report
    report(std::string(cloud_name(*named)) + "'s metadata service does not answer at " +
           m_http->where());
    if (pause(wait)) return nullptr;
    wait = std::min(wait * 2, m_settings.max_backoff);
  }
}

/// `auto`: one question per cloud; a service that does not answer at all ends the search at
/// once (every cloud's service is at the same address), quietly.
std::unique_ptr<CloudWatcher> NoticeWatcher::detect_any() {
  for (Cloud c : k_detection_order) {
    std::unique_ptr<CloudWatcher> cloud = make_cloud_watcher(c, *m_http);
    Detection found = cloud->detect();
    if (found == Detection::Found) return cloud;
    if (found == Detection::Unreachable) break;
  }
  log_debug("spot notices: no cloud metadata service at " + m_http->where());
  return nullptr;
}

void NoticeWatcher::watch(CloudWatcher& cloud) {
  auto wait = m_settings.poll_interval;
  for (;;) {
    try {
      if (std::optional<PreemptionNotice> n = cloud.poll()) return deliver(*n);
      if (!m_last_failure.empty()) log_info("spot notices: the metadata service answers again");
      m_last_failure.clear();
      wait = m_settings.poll_interval;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Transport && e.code() != ErrorCode::Input) throw;
      if (stopping()) return;  // cancelled by stop(): not a failure of the service
      report(e.message());
      wait = std::min(wait * 2, m_settings.max_backoff);
    }
    if (pause(wait)) return;
  }
}

void NoticeWatcher::report(const std::string& failure) {
  if (failure == m_last_failure) return;
  m_last_failure = failure;
  log_warning("spot notices: " + failure + " (retrying; training goes on)");
}

void NoticeWatcher::deliver(const PreemptionNotice& notice) {
  {
    std::lock_guard lock(m_mutex);
    m_notice = notice;
  }
  log_info("spot notices: " + std::string(cloud_name(notice.cloud)) + " announces " + notice.event +
           (notice.event_id.empty() ? "" : " (event " + notice.event_id + ")") +
           ": this VM goes at " + format_rfc3339(notice.deadline));
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(m_fd, &one, sizeof one);
  if (m_on_notice) m_on_notice();
}

void NoticeWatcher::acknowledge() {
  if (!m_settings.acknowledge || !notice()) return;
  if (m_thread.joinable()) m_thread.join();  // it ends right after delivering the notice
  try {
    m_cloud->acknowledge(*m_notice);
    if (m_cloud->cloud() == Cloud::Azure)
      log_info("spot notices: acknowledged event " + m_notice->event_id);
  } catch (const Error& e) {
    log_warning("spot notices: acknowledging the notice failed: " + e.message());
  }
}

}  // namespace ejob::agent
