#include "src/agent/preemption/gce_preempted.hpp"

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// A long-poll's wait: a maintenance event is read between two, so it is seen within this.
constexpr int k_wait_s = 5;

std::string trimmed(std::string_view body) {
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r' || body.back() == ' '))
    body.remove_suffix(1);
  return std::string(body);
}

std::vector<std::pair<std::string, std::string>> flavor_header() {
  return {{"Metadata-Flavor", "Google"}};
}

}  // namespace

bool gce_preempted(std::string_view body) {
  std::string value = trimmed(body);
  if (value != "TRUE" && value != "FALSE")
    throw Error(ErrorCode::Input, "GCE instance/preempted: unexpected value: " + value);
  return value == "TRUE";
}

std::optional<std::string> gce_stopping_maintenance(std::string_view body) {
  std::string value = trimmed(body);
  if (value.rfind("TERMINATE_ON_HOST_MAINTENANCE", 0) == 0) return value;
  return std::nullopt;
}

std::string GceWatcher::describe() const { return "GCE instance/preempted"; }

Detection GceWatcher::detect() {
  MetadataRequest get{"GET", std::string(k_gce_preempted_path), flavor_header()};
  get.timeout_ms = k_detect_timeout_ms;
  MetadataReply reply = m_http.send(get);
  if (reply.end != MetadataEnd::Answered) return Detection::Unreachable;
  const std::string* flavor = reply.header("metadata-flavor");
  if (reply.status != 200 || flavor == nullptr || *flavor != "Google") return Detection::Absent;
  if (const std::string* etag = reply.header("etag")) m_etag = *etag;
  return Detection::Found;
}

/// Reads `preempted`; with `wait` (and an ETag), not before it changed or k_wait_s passed.
MetadataReply GceWatcher::read_preempted(bool wait) {
  MetadataRequest get{"GET", std::string(k_gce_preempted_path), flavor_header()};
  get.timeout_ms = k_request_timeout_ms;
  if (wait && !m_etag.empty()) {
    get.path +=
        "?wait_for_change=true&last_etag=" + m_etag + "&timeout_sec=" + std::to_string(k_wait_s);
    get.timeout_ms += k_wait_s * 1000;
  }
  MetadataReply reply = m_http.send(get);
  if (!reply.answered(200)) metadata_failure(m_http, "GET " + get.path, reply);
  const std::string* etag = reply.header("etag");
  m_etag = etag != nullptr ? *etag : "";
  return reply;
}

std::optional<PreemptionNotice> GceWatcher::poll() {
  if (gce_preempted(read_preempted(true).body))
    return PreemptionNotice{Cloud::Gce, "PREEMPTED", "",
                            std::chrono::system_clock::now() + k_gce_preempt_notice};
  return check_maintenance();
}

std::optional<PreemptionNotice> GceWatcher::check_maintenance() {
  MetadataRequest get{"GET", std::string(k_gce_maintenance_path), flavor_header()};
  get.timeout_ms = k_request_timeout_ms;
  MetadataReply reply = m_http.send(get);
  if (!reply.answered(200)) metadata_failure(m_http, "GET " + get.path, reply);
  std::optional<std::string> event = gce_stopping_maintenance(reply.body);
  if (!event) return std::nullopt;
  return PreemptionNotice{Cloud::Gce, *event, "",
                          std::chrono::system_clock::now() + k_gce_maintenance_notice};
}

}  // namespace ejob::agent
