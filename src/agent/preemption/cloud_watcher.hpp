#pragma once
/// One cloud's way of announcing a preemption, behind one interface: a quick question that
/// only this cloud's metadata service answers (auto-detection), one look for a notice, and the
/// optional acknowledgement that lets the cloud go ahead. azure_events.hpp, aws_instance_action.hpp
/// and gce_preempted.hpp implement it.

#include <memory>
#include <optional>
#include <string>

#include "src/agent/preemption/metadata_http.hpp"
#include "src/agent/preemption/preemption_notice.hpp"

namespace ejob::agent {

/// How long a watcher's first read may take to tell whether its cloud is the one (a cloud's
/// metadata service answers in milliseconds; another address does not answer at all).
inline constexpr long k_detect_timeout_ms = 2000;
/// How long a watcher's later reads of its metadata service may take.
inline constexpr long k_request_timeout_ms = 5000;

/// What a detection found.
enum class Detection {
  Found,        ///< this cloud's metadata service answered as only it does
  Absent,       ///< a service answered, not this cloud's
  Unreachable,  ///< nothing answered (no connection, or no answer in time)
};

/// One cloud's notices. Used by one thread (NoticeWatcher's).
class CloudWatcher {
 public:
  virtual ~CloudWatcher() = default;
  [[nodiscard]] virtual Cloud cloud() const = 0;
  /// What is watched, for the log (e.g. `Azure Scheduled Events for VM aks-spot-1_3`).
  [[nodiscard]] virtual std::string describe() const = 0;
  /// Asks the question only this cloud answers, and keeps what later requests need (Azure's
  /// VM name, AWS's session token, GCE's ETag).
  virtual Detection detect() = 0;
  /// One look for a notice; GCE's waits for a change (at most a few seconds). Throws
  /// ejob::Error(Transport) when the service did not answer as documented (the message names
  /// the request and what came back), ejob::Error(Input) when its answer does not parse.
  virtual std::optional<PreemptionNotice> poll() = 0;
  /// Tells the cloud that this VM is ready to go (Azure's StartRequests); a no-op where the
  /// cloud has nothing of the kind. Throws as poll().
  virtual void acknowledge(const PreemptionNotice&) {}
};

/// The watcher of `cloud` over `http` (which must outlive it).
std::unique_ptr<CloudWatcher> make_cloud_watcher(Cloud cloud, MetadataHttp& http);

/// The Transport error a watcher throws for an answer it did not expect.
[[noreturn]] void metadata_failure(const MetadataHttp& http, const std::string& request,
                                   const MetadataReply& reply);

}  // namespace ejob::agent
