#include "src/agent/preemption/notice_watcher.hpp"

#include <poll.h>

#include <catch2/catch.hpp>
#include <map>

#include "src/agent/preemption/azure_events.hpp"
#include "tests/agent/fake_metadata.hpp"

using namespace ejob::agent;

namespace {

/// A metadata service in memory: answers by path (the query included), records every request.
class ScriptedMetadata : public MetadataHttp {
 public:
  std::map<std::string, MetadataReply> answers;  ///< others: 404, or Unreachable if `silent`
  bool silent = false;
  std::vector<std::string> seen;

  MetadataReply send(const MetadataRequest& request) override {
    seen.push_back(request.method + " " + request.path);
    if (auto it = answers.find(request.path); it != answers.end()) return it->second;
    MetadataReply reply;
    reply.end = silent ? MetadataEnd::Unreachable : MetadataEnd::Answered;
    reply.status = 404;
    reply.why = "cannot connect to 169.254.169.254 port 80: Network is unreachable";
    return reply;
  }
  void cancel() override {}
  [[nodiscard]] std::string where() const override { return "http://169.254.169.254:80"; }
};

bool readable(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, timeout_ms) == 1;
}

NoticeSettings fast(NoticeSource source) {
  NoticeSettings s;
  s.source = source;
  s.poll_interval = std::chrono::milliseconds(20);
  s.max_backoff = std::chrono::milliseconds(40);
  return s;
}

}  // namespace

TEST_CASE("notice watcher: off starts nothing") {
  NoticeWatcher watcher(fast(NoticeSource::Off), nullptr);
  CHECK(watcher.fd() == -1);
  CHECK_FALSE(watcher.notice());
}

TEST_CASE("notice watcher: auto asks once where nothing answers, and stays quiet") {
  auto http = std::make_unique<ScriptedMetadata>();
  http->silent = true;
  ScriptedMetadata& service = *http;
  NoticeWatcher watcher(fast(NoticeSource::Auto), std::move(http));
  CHECK_FALSE(readable(watcher.fd(), 200));
  watcher.stop();
  CHECK(service.seen == std::vector<std::string>{"GET " + std::string(k_azure_name_path)});
  CHECK_FALSE(watcher.cloud());
}

TEST_CASE("notice watcher: auto asks each cloud in turn where a service answers others") {
  auto http = std::make_unique<ScriptedMetadata>();
  ScriptedMetadata& service = *http;
  NoticeWatcher watcher(fast(NoticeSource::Auto), std::move(http));
  CHECK_FALSE(readable(watcher.fd(), 200));
  watcher.stop();
  REQUIRE(service.seen.size() == 4);  // Azure's name, AWS's token and IMDSv1 read, GCE's flag
  CHECK(service.seen[1] == "PUT /latest/api/token");
  CHECK(service.seen[3] == "GET /computeMetadata/v1/instance/preempted");
}

TEST_CASE("notice watcher: auto finds the cloud and a notice makes fd() readable") {
  testing::FakeCloud fake("aws");
  int called = 0;
  NoticeWatcher watcher(fast(NoticeSource::Auto), fake.client(), [&] { ++called; });
  fake.command("fail 500 3");  // failures are retried
  fake.command("notice 120");
  REQUIRE(readable(watcher.fd(), 20000));
  REQUIRE(watcher.notice());
  CHECK(watcher.notice()->event == "terminate");
  CHECK(watcher.cloud() == Cloud::Aws);
  watcher.stop();
  CHECK(called == 1);
}

TEST_CASE("notice watcher: a named cloud is asked until it answers, until stopped") {
  auto http = std::make_unique<ScriptedMetadata>();
  http->silent = true;
  ScriptedMetadata& service = *http;
  NoticeWatcher watcher(fast(NoticeSource::Gce), std::move(http));
  CHECK_FALSE(readable(watcher.fd(), 300));
  watcher.stop();
  CHECK(service.seen.size() > 2);
  CHECK_FALSE(watcher.notice());
}

TEST_CASE("notice watcher: acknowledges Azure's event when asked to") {
  testing::FakeCloud fake("azure");
  NoticeSettings settings = fast(NoticeSource::Azure);
  settings.acknowledge = true;
  NoticeWatcher watcher(settings, fake.client());
  fake.command("notice 30");
  REQUIRE(readable(watcher.fd(), 20000));
  watcher.acknowledge();
  CHECK(fake.requests().find(R"("POST", "/metadata/scheduledevents)") != std::string::npos);
}
