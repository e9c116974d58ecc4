#include "src/agent/preemption/azure_events.hpp"

#include <catch2/catch.hpp>

#include "src/agent/preemption/cloud_time.hpp"
#include "src/util/error.hpp"
#include "tests/agent/fake_metadata.hpp"

using namespace ejob::agent;
using ejob::Error;

namespace {

const SysTime k_now = *parse_rfc3339("2026-11-28T10:00:00Z");

/// The documented example's shape: one event per entry.
std::string events(const std::string& entries) {
  return R"({"DocumentIncarnation": 2, "Events": [)" + entries + "]}";
}

std::string event(const std::string& id, const std::string& type, const std::string& vm,
                  const std::string& not_before) {
  return R"({"EventId": ")" + id + R"(", "EventType": ")" + type +
         R"(", "ResourceType": "VirtualMachine", "Resources": [")" + vm +
         R"("], "EventStatus": "Scheduled", "NotBefore": ")" + not_before +
         R"(", "Description": "", "EventSource": "Platform", "DurationInSeconds": -1})";
}

}  // namespace

TEST_CASE("azure events: a Preempt naming this VM is a notice with NotBefore as deadline") {
  auto n = azure_notice(events(event("A1", "Preempt", "vm_3", "Sat, 28 Nov 2026 10:00:30 GMT")),
                        "vm_3", k_now);
  REQUIRE(n);
  CHECK(n->cloud == Cloud::Azure);
  CHECK(n->event == "Preempt");
  CHECK(n->event_id == "A1");
  CHECK(format_rfc3339(n->deadline) == "2026-11-28T10:00:30Z");
}

TEST_CASE("azure events: other VMs' events, other event types and no events are no notice") {
  CHECK_FALSE(azure_notice(events(""), "vm_3", k_now));
  CHECK_FALSE(azure_notice(R"({"DocumentIncarnation": 0, "Events": []})", "vm_3", k_now));
  CHECK_FALSE(
      azure_notice(events(event("A", "Preempt", "vm_4", "Sat, 28 Nov 2026 10:00:30 GMT") + "," +
                          event("B", "Reboot", "vm_3", "Sat, 28 Nov 2026 10:10:00 GMT") + "," +
                          event("C", "Freeze", "vm_3", "Sat, 28 Nov 2026 10:10:00 GMT")),
                   "vm_3", k_now));
}

TEST_CASE("azure events: the earliest of several, and a started event's empty NotBefore is now") {
  auto n =
      azure_notice(events(event("T", "Terminate", "vm_3", "Sat, 28 Nov 2026 10:15:00 GMT") + "," +
                          event("P", "Preempt", "vm_3", "Sat, 28 Nov 2026 10:00:30 GMT")),
                   "vm_3", k_now);
  REQUIRE(n);
  CHECK(n->event_id == "P");
  auto started = azure_notice(events(event("S", "Terminate", "vm_3", "")), "vm_3", k_now);
  REQUIRE(started);
  CHECK(started->deadline == k_now);
}

TEST_CASE("azure events: an answer that is not the documented document is refused") {
  CHECK_THROWS_WITH(azure_notice("<html>", "vm", k_now),
                    "Azure Scheduled Events: not a JSON object");
  CHECK_THROWS_WITH(azure_notice(R"({"DocumentIncarnation": 1})", "vm", k_now),
                    "Azure Scheduled Events: no Events list");
  CHECK_THROWS_WITH(azure_notice(events(event("X", "Preempt", "vm", "tomorrow")), "vm", k_now),
                    "Azure Scheduled Events: NotBefore is not an HTTP date: tomorrow");
}

TEST_CASE("azure events: the acknowledgement names the event") {
  CHECK(azure_start_request("A1") == R"({"StartRequests":[{"EventId":"A1"}]})");
}

TEST_CASE("azure watcher: finds the VM, sees its Preempt event and acknowledges it") {
  testing::FakeCloud fake("azure");
  auto http = fake.client();
  AzureWatcher watcher(*http);
  REQUIRE(watcher.detect() == Detection::Found);
  CHECK(watcher.describe() == "Azure Scheduled Events for VM ejob-spot-vmss_3");
  CHECK_FALSE(watcher.poll());
  fake.command("other-vm");
  CHECK_FALSE(watcher.poll());
  fake.command("notice 30");
  auto n = watcher.poll();
  REQUIRE(n);
  CHECK(n->event_id == "preempt-1");
  watcher.acknowledge(*n);
  std::string seen = fake.requests();
  CHECK(seen.find(R"("POST", "/metadata/scheduledevents?api-version=2020-07-01")") !=
        std::string::npos);
  CHECK(seen.find(R"("Metadata": "true")") != std::string::npos);
}

TEST_CASE("azure watcher: an error answer is a transport failure naming the request") {
  testing::FakeCloud fake("azure");
  auto http = fake.client();
  AzureWatcher watcher(*http);
  REQUIRE(watcher.detect() == Detection::Found);
  fake.command("fail 429");
  CHECK_THROWS_WITH(watcher.poll(), "GET /metadata/scheduledevents?api-version=2020-07-01 at " +
                                        fake.url() +
                                        ": HTTP 429 ({\"error\": \"Too many requests\"})");
  CHECK_FALSE(watcher.poll());
}

TEST_CASE("azure watcher: other clouds' services are absent, no service is unreachable") {
  testing::FakeCloud gce("gce");
  auto http = gce.client();
  CHECK(AzureWatcher(*http).detect() == Detection::Absent);
  HttpMetadata nobody(*parse_metadata_url("http://127.0.0.1:1"), 500);
  CHECK(AzureWatcher(nobody).detect() == Detection::Unreachable);
}

TEST_CASE("azure watcher: a slow service fails detection, but a slow events answer is waited for") {
  testing::FakeCloud fake("azure");
  auto http = fake.client();
  AzureWatcher watcher(*http);
  fake.command("slow 2.5");  // the first events request may take minutes on a real VM
  CHECK(watcher.detect() == Detection::Unreachable);  // detection gives up after 2 s
  fake.command("slow 0");
  REQUIRE(watcher.detect() == Detection::Found);
  fake.command("notice 30");
  fake.command("slow 2.5");
  CHECK(watcher.poll());
}
