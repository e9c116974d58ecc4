#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <limits>
#include <thread>

#include "src/agent/store/tcp_store_client.hpp"
#include "src/agent/store/tcp_store_server.hpp"
#include "src/util/error.hpp"
#include "tests/agent/python_peer.hpp"

using namespace ejob::agent;
using namespace std::chrono_literals;
using ejob::agent::tcp_store::Dialect;
using ejob::agent::testing::PythonPeer;
using ejob::agent::testing::run_python;
using ejob::agent::testing::Torch;

namespace {

/// The store operations every test runs, through our client, with torch 1.13's answers.
void exercise(TcpStoreClient& c) {
  c.set("k1", "hello");
  CHECK(c.get("k1") == "hello");
  CHECK(c.add("cnt", 5) == 5);
  CHECK(c.add("cnt", -2) == 3);
  CHECK(c.get("cnt") == "3");
  CHECK(c.compare_set("cas", "", "first") == "first");
  CHECK(c.compare_set("cas", "first", "second") == "second");
  CHECK(c.compare_set("cas", "zzz", "third") == "second");
  CHECK(c.compare_set("nokey", "x", "y") == "x");  // absent key: torch answers `expected`
  CHECK(c.check({"k1", "cnt"}));
  CHECK_FALSE(c.check({"k1", "nokey"}));
  CHECK(c.num_keys() == 3);
  CHECK(c.delete_key("k1"));
  CHECK_FALSE(c.delete_key("k1"));
  CHECK(c.num_keys() == 2);
  std::string binary("\x00\xff\n", 3);
  c.set("bin", binary);
  CHECK(c.get("bin") == binary);
  // A value larger than one recv, and several replies read from one stream (1.13: GETs sent
  // together).
  std::string big(200000, 'x');
  big[123] = '\0';
  c.set("big", big);
  CHECK(c.multi_get({"cnt", "big", "bin"}) == std::vector<std::string>{"3", big, binary});
  CHECK(c.get_existing("big") == big);
  CHECK(c.delete_key("big"));
}

/// Every write of a watched key reaches the watch, in order, however the events arrive
/// together.
void exercise_watch(TcpStoreClient& watcher, TcpStoreClient& writer) {
  watcher.watch_key("w");
  writer.set("w", "a");
  writer.set("w", "b");
  CHECK(writer.compare_set("w", "b", "c") == "c");
  CHECK(writer.compare_set("w", "zzz", "d") == "c");  // no change, no event
  writer.set("other", "x");
  writer.set("w", std::string(100000, 'e'));
  std::vector<std::string> seen;
  while (seen.size() < 4 && watcher.readable(5s)) seen.push_back(watcher.next_event());
  CHECK(seen == std::vector<std::string>{"a", "b", "c", std::string(100000, 'e')});
  CHECK_FALSE(watcher.readable(100ms));
}

/// A WAIT that times out leaves a reply pending on its connection: the client reconnects, and
/// a get() that blocks is answered when another client sets the key.
void exercise_waits(TcpStoreClient& c, TcpStoreClient& other) {
  try {
    c.wait({"never"}, 200ms);
    FAIL("wait returned");
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Timeout);
  }
  other.set("never", "now");  // the old connection would now receive STOP_WAITING
  CHECK(c.get("cnt") == "3");
  std::thread later([&] {
    std::this_thread::sleep_for(300ms);
    other.set("late", "v");
  });
  CHECK(c.get("late") == "v");
  later.join();
}

int raw_connect(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  return fd;
}

/// Whether the server closed `fd` (read returns 0 within a second).
bool closed_by_server(int fd) {
  timeval tv{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char c;
  return ::read(fd, &c, 1) == 0;
}

}  // namespace

TEST_CASE("tcp store: our client against torch 1.13's TCPStore server") {
  PythonPeer server("torch_store_peer.py", {"server"});
  int port = std::stoi(server.read_line());
  TcpStoreClient c("127.0.0.1", port, 10s);
  TcpStoreClient other("localhost", port, 10s);
  exercise(c);
  exercise_waits(c, other);
  TcpStoreClient watcher("127.0.0.1", port, 10s);
  exercise_watch(watcher, c);
}

/// What torch_store_peer.py's client prints against a store with
/// `torch.rendezvous.r.0/MASTER_ADDR` set, in both dialects (2.x prints more after it).
const std::string k_client_peer_output =
    "'get' b'hello'\n"
    "'add' 5 3 b'3'\n"
    "'cas-create' b'first'\n"
    "'cas-swap' b'second'\n"
    "'cas-mismatch' b'second'\n"
    "'cas-absent' b'x'\n"
    "'num_keys' 4\n"
    "'delete' True False\n"
    "'wait' 'timed out'\n"
    "'late' b'\\x00\\xffbinary' True\n"
    "'prefix' b'node-a'\n";

TEST_CASE("tcp store: torch 1.13's client against our server") {
  TcpStoreServer server(0);
  TcpStoreClient c("127.0.0.1", server.port(), 10s);
  c.set("torch.rendezvous.r.0/MASTER_ADDR", "node-a");
  std::string out = run_python("torch_store_peer.py", {"client", std::to_string(server.port())});
  CHECK(out == k_client_peer_output);
}

TEST_CASE("tcp store: our client against our server") {
  TcpStoreServer server(0);
  TcpStoreClient c("127.0.0.1", server.port(), 10s);
  TcpStoreClient other("::1", server.port(), 10s);  // dual-stack: IPv6 loopback too
  exercise(c);
  exercise_waits(c, other);
  TcpStoreClient watcher("127.0.0.1", server.port(), 10s);
  exercise_watch(watcher, c);
}

TEST_CASE("tcp store: clear() drops every key and keeps the connections") {
  TcpStoreServer server(0);
  TcpStoreClient c("127.0.0.1", server.port(), 10s);
  c.set("0", "addr-of-a-dead-worker");
  CHECK(c.add("count", 5) == 5);
  server.clear();
  CHECK(c.num_keys() == 0);
  CHECK_FALSE(c.check({"0"}));
  CHECK(c.add("count", 1) == 1);
}

// Found by tests/fuzz/tcp_store_server_fuzz.cpp: the sum overflowed int64 (undefined).
TEST_CASE("tcp store: ADD past int64 wraps around, as torch's server does") {
  TcpStoreServer server(0);
  TcpStoreClient c("127.0.0.1", server.port(), 10s);
  constexpr auto k_max = std::numeric_limits<std::int64_t>::max();
  CHECK(c.add("n", k_max) == k_max);
  CHECK(c.add("n", 1) == std::numeric_limits<std::int64_t>::min());
  CHECK(c.add("n", -1) == k_max);
}

TEST_CASE("tcp store: a client stopped mid-command stalls nobody; bad commands end a connection") {
  TcpStoreServer server(0);
  int stalled = raw_connect(server.port());
  REQUIRE(::write(stalled, "\x00\x05\x00", 3) == 3);  // SET with half a key length
  TcpStoreClient c("127.0.0.1", server.port(), 2s);
  c.set("a", "1");
  CHECK(c.get("a") == "1");
  int get_missing = raw_connect(server.port());
  REQUIRE(::write(get_missing, "\x02\x02\0\0\0\0\0\0\0/x", 11) == 11);
  CHECK(closed_by_server(get_missing));
  int unknown = raw_connect(server.port());
  REQUIRE(::write(unknown, "\x63", 1) == 1);
  CHECK(closed_by_server(unknown));
  int torch2 = raw_connect(server.port());  // torch 2.x's VALIDATE and PING, in pieces
  REQUIRE(::write(torch2, "\x00\xce\xf7", 3) == 3);
  std::this_thread::sleep_for(50ms);
  REQUIRE(::write(torch2, "\x85\x3c\x0d\x01\x02\x03\x04", 7) == 7);
  char echo[4] = {};
  REQUIRE(::read(torch2, echo, 4) == 4);
  CHECK(std::string(echo, 4) == "\x01\x02\x03\x04");
  REQUIRE(::write(torch2, "\x0e", 1) == 1);  // 14: no query of torch 2.6
  CHECK(closed_by_server(torch2));
  CHECK(c.get("a") == "1");
  CHECK(c.num_keys() == 1);  // the handshake was not taken for a SET
  for (int fd : {stalled, get_missing, unknown, torch2}) ::close(fd);
}

TEST_CASE("tcp store: a taken port and a missing server are transport errors naming them") {
  TcpStoreServer server(0);
  try {
    TcpStoreServer second(server.port());
    FAIL("bound twice");
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Transport);
    CHECK(e.message() == "cannot host the TCPStore on port " + std::to_string(server.port()) +
                             ": Address already in use");
  }
  int port = server.port();
  server.stop();
  auto started = std::chrono::steady_clock::now();
  try {
    TcpStoreClient c("127.0.0.1", port, 1500ms);
    FAIL("connected");
  } catch (const ejob::Error& e) {
    CHECK(e.message() ==
          "TCPStore 127.0.0.1:" + std::to_string(port) + ": cannot connect: Connection refused");
  }
  CHECK(std::chrono::steady_clock::now() - started >= 1s);  // retried until the timeout
}

TEST_CASE("tcp store: our torch 2.x client against torch 2.6's TCPStore server") {
  PythonPeer server("torch_store_peer.py", {"server"}, Torch::V2_6);
  int port = std::stoi(server.read_line());
  TcpStoreClient c("127.0.0.1", port, 10s, Dialect::Torch2);
  TcpStoreClient other("localhost", port, 10s, Dialect::Torch2);
  exercise(c);
  exercise_waits(c, other);
  c.multi_set({{"m1", "1"},
               {"m2", std::string("\0"
                                  "2",
                                  2)}});
  CHECK(other.multi_get({"m1", "m2"}) == std::vector<std::string>{"1", std::string("\0"
                                                                                   "2",
                                                                                   2)});
}

TEST_CASE("tcp store: torch 2.6's client against our server") {
  TcpStoreServer server(0);
  TcpStoreClient c("127.0.0.1", server.port(), 10s, Dialect::Torch2);
  c.set("torch.rendezvous.r.0/MASTER_ADDR", "node-a");
  std::string out =
      run_python("torch_store_peer.py", {"client", std::to_string(server.port())}, Torch::V2_6);
  CHECK(out == k_client_peer_output +
                   "'append' b'ab'\n"
                   "'multi' [b'1', b'\\x002']\n"
                   "'after-cancel' b'now' True 8\n");
}

TEST_CASE("tcp store: one server serves torch 1.13 and torch 2.x clients at once") {
  TcpStoreServer server(0);
  TcpStoreClient old_client("127.0.0.1", server.port(), 10s, Dialect::Torch1);
  TcpStoreClient new_client("127.0.0.1", server.port(), 10s, Dialect::Torch2);
  old_client.set("from-1.13", "a");
  new_client.set("from-2.x", "b");
  CHECK(new_client.get("from-1.13") == "a");
  CHECK(old_client.get("from-2.x") == "b");
  CHECK(new_client.add("n", 2) == 2);
  CHECK(old_client.add("n", 3) == 5);
  CHECK(old_client.num_keys() == 3);
  std::thread later([&] {
    std::this_thread::sleep_for(200ms);
    old_client.set("late", "c");
  });
  CHECK(new_client.get("late") == "c");  // a 2.x WAIT woken by a 1.13 SET
  later.join();
}

TEST_CASE("tcp store: a round's workers' store: workers of any restart count share their keys") {
  for (Torch torch : {Torch::V1_13, Torch::V2_6}) {
    auto server = TcpStoreServer::for_workers();
    CHECK(run_python("torch_store_peer.py", {"workers", std::to_string(server->port())}, torch) ==
          "'workers' b'a' b'2' b'2'\n");
  }
  // Only the exact form torch 1.13's PrefixStore puts on the wire loses its prefix.
  auto server = TcpStoreServer::for_workers();
  TcpStoreClient c("127.0.0.1", server->port(), 10s, Dialect::Torch1);
  c.set("/worker/attempt_7/k", "v");  // on the wire: //worker/attempt_7/k
  CHECK(c.get("k") == "v");
  c.set("/worker/attempt_/x", "1");
  c.set("/worker/attempt_3x/y", "2");
  c.set("/worker/attempt_4", "3");
  CHECK_FALSE(c.check({"x"}));
  CHECK_FALSE(c.check({"y"}));
  CHECK(c.get("/worker/attempt_3x/y") == "2");
  CHECK(c.get("/worker/attempt_4") == "3");
  // An ordinary server keeps every key as sent.
  TcpStoreServer plain(0);
  TcpStoreClient p("127.0.0.1", plain.port(), 10s, Dialect::Torch1);
  p.set("/worker/attempt_7/k", "v");
  CHECK_FALSE(p.check({"k"}));
}
