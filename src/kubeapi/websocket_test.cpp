#include "src/kubeapi/websocket.hpp"

#include <catch2/catch.hpp>
#include <thread>

#include "src/kubeapi/api_error.hpp"
#include "tests/kube/test_server.hpp"

using namespace ejob;
using namespace ejob::kubeapi;
using ejob::testing::TestServer;

namespace {

constexpr std::chrono::milliseconds k_wait{20'000};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::to_string(exit_code(e.code())) + ": " + e.message();
  }
  return "(no error)";
}

/// A WebSocket to the test server's echo peer (/_test/websocket).
struct Echo {
  TestServer server;
  Transport transport{server.config("anonymous"), {}};
  std::unique_ptr<WebSocket> ws = WebSocket::open(transport, "/_test/websocket", {"echo.test"});

  Message next() {
    Message m;
    REQUIRE(ws->receive(m, k_wait) == Received::Message);
    return m;
  }
};

/// The close frames the echo peer received, once there is one: the server reads our answer to
/// its own close frame after we moved on.
nlohmann::json closes_seen(TestServer& server) {
  nlohmann::json seen = server.control("websocket-closes", nullptr);
  for (int i = 0; i < 400 && seen.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    seen = server.control("websocket-closes", nullptr);
  }
  return seen;
}

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 7 + i / 251) & 0xFF);
  return s;
}

}  // namespace

TEST_CASE("websocket: Sec-WebSocket-Accept of RFC 6455's example key") {
  CHECK(websocket_accept("dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
}

TEST_CASE("websocket: client frames are masked, with 7-bit, 16-bit and 64-bit lengths") {
  const std::uint8_t mask[4] = {0x37, 0xfa, 0x21, 0x3d};
  // RFC 6455 §5.7: a masked text frame "Hello".
  CHECK(websocket_frame(0x1, "Hello", mask) ==
        std::string("\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58", 11));
  const std::string mid = websocket_frame(0x2, std::string(256, 'a'), mask);
  CHECK(mid.size() == 4 + 4 + 256);
  CHECK(mid.substr(0, 4) == std::string("\x82\xFE\x01\x00", 4));
  CHECK(static_cast<std::uint8_t>(mid[8]) == ('a' ^ 0x37));
  const std::string big = websocket_frame(0x2, std::string(65536, 'b'), mask);
  CHECK(big.size() == 10 + 4 + 65536);
  CHECK(big.substr(0, 10) == std::string("\x82\xFF\x00\x00\x00\x00\x00\x01\x00\x00", 10));
}

TEST_CASE("websocket: binary and text messages round-trip at every length encoding") {
  Echo e;
  CHECK(e.ws->protocol() == "echo.test");
  for (std::size_t n : {std::size_t{0}, std::size_t{125}, std::size_t{126}, std::size_t{65535},
                        std::size_t{65536}, std::size_t{3u << 20}}) {
    const std::string data = pattern(n);
    e.ws->send(MessageType::Binary, data);
    Message m = e.next();
    CHECK(m.type == MessageType::Binary);
    CHECK(m.data.size() == n);
    CHECK(m.data == data);
  }
  e.ws->send(MessageType::Text, "hello");
  Message m = e.next();
  CHECK(m.type == MessageType::Text);
  CHECK(m.data == "hello");
}

TEST_CASE("websocket: a message in fragments arrives whole") {
  Echo e;
  e.ws->send(MessageType::Text, "fragment 3 abcdefghij");
  Message m = e.next();
  CHECK(m.type == MessageType::Text);
  CHECK(m.data == "abcdefghij");
}

TEST_CASE("websocket: pings are answered with the same payload") {
  Echo e;
  e.ws->send(MessageType::Text, "ping are-you-there");
  CHECK(e.next().data == "pong are-you-there");
}

TEST_CASE("websocket: the server's close code and reason are reported; then sends fail") {
  Echo e;
  e.ws->send(MessageType::Text, "close 4001 done here");
  Message m;
  CHECK(e.ws->receive(m, k_wait) == Received::Closed);
  CHECK(e.ws->close_code() == 4001);
  CHECK(e.ws->close_reason() == "done here");
  CHECK(error_of([&] { e.ws->send(MessageType::Text, "more"); }) ==
        "4: the WebSocket to " + e.server.url() + " is closed");
  // Our answering close frame reached the server with the same code.
  e.ws->close();
  CHECK(closes_seen(e.server) == nlohmann::json::parse(R"([{"code": 4001, "reason": ""}])"));
}

TEST_CASE("websocket: our close reaches the server with its code and reason") {
  Echo e;
  e.ws->close(1001, "going away");
  CHECK(e.server.control("websocket-closes", nullptr) ==
        nlohmann::json::parse(R"([{"code": 1001, "reason": "going away"}])"));
}

TEST_CASE("websocket: a connection dropped without a close frame is Closed with 1006") {
  Echo e;
  e.ws->send(MessageType::Text, "drop");
  Message m;
  CHECK(e.ws->receive(m, k_wait) == Received::Closed);
  CHECK(e.ws->close_code() == 1006);
}

TEST_CASE("websocket: a frame no server may send is a protocol error, closed with 1002") {
  const std::pair<const char*, const char*> cases[] = {
      {"masked", "a masked frame"},
      {"opcode", "a frame with opcode 3"},
      {"continuation", "a continuation frame outside a message"},
      {"reserved", "a frame with reserved bits set"}};
  for (const auto& [kind, what] : cases) {
    INFO(kind);
    Echo e;
    e.ws->send(MessageType::Text, std::string("bad ") + kind);
    Message m;
    CHECK(error_of([&] { e.ws->receive(m, k_wait); }) ==
          "4: WebSocket protocol error: " + e.server.url() + " sent " + what);
    CHECK(e.ws->close_code() == 1006);
    CHECK(closes_seen(e.server) == nlohmann::json::parse(R"([{"code": 1002, "reason": ""}])"));
  }
}

TEST_CASE("websocket: nothing arriving is a Timeout, not an error") {
  Echo e;
  Message m;
  CHECK(e.ws->receive(m, std::chrono::milliseconds(0)) == Received::Timeout);
}

TEST_CASE("websocket: the handshake answer is checked") {
  TestServer server;
  Transport t(server.config("anonymous"), {});
  const std::string where = "4: GET " + server.url();
  CHECK(error_of([&] { WebSocket::open(t, "/_test/websocket?choose=other", {"echo.test"}); }) ==
        where +
            "/_test/websocket?choose=other: the server chose subprotocol other, which was not "
            "offered");
  CHECK(error_of([&] { WebSocket::open(t, "/_test/websocket?accept=Zm9v", {"echo.test"}); }) ==
        where + "/_test/websocket?accept=Zm9v: wrong Sec-WebSocket-Accept in the answer");
  CHECK(error_of([&] { WebSocket::open(t, "/_test/websocket", {"v9.unknown"}); }) ==
        "5: unable to upgrade connection: requested protocol(s) are not supported: ['v9.unknown']; "
        "supports ['echo.test']");
}

TEST_CASE("websocket: a server that cannot be reached is a Transport error") {
  TestServer server;
  RestConfig cfg = server.config("admin-token");
  cfg.ca_pem = "";
  cfg.server = "https://127.0.0.1:1";
  Transport t(cfg, {});
  // curl's message names the milliseconds it tried; the rest is compared whole.
  const std::string e = error_of([&] { WebSocket::open(t, "/x", {}); });
  CHECK(e.rfind("4: GET https://127.0.0.1:1/x: Failed to connect to 127.0.0.1 port 1 after ", 0) ==
        0);
  CHECK(e.substr(e.find(" ms: ")) == " ms: Couldn't connect to server");
}
