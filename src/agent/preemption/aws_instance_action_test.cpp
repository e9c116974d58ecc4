#include "src/agent/preemption/aws_instance_action.hpp"

#include <catch2/catch.hpp>

#include "src/agent/preemption/cloud_time.hpp"
#include "src/util/error.hpp"
#include "tests/agent/fake_metadata.hpp"

using namespace ejob::agent;

TEST_CASE("aws instance-action: the action and its time") {
  PreemptionNotice n = aws_notice(R"({"action": "terminate", "time": "2017-09-18T08:22:00Z"})");
  CHECK(n.cloud == Cloud::Aws);
  CHECK(n.event == "terminate");
  CHECK(format_rfc3339(n.deadline) == "2017-09-18T08:22:00Z");
  CHECK(aws_notice(R"({"action": "stop", "time": "2017-09-18T08:22:00Z"})").event == "stop");
}

TEST_CASE("aws instance-action: what is not the documented document is refused") {
  CHECK_THROWS_WITH(aws_notice("{}"), "AWS spot instance-action: unexpected answer: {}");
  CHECK_THROWS_WITH(
      aws_notice(R"({"action": "terminate", "time": "soon"})"),
      R"(AWS spot instance-action: unexpected answer: {"action": "terminate", "time": "soon"})");
  CHECK_THROWS(aws_notice("<?xml version=\"1.0\"?>"));
}

TEST_CASE("aws rebalance recommendation: its noticeTime") {
  CHECK(format_rfc3339(aws_rebalance_time(R"({"noticeTime": "2020-11-05T08:22:00Z"})")) ==
        "2020-11-05T08:22:00Z");
  CHECK_THROWS(aws_rebalance_time(R"({"time": "2020-11-05T08:22:00Z"})"));
}

TEST_CASE("aws watcher: IMDSv2 token, 404 until the notice, then the notice") {
  testing::FakeCloud fake("aws");
  auto http = fake.client();
  AwsWatcher watcher(*http);
  REQUIRE(watcher.detect() == Detection::Found);
  CHECK(watcher.describe() == "AWS spot instance-action (IMDSv2)");
  CHECK_FALSE(watcher.poll());
  fake.command("rebalance");
  CHECK_FALSE(watcher.poll());  // logged, not a notice
  fake.command("notice 120");
  auto n = watcher.poll();
  REQUIRE(n);
  CHECK(n->event == "terminate");
  std::string seen = fake.requests();
  CHECK(seen.find(R"("X-aws-ec2-metadata-token-ttl-seconds": "21600")") != std::string::npos);
  CHECK(seen.find(R"("X-aws-ec2-metadata-token": "AQAEA)") != std::string::npos);
}

TEST_CASE("aws watcher: an expired token is renewed at the next poll") {
  testing::FakeCloud fake("aws");
  auto http = fake.client();
  AwsWatcher watcher(*http);
  REQUIRE(watcher.detect() == Detection::Found);
  fake.command("expire-tokens");
  CHECK_THROWS_WITH(watcher.poll(),
                    "GET /latest/meta-data/spot/instance-action at " + fake.url() + ": HTTP 401");
  CHECK_FALSE(watcher.poll());
  fake.command("fail 503");
  CHECK_THROWS_WITH(watcher.poll(),
                    "GET /latest/meta-data/spot/instance-action at " + fake.url() + ": HTTP 503");
}

TEST_CASE("aws watcher: Azure's service is not AWS's") {
  testing::FakeCloud azure("azure");
  auto http = azure.client();
  CHECK(AwsWatcher(*http).detect() == Detection::Absent);
}
