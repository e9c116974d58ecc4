#pragma once
/// The agent's watch for a preemption notice: a helper thread that finds the cloud (or takes
/// the one --spot-notices names), then asks its metadata service for a notice every
/// poll_interval (GCE: a long-poll) until one comes, and then makes fd() readable. Off a cloud
/// `auto` gives up after one quick question, silently, without delaying anything; the watch's
/// own failures are logged (once each) and retried, never passed on: training goes on.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "src/agent/preemption/cloud_watcher.hpp"

namespace ejob::agent {

/// What --spot-notices and its companions say.
struct NoticeSettings {
  NoticeSource source = NoticeSource::Auto;
  /// Between two looks where the cloud must be polled (Azure, AWS): a notice reaches the
  /// workers within this plus one request. Azure's IMDS allows 5 requests a second per VM.
  std::chrono::milliseconds poll_interval{500};
  /// The longest pause after failures (the pause doubles from poll_interval).
  std::chrono::milliseconds max_backoff{10000};
  bool acknowledge = false;  ///< --spot-ack: tell Azure the VM may go once the agent left
};

/// The watch. Not copyable; stops (cancelling a request in flight) on destruction.
class NoticeWatcher {
 public:
  /// Starts watching over `http` unless the source is Off. `on_notice` runs in the watch's
  /// thread right after fd() became readable.
  NoticeWatcher(NoticeSettings settings, std::unique_ptr<MetadataHttp> http,
                std::function<void()> on_notice = {});
  ~NoticeWatcher();
  NoticeWatcher(const NoticeWatcher&) = delete;
  NoticeWatcher& operator=(const NoticeWatcher&) = delete;

  /// An eventfd, readable once a notice came; -1 when the source is Off.
  [[nodiscard]] int fd() const { return m_fd; }
  /// The notice, once one came.
  [[nodiscard]] std::optional<PreemptionNotice> notice() const;
  /// The cloud found (or named), once known.
  [[nodiscard]] std::optional<Cloud> cloud() const;
  /// With settings.acknowledge, tells the cloud that the VM may go (Azure: StartRequests for
  /// the notice's event); logs a failure. Call after the notice, in the agent's thread.
  void acknowledge();
  /// Ends the watch: cancels a request in flight and joins the thread.
  void stop();

 private:
  void run();
  std::unique_ptr<CloudWatcher> find_cloud();
  std::unique_ptr<CloudWatcher> detect_any();
  void watch(CloudWatcher& cloud);
  void deliver(const PreemptionNotice& notice);
  void report(const std::string& failure);
  bool pause(std::chrono::milliseconds how_long);
  [[nodiscard]] bool stopping() const;

  NoticeSettings m_settings;
  std::unique_ptr<MetadataHttp> m_http;
  std::function<void()> m_on_notice;
  std::unique_ptr<CloudWatcher> m_cloud;  ///< set by the thread before it watches
  int m_fd = -1;
  mutable std::mutex m_mutex;
  std::condition_variable m_wake;
  bool m_stop = false;
  std::optional<PreemptionNotice> m_notice;
  std::optional<Cloud> m_found;
  std::string m_last_failure;  ///< the thread's; a failure is logged when it differs
  std::thread m_thread;
};

}  // namespace ejob::agent
