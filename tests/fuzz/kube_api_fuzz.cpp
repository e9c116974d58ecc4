// The API client's reading of the API server's answers (src/kubeapi/client.cpp,
// client_stream.cpp, api_error.cpp): discovery documents, lists and their pages, objects, watch
// event streams, log streams and Status bodies of errors. A loopback HTTP server answers the
// first request of each input with the input (the first byte picks the operation, the second
// the status, the rest is the body) and every later request (a next page, a renewed watch, a
// re-list after 410) with 403, so that each input ends. An answer the client cannot use must
// be an ejob::Error, never another exception or a crash.
#include <sys/socket.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "src/kubeapi/api_error.hpp"
#include "src/kubeapi/client.hpp"
#include "src/kubeapi/transport.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "tests/fuzz/loopback.hpp"

namespace {

namespace kubeapi = ejob::kubeapi;
using kubeapi::Json;

constexpr std::string_view k_forbidden =
    "HTTP/1.1 403 Forbidden\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
    "Connection: close\r\n\r\n{}";

/// The answers of the loopback server: the input's answer once, then 403s.
struct Answers {
  std::mutex mutex;
  std::string first;
  bool used = false;

  std::string next() {
    std::lock_guard lock(mutex);
    if (used) return std::string(k_forbidden);
    used = true;
    return first;
  }
};

Answers& answers() {
  static Answers a;
  return a;
}

/// Reads one request (head and Content-Length body) so that the client is not cut off early.
void read_request(int fd) {
  std::string in;
  char buf[4096];
  std::size_t head_end;
  while ((head_end = in.find("\r\n\r\n")) == std::string::npos) {
    ejob::fuzz::wait_readable(fd, "the API client's request");
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    in.append(buf, static_cast<std::size_t>(n));
  }
  std::size_t length = 0;
  if (auto at = in.find("Content-Length: "); at != std::string::npos && at < head_end)
    length = std::stoul(in.substr(at + 16));
  while (in.size() < head_end + 4 + length) {
    ejob::fuzz::wait_readable(fd, "the API client's request body");
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) return;
    in.append(buf, static_cast<std::size_t>(n));
  }
}

void serve(int listener) {
  while (true) {
    int fd = ::accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    read_request(fd);
    ejob::fuzz::send_all(fd, answers().next());
    ::shutdown(fd, SHUT_WR);
    char buf[256];
    while (::recv(fd, buf, sizeof buf, 0) > 0) {
    }
    ejob::fuzz::close_hard(fd);
  }
}

kubeapi::Transport& transport() {
  static kubeapi::Transport* t = [] {
    int port = 0;
    const int listener = ejob::fuzz::listen_loopback(port);
    if (listener < 0) std::abort();
    std::thread(serve, listener).detach();
    kubeapi::RestConfig cfg;
    cfg.server = "http://127.0.0.1:" + std::to_string(port);
    kubeapi::TransportOptions options;
    options.max_attempts = 1;
    options.request_timeout = std::chrono::milliseconds(ejob::fuzz::k_hang_ms);
    return new kubeapi::Transport(cfg, options);
  }();
  return *t;
}

std::string http_answer(std::uint8_t status_byte, std::string_view body) {
  static constexpr long k_statuses[] = {400, 401, 403, 404, 409, 410, 422, 500};
  const long status = status_byte < 128 ? 200 : k_statuses[status_byte % 8];
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         std::string(body);
}

const kubeapi::ResourceInfo k_pods{"", "v1", "pods", "Pod", true};

void run(kubeapi::Client& client, std::uint8_t op) {
  const Json pod = {{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "p"}, {"namespace", "ns"}, {"uid", "u"}}}};
  switch (op % 8) {
    case 0: (void)client.find_resource("apps/v1", "Deployment"); break;
    case 1: (void)client.list(k_pods, "ns"); break;
    case 2: {
      kubeapi::WatchOptions options;
      options.resource_version = "1";
      client.watch(k_pods, "ns", options, [](const kubeapi::WatchEvent&) { return true; });
      break;
    }
    case 3: {
      kubeapi::LogOptions options;
      options.follow = true;
      client.logs("ns", "p", options, [](std::string_view) { return true; });
      break;
    }
    case 4: (void)client.try_get(k_pods, "ns", "p"); break;
    case 5: (void)client.create(k_pods, pod); break;
    case 6: (void)client.events_for(pod); break;
    default: (void)client.remove(k_pods, "ns", "p"); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  kubeapi::Transport& t = transport();
  {
    std::lock_guard lock(answers().mutex);
    answers().first = http_answer(data[1], ejob::fuzz::as_text(data + 2, size - 2));
    answers().used = false;
  }
  kubeapi::Client client(t);
  ejob::fuzz::refusals_expected([&] { run(client, data[0]); });
  // A Status body as the client reads it for any failed request.
  ejob::fuzz::refusals_expected(
      [&] { (void)kubeapi::error_from_status(409, ejob::fuzz::as_text(data + 2, size - 2)); });
  return 0;
}
