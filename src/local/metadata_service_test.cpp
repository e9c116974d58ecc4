#include "src/local/metadata_service.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <thread>

namespace ejob::local {
namespace {

/// The service served by a thread of its own, as the supervisor's loop serves it.
class Served {
 public:
  explicit Served(Cloud cloud) : service(cloud) {
    m_thread = std::thread([this] {
      while (!m_stop) {
        std::vector<pollfd> fds;
        {
          std::lock_guard lock(mutex);
          fds = service.fds();
        }
        ::poll(fds.data(), fds.size(), 20);
        std::lock_guard lock(mutex);
        service.serve(fds);
      }
    });
  }
  ~Served() {
    m_stop = true;
    m_thread.join();
  }
  void publish(int index, int seconds) {
    std::lock_guard lock(mutex);
    service.publish(index, std::chrono::system_clock::now() + std::chrono::seconds(seconds));
  }

  MetadataService service;
  std::mutex mutex;

 private:
  std::atomic<bool> m_stop{false};
  std::thread m_thread;
};

struct Reply {
  int status = 0;
  std::string head;
  std::string body;
};

/// One request to `url` + `path` over a fresh connection, the whole answer read.
Reply request(const std::string& url, const std::string& method, const std::string& path,
              const std::string& headers = "", const std::string& body = "") {
  const size_t colon = url.find(':', 7), slash = url.find('/', colon);
  const int port = std::stoi(url.substr(colon + 1, slash - colon - 1));
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  const std::string out = method + " " + url.substr(slash) + path + " HTTP/1.1\r\nHost: x\r\n" +
                          headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" +
                          body;
  REQUIRE(::send(fd, out.data(), out.size(), 0) == static_cast<ssize_t>(out.size()));
  std::string in;
  char buffer[4096];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) in.append(buffer, n);
  ::close(fd);
  Reply r;
  r.status = std::atoi(in.c_str() + in.find(' ') + 1);
  r.head = in.substr(0, in.find("\r\n\r\n"));
  r.body = in.substr(in.find("\r\n\r\n") + 4);
  return r;
}

const std::string k_events = "/metadata/scheduledevents?api-version=2020-07-01";

}  // namespace

TEST_CASE("metadata service: Azure Scheduled Events for each node's VM") {
  Served s(Cloud::Azure);
  const std::string url = s.service.url_for(1);
  CHECK(request(url, "GET", k_events).status == 400);  // no Metadata: true
  const Reply name =
      request(url, "GET", "/metadata/instance/compute/name?api-version=2021-02-01&format=text",
              "Metadata: true\r\n");
  CHECK(name.status == 200);
  CHECK(name.body == "ejob-local-worker-1");
  auto before = nlohmann::json::parse(request(url, "GET", k_events, "Metadata: true\r\n").body);
  CHECK(before["Events"].empty());

  s.publish(1, 30);
  auto doc = nlohmann::json::parse(request(url, "GET", k_events, "Metadata: true\r\n").body);
  CHECK(doc["DocumentIncarnation"].get<int>() > before["DocumentIncarnation"].get<int>());
  REQUIRE(doc["Events"].size() == 1);
  const auto& event = doc["Events"][0];
  CHECK(event["EventType"] == "Preempt");
  CHECK(event["Resources"] == nlohmann::json::array({"ejob-local-worker-1"}));
  CHECK(event["EventStatus"] == "Scheduled");
  CHECK(event["NotBefore"].get<std::string>().ends_with(" GMT"));
  // Another node's VM has no notice.
  auto other = nlohmann::json::parse(
      request(s.service.url_for(0), "GET", k_events, "Metadata: true\r\n").body);
  CHECK(other["Events"].empty());

  const std::string ack =
      R"({"StartRequests":[{"EventId":")" + event["EventId"].get<std::string>() + R"("}]})";
  CHECK(request(url, "POST", k_events, "Metadata: true\r\n", ack).status == 200);
  CHECK(s.service.acknowledged(1));
  auto started = nlohmann::json::parse(request(url, "GET", k_events, "Metadata: true\r\n").body);
  CHECK(started["Events"][0]["EventStatus"] == "Started");
  CHECK(started["Events"][0]["NotBefore"] == "");
  CHECK(request(url, "POST", k_events, "Metadata: true\r\n", "{}").status == 400);
}

TEST_CASE("metadata service: AWS IMDSv2 spot instance-action") {
  Served s(Cloud::Aws);
  const std::string url = s.service.url_for(2);
  const std::string action = "/latest/meta-data/spot/instance-action";
  CHECK(request(url, "GET", action).status == 401);
  CHECK(request(url, "PUT", "/latest/api/token").status == 400);  // no TTL
  const Reply token =
      request(url, "PUT", "/latest/api/token", "X-aws-ec2-metadata-token-ttl-seconds: 21600\r\n");
  REQUIRE(token.status == 200);
  const std::string with_token = "X-aws-ec2-metadata-token: " + token.body + "\r\n";
  CHECK(request(url, "GET", action, with_token).status == 404);
  CHECK(request(url, "GET", "/latest/meta-data/instance-id", with_token).body.starts_with("i-"));
  s.publish(2, 120);
  const Reply notice = request(url, "GET", action, with_token);
  REQUIRE(notice.status == 200);
  auto doc = nlohmann::json::parse(notice.body);
  CHECK(doc["action"] == "terminate");
  CHECK(doc["time"].get<std::string>().ends_with("Z"));
  CHECK(request(url, "GET", action, "X-aws-ec2-metadata-token: forged\r\n").status == 401);
  // Azure's paths are not served by AWS's service: detection tells the clouds apart.
  CHECK(request(url, "GET", k_events, "Metadata: true\r\n").status == 401);
}

TEST_CASE("metadata service: GCE instance/preempted with ETags and wait_for_change") {
  Served s(Cloud::Gce);
  const std::string url = s.service.url_for(0);
  const std::string path = "/computeMetadata/v1/instance/preempted";
  const std::string flavor = "Metadata-Flavor: Google\r\n";
  CHECK(request(url, "GET", path).status == 403);
  const Reply now = request(url, "GET", path, flavor);
  CHECK(now.status == 200);
  CHECK(now.body == "FALSE");
  CHECK(now.head.find("Metadata-Flavor: Google") != std::string::npos);
  const size_t at = now.head.find("ETag: ");
  REQUIRE(at != std::string::npos);
  const std::string etag = now.head.substr(at + 6, now.head.find("\r\n", at) - at - 6);

  // A long-poll with the current ETag waits for the change, then answers TRUE at once.
  std::thread notifier([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    s.publish(0, 30);
  });
  const Reply changed = request(
      url, "GET", path + "?wait_for_change=true&last_etag=" + etag + "&timeout_sec=20", flavor);
  notifier.join();
  CHECK(changed.body == "TRUE");
  CHECK(changed.head.find("ETag: " + etag + "\r\n") == std::string::npos);
  // Unchanged until timeout_sec: the same value and ETag again, after the wait.
  const size_t at2 = changed.head.find("ETag: ");
  REQUIRE(at2 != std::string::npos);
  const std::string etag2 = changed.head.substr(at2 + 6, changed.head.find("\r\n", at2) - at2 - 6);
  const Reply same = request(
      url, "GET", path + "?wait_for_change=true&last_etag=" + etag2 + "&timeout_sec=1", flavor);
  CHECK(same.body == "TRUE");
  CHECK(same.head.find("ETag: " + etag2) != std::string::npos);
  CHECK(request(url, "GET", "/computeMetadata/v1/instance/maintenance-event", flavor).body ==
        "NONE");
}

TEST_CASE("metadata service: a path outside a node's prefix is not found") {
  Served s(Cloud::Azure);
  std::string url = s.service.url_for(0);
  url = url.substr(0, url.rfind('/')) + "/nobody";
  CHECK(request(url, "GET", k_events, "Metadata: true\r\n").status == 404);
  CHECK(cloud_named("gce") == Cloud::Gce);
  CHECK(!cloud_named("gke"));
  CHECK(cloud_notice_period(Cloud::Aws) == std::chrono::seconds(120));
}

}  // namespace ejob::local
