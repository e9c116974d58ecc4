#include "src/agent/etcd/http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <functional>
#include <future>
#include <thread>

#include "src/agent/etcd/http_response.hpp"
#include "src/util/error.hpp"

using namespace ejob::agent;

namespace {

/// Feeds `wire` one byte at a time: framing must not depend on how the bytes arrive.
HttpResponse read_bytewise(const std::string& wire, bool eof = false) {
  HttpResponseReader reader;
  bool done = false;
  for (char c : wire) done = reader.feed(std::string_view(&c, 1));
  if (eof) done = reader.finish_at_eof();
  REQUIRE(done);
  return reader.take();
}

/// A one-thread server on 127.0.0.1 that runs `script` for each accepted connection, in order.
class ScriptedServer {
 public:
  using Script = std::function<void(int fd)>;
  explicit ScriptedServer(std::vector<Script> scripts) {
    m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::bind(m_listen, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0);
    socklen_t len = sizeof at;
    ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&at), &len);
    m_port = ntohs(at.sin_port);
    ::listen(m_listen, 8);
    m_thread = std::thread([this, scripts = std::move(scripts)] {
      for (const Script& script : scripts) {
        int fd = ::accept(m_listen, nullptr, nullptr);
        if (fd < 0) return;
        script(fd);
        ::close(fd);
      }
    });
  }
  ~ScriptedServer() {
    ::shutdown(m_listen, SHUT_RDWR);
    m_thread.join();
    ::close(m_listen);
  }
  [[nodiscard]] int port() const { return m_port; }

 private:
  int m_listen = -1;
  int m_port = 0;
  std::thread m_thread;
};

/// Reads one request head (the tests send no bodies) and returns it.
std::string read_request(int fd) {
  std::string got;
  char c;
  while (got.find("\r\n\r\n") == std::string::npos && ::read(fd, &c, 1) == 1) got += c;
  return got;
}

/// Runs in the server's thread, where Catch's assertions may not be used (they are not
/// thread-safe: ThreadSanitizer reports them); a short write shows as the client's error.
void write_text(int fd, const std::string& text) {
  for (size_t sent = 0; sent < text.size();) {
    const ssize_t n = ::write(fd, text.data() + sent, text.size() - sent);
    if (n <= 0) return;
    sent += static_cast<size_t>(n);
  }
}

HttpEndpoint local(int port) {
  HttpEndpoint at;
  at.host = "127.0.0.1";
  at.port = port;
  return at;
}

}  // namespace

TEST_CASE("http response: Content-Length, chunked and close-delimited bodies") {
  HttpResponse sized = read_bytewise(
      "HTTP/1.1 201 Created\r\nX-Etcd-Index: 7\r\n"
      "Content-Length: 5\r\n\r\nhello");
  CHECK(sized.status == 201);
  CHECK(*sized.header("x-etcd-index") == "7");
  CHECK(sized.body == "hello");
  CHECK(sized.keep_alive);

  HttpResponse chunked = read_bytewise(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
      "3;ext=1\r\nabc\r\nA\r\n0123456789\r\n0\r\nT: x\r\n\r\n");
  CHECK(chunked.body == "abc0123456789");

  HttpResponse closed = read_bytewise("HTTP/1.0 200 OK\r\n\r\nuntil the end", true);
  CHECK(closed.body == "until the end");
  CHECK_FALSE(closed.keep_alive);
}

TEST_CASE("http response: interim answers, empty bodies and Connection") {
  HttpResponse after_continue = read_bytewise(
      "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
  CHECK(after_continue.status == 204);
  CHECK(after_continue.body.empty());
  CHECK_FALSE(after_continue.keep_alive);
  CHECK(read_bytewise("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n")
            .keep_alive);
}

TEST_CASE("http response: what is not HTTP is refused, and a cut body is an error") {
  HttpResponseReader garbage;
  CHECK_THROWS_WITH(garbage.feed("SSH-2.0-OpenSSH_9.2\r\n\r\n"),
                    Catch::Contains("malformed HTTP response: status line 'SSH-2.0"));
  HttpResponseReader bad_length;
  CHECK_THROWS_WITH(bad_length.feed("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"),
                    Catch::Contains("bad Content-Length '-1'"));
  HttpResponseReader cut;
  CHECK_FALSE(cut.feed("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"));
  CHECK_THROWS_WITH(cut.finish_at_eof(), Catch::Contains("closed in the middle of the response"));
  HttpResponseReader nothing;
  CHECK_THROWS_WITH(nothing.finish_at_eof(), Catch::Contains("closed before any response"));
}

TEST_CASE("http client: a kept-alive connection the server closed is replaced once") {
  auto answer_once = [](int fd) {
    read_request(fd);
    write_text(fd, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  };
  ScriptedServer server({answer_once, answer_once});
  HttpClient client(local(server.port()));
  HttpResponse first, second;
  REQUIRE(client.request({"GET", "/a", {}, {}}, 5000, first) == HttpEnd::Complete);
  CHECK(first.body == "ok");
  REQUIRE(client.request({"GET", "/b", {}, {}}, 5000, second) == HttpEnd::Complete);
  CHECK(second.body == "ok");
}

TEST_CASE("http client: the request on the wire, and a body delimited by the close") {
  std::promise<std::string> request_seen;  // handed from the server's thread
  ScriptedServer server({[&](int fd) {
    std::string seen = read_request(fd);
    char body[4];
    for (ssize_t n; seen.size() < 4 || seen.compare(seen.size() - 4, 4, "v=12") != 0;) {
      if ((n = ::read(fd, body, sizeof body)) <= 0) break;
      seen.append(body, static_cast<size_t>(n));
    }
    request_seen.set_value(seen);
    write_text(fd, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it");
  }});
  HttpClient client(local(server.port()));
  HttpResponse response;
  REQUIRE(client.request({"PUT", "/v2/keys/k", "application/x-www-form-urlencoded", "v=12"}, 5000,
                         response) == HttpEnd::Complete);
  CHECK(response.body == "all of it");
  const std::string seen = request_seen.get_future().get();
  CHECK(seen.rfind("PUT /v2/keys/k HTTP/1.1\r\nHost: 127.0.0.1:", 0) == 0);
  CHECK(seen.find("\r\nContent-Type: application/x-www-form-urlencoded\r\n") != std::string::npos);
  CHECK(seen.find("\r\nContent-Length: 4\r\n\r\nv=12") != std::string::npos);
}

TEST_CASE("http client: further headers go on the wire as given") {
  std::promise<std::string> request_seen;  // handed from the server's thread
  ScriptedServer server({[&](int fd) {
    request_seen.set_value(read_request(fd));
    write_text(fd, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  }});
  HttpClient client(local(server.port()));
  HttpResponse response;
  HttpRequest get;
  get.target = "/metadata/scheduledevents?api-version=2020-07-01";
  get.headers = {{"Metadata", "true"}};
  REQUIRE(client.request(get, 5000, response) == HttpEnd::Complete);
  CHECK(response.status == 200);
  const std::string seen = request_seen.get_future().get();
  CHECK(seen.rfind("GET /metadata/scheduledevents?api-version=2020-07-01 HTTP/1.1\r\n", 0) == 0);
  CHECK(seen.find("\r\nMetadata: true\r\n") != std::string::npos);
}

TEST_CASE("http client: a server that says nothing times out, and cancel ends a request at once") {
  ScriptedServer silent({[](int fd) {
                           read_request(fd);
                           char c;
                           while (::read(fd, &c, 1) > 0) {
                           }
                         },
                         [](int fd) {
                           read_request(fd);
                           char c;
                           while (::read(fd, &c, 1) > 0) {
                           }
                         }});
  HttpClient client(local(silent.port()));
  HttpResponse response;
  CHECK(client.request({"GET", "/", {}, {}}, 200, response) == HttpEnd::TimedOut);
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    client.cancel();
  });
  CHECK(client.request({"GET", "/", {}, {}}, 60000, response) == HttpEnd::Cancelled);
  canceller.join();
  CHECK(client.request({"GET", "/", {}, {}}, 60000, response) == HttpEnd::Cancelled);
  client.reset_cancel();
}

TEST_CASE("http client: garbage from the server is a transport error") {
  ScriptedServer server({[](int fd) {
    read_request(fd);
    write_text(fd, "220 mail.example ESMTP\r\n\r\n");
  }});
  HttpClient client(local(server.port()));
  HttpResponse response;
  try {
    client.request({"GET", "/", {}, {}}, 5000, response);
    FAIL("no error");
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Transport);
    CHECK(e.message() == "malformed HTTP response: status line '220 mail.example ESMTP'");
  }
}
