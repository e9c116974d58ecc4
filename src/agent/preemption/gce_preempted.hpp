#pragma once
/// GCE's preemption notice through its metadata server (header `Metadata-Flavor: Google`,
/// which every answer carries back): `/computeMetadata/v1/instance/preempted` is `FALSE` until
/// the Spot or preemptible VM is preempted, then `TRUE`; the VM gets an ACPI soft-off at the
/// same moment and is stopped about 30 s later. A read with `wait_for_change=true&last_etag=E`
/// returns as soon as the value differs from the one ETag E named (`timeout_sec` bounds the
/// wait), so a change is never missed between reads. `instance/maintenance-event` turns
/// `TERMINATE_ON_HOST_MAINTENANCE` before a host maintenance that stops the VM (VMs that cannot
/// migrate, e.g. with GPUs), about 60 s ahead; `NONE` and `MIGRATE_ON_HOST_MAINTENANCE` stop
/// nothing.

#include <optional>
#include <string>
#include <string_view>

#include "src/agent/preemption/cloud_watcher.hpp"

namespace ejob::agent {

inline constexpr std::string_view k_gce_preempted_path = "/computeMetadata/v1/instance/preempted";
inline constexpr std::string_view k_gce_maintenance_path =
    "/computeMetadata/v1/instance/maintenance-event";

/// How long after the notice GCE stops the VM (its documentation's 30 s; 60 s for maintenance).
inline constexpr std::chrono::seconds k_gce_preempt_notice{30};
inline constexpr std::chrono::seconds k_gce_maintenance_notice{60};

/// Whether a `preempted` value says TRUE. Throws ejob::Error(Input) for a value other than
/// TRUE or FALSE.
bool gce_preempted(std::string_view body);

/// The maintenance event that stops this VM (`TERMINATE_ON_HOST_MAINTENANCE`), else nullopt.
std::optional<std::string> gce_stopping_maintenance(std::string_view body);

/// CloudWatcher over the metadata server's long-poll.
class GceWatcher : public CloudWatcher {
 public:
  explicit GceWatcher(MetadataHttp& http) : m_http(http) {}
  [[nodiscard]] Cloud cloud() const override { return Cloud::Gce; }
  [[nodiscard]] std::string describe() const override;
  Detection detect() override;
  std::optional<PreemptionNotice> poll() override;

 private:
  MetadataReply read_preempted(bool wait);
  std::optional<PreemptionNotice> check_maintenance();

  MetadataHttp& m_http;
  std::string m_etag;
};

}  // namespace ejob::agent
