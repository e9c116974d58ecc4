#include "src/agent/preemption/gce_preempted.hpp"

#include <catch2/catch.hpp>
#include <thread>

#include "src/util/error.hpp"
#include "tests/agent/fake_metadata.hpp"

using namespace ejob::agent;

TEST_CASE("gce preempted: TRUE and FALSE, nothing else") {
  CHECK(gce_preempted("TRUE"));
  CHECK_FALSE(gce_preempted("FALSE"));
  CHECK_FALSE(gce_preempted("FALSE\n"));
  CHECK_THROWS_WITH(gce_preempted("true"), "GCE instance/preempted: unexpected value: true");
}

TEST_CASE("gce maintenance-event: only a terminating maintenance stops the VM") {
  CHECK(gce_stopping_maintenance("TERMINATE_ON_HOST_MAINTENANCE") ==
        std::optional<std::string>("TERMINATE_ON_HOST_MAINTENANCE"));
  CHECK_FALSE(gce_stopping_maintenance("NONE"));
  CHECK_FALSE(gce_stopping_maintenance("MIGRATE_ON_HOST_MAINTENANCE"));
}

TEST_CASE("gce watcher: the long-poll returns when preempted turns TRUE") {
  testing::FakeCloud fake("gce");
  auto http = fake.client();
  GceWatcher watcher(*http);
  REQUIRE(watcher.detect() == Detection::Found);
  std::optional<PreemptionNotice> n;
  std::thread poller([&] {
    while (!n) n = watcher.poll();
  });
  fake.command("notice");
  poller.join();
  CHECK(n->cloud == Cloud::Gce);
  CHECK(n->event == "PREEMPTED");
  std::string seen = fake.requests();
  CHECK(seen.find("wait_for_change=true&last_etag=") != std::string::npos);
  CHECK(seen.find(R"("Metadata-Flavor": "Google")") != std::string::npos);
}

TEST_CASE(
    "gce watcher: a terminating maintenance event is a notice too, and errors name the read") {
  testing::FakeCloud fake("gce");
  auto http = fake.client();
  GceWatcher watcher(*http);
  REQUIRE(watcher.detect() == Detection::Found);
  fake.command("fail 503");
  // The fake's ETag of FALSE: the long-poll waits for another value.
  CHECK_THROWS_WITH(watcher.poll(),
                    "GET /computeMetadata/v1/instance/preempted?wait_for_change=true&last_etag="
                    "0ed2d7b5cdb77627&timeout_sec=5 at " +
                        fake.url() + ": HTTP 503 (Service Unavailable)");
  fake.command("maintenance TERMINATE_ON_HOST_MAINTENANCE");
  auto n = watcher.poll();
  REQUIRE(n);
  CHECK(n->event == "TERMINATE_ON_HOST_MAINTENANCE");
}

TEST_CASE("gce watcher: AWS's service is not GCE's") {
  testing::FakeCloud aws("aws");
  auto http = aws.client();
  CHECK(GceWatcher(*http).detect() == Detection::Absent);
}
