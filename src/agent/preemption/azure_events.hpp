#pragma once
/// Azure's Scheduled Events (the Instance Metadata Service's `/metadata/scheduledevents`,
/// api-version 2020-07-01, header `Metadata: true`): a document listing the platform's coming
/// events, each with an EventId, an EventType (`Preempt` for a Spot VM's eviction, ≥ 30 s
/// ahead; `Terminate` for a deletion), the VMs it concerns (`Resources`, by compute name),
/// an EventStatus and `NotBefore`, the HTTP date before which it will not start (empty once
/// started). A POST of `{"StartRequests":[{"EventId":…}]}` acknowledges an event: the
/// platform may then start it at once.

#include <optional>
#include <string>
#include <string_view>

#include "src/agent/preemption/cloud_watcher.hpp"

namespace ejob::agent {

/// The events document.
inline constexpr std::string_view k_azure_events_path =
    "/metadata/scheduledevents?api-version=2020-07-01";
/// This VM's compute name, as the events' Resources name it.
inline constexpr std::string_view k_azure_name_path =
    "/metadata/instance/compute/name?api-version=2021-02-01&format=text";

/// The earliest `Preempt` or `Terminate` event naming `vm_name` in `body`, its deadline
/// NotBefore (`now` when empty: the event has started); nullopt when none. Throws
/// ejob::Error(Input) when `body` is not an events document or a NotBefore is not a date.
std::optional<PreemptionNotice> azure_notice(std::string_view body, std::string_view vm_name,
                                             SysTime now);

/// The acknowledgement of one event: `{"StartRequests": [{"EventId": "<id>"}]}`.
std::string azure_start_request(std::string_view event_id);

/// CloudWatcher over Scheduled Events.
class AzureWatcher : public CloudWatcher {
 public:
  explicit AzureWatcher(MetadataHttp& http) : m_http(http) {}
  [[nodiscard]] Cloud cloud() const override { return Cloud::Azure; }
  [[nodiscard]] std::string describe() const override;
  Detection detect() override;
  std::optional<PreemptionNotice> poll() override;
  void acknowledge(const PreemptionNotice& notice) override;

 private:
  MetadataHttp& m_http;
  std::string m_vm_name;
};

}  // namespace ejob::agent
