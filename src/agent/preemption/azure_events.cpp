#include "src/agent/preemption/azure_events.hpp"

#include <nlohmann/json.hpp>

#include "src/agent/preemption/cloud_time.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using nlohmann::json;

/// The first call enables Scheduled Events for the VM and may take up to two minutes (Azure's
/// documentation); later ones answer at once.
constexpr long k_events_timeout_ms = 130000;

[[noreturn]] void bad_document(const std::string& why) {
  throw Error(ErrorCode::Input, "Azure Scheduled Events: " + why);
}

bool names_vm(const json& event, std::string_view vm_name) {
  auto resources = event.find("Resources");
  if (resources == event.end() || !resources->is_array()) return false;
  for (const auto& r : *resources)
    if (r.is_string() && r.get<std::string>() == vm_name) return true;
  return false;
}

/// The event as a notice when it ends this VM; nullopt otherwise.
std::optional<PreemptionNotice> notice_of(const json& event, std::string_view vm_name,
                                          SysTime now) {
  if (!event.is_object()) bad_document("an event is not an object");
  std::string type = event.value("EventType", "");
  if ((type != "Preempt" && type != "Terminate") || !names_vm(event, vm_name)) return std::nullopt;
  std::string not_before = event.value("NotBefore", "");
  std::optional<SysTime> deadline = not_before.empty() ? now : parse_http_date(not_before);
  if (!deadline) bad_document("NotBefore is not an HTTP date: " + not_before);
  return PreemptionNotice{Cloud::Azure, type, event.value("EventId", ""), *deadline};
}

std::vector<std::pair<std::string, std::string>> metadata_header() {
  return {{"Metadata", "true"}};
}

}  // namespace

std::optional<PreemptionNotice> azure_notice(std::string_view body, std::string_view vm_name,
                                             SysTime now) {
  json doc = json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) bad_document("not a JSON object");
  auto events = doc.find("Events");
  if (events == doc.end() || !events->is_array()) bad_document("no Events list");
  std::optional<PreemptionNotice> first;
  try {
    for (const auto& event : *events)
      if (auto n = notice_of(event, vm_name, now); n && (!first || n->deadline < first->deadline))
        first = n;
  } catch (const json::exception& e) {
    bad_document(e.what());
  }
  return first;
}

std::string azure_start_request(std::string_view event_id) {
  return json{{"StartRequests", json::array({json{{"EventId", event_id}}})}}.dump();
}

std::string AzureWatcher::describe() const { return "Azure Scheduled Events for VM " + m_vm_name; }

Detection AzureWatcher::detect() {
  MetadataRequest get{"GET", std::string(k_azure_name_path), metadata_header()};
  get.timeout_ms = k_detect_timeout_ms;
  MetadataReply reply = m_http.send(get);
  if (reply.end != MetadataEnd::Answered) return Detection::Unreachable;
  std::string name = reply.body;
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r')) name.pop_back();
  if (reply.status != 200 || name.empty()) return Detection::Absent;
  m_vm_name = name;
  return Detection::Found;
}

std::optional<PreemptionNotice> AzureWatcher::poll() {
  MetadataRequest get{"GET", std::string(k_azure_events_path), metadata_header()};
  get.timeout_ms = k_events_timeout_ms;
  MetadataReply reply = m_http.send(get);
  if (!reply.answered(200)) metadata_failure(m_http, "GET " + get.path, reply);
  return azure_notice(reply.body, m_vm_name, std::chrono::system_clock::now());
}

void AzureWatcher::acknowledge(const PreemptionNotice& notice) {
  MetadataRequest post{"POST", std::string(k_azure_events_path), metadata_header(),
                       azure_start_request(notice.event_id), "application/json"};
  MetadataReply reply = m_http.send(post);
  if (!reply.answered(200)) metadata_failure(m_http, "POST " + post.path, reply);
}

}  // namespace ejob::agent
