// The TCPStore client's wire reader (src/agent/store/tcp_store_client.cpp): the input's first
// byte picks the dialect (bit 0) and the command to start from (the rest), and the other bytes
// are everything the store answers on the connection before it ends it. The client runs its
// commands in order from the chosen one until one fails: a malformed, short or wrong answer
// must be an ejob::Error, never a crash or a read past what arrived.
#include <sys/socket.h>

#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "src/agent/store/tcp_store_client.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "tests/fuzz/loopback.hpp"

namespace {

using ejob::agent::TcpStoreClient;

/// What the store says: accepts one connection, sends `reply`, ends its side and waits for
/// the client to close.
void fake_store(int listener, std::string_view reply) {
  int fd = ::accept(listener, nullptr, nullptr);
  if (fd < 0) return;
  ejob::fuzz::send_all(fd, reply);
  ::shutdown(fd, SHUT_WR);
  ejob::fuzz::read_to_end(fd, "the TCPStore client");
  ejob::fuzz::close_hard(fd);
}

const std::vector<std::function<void(TcpStoreClient&)>>& commands() {
  static const std::vector<std::function<void(TcpStoreClient&)>> all = {
      [](TcpStoreClient& c) { c.get("k"); },
      [](TcpStoreClient& c) { c.get_existing("k"); },
      [](TcpStoreClient& c) { c.add("k", 1); },
      [](TcpStoreClient& c) { c.compare_set("k", "a", "b"); },
      [](TcpStoreClient& c) {
        c.check({"a", "b"});
      },
      [](TcpStoreClient& c) { c.num_keys(); },
      [](TcpStoreClient& c) { c.delete_key("k"); },
      [](TcpStoreClient& c) {
        c.multi_get({"a", "b"});
      },
      [](TcpStoreClient& c) { c.set("k", "v"); },
      [](TcpStoreClient& c) { c.wait({"a"}, std::chrono::milliseconds(100)); },
      [](TcpStoreClient& c) {
        c.watch_key("k");  // torch 1.13 only; the 2.x client refuses it
        if (c.readable(std::chrono::milliseconds(100))) c.next_event();
      },
  };
  return all;
}

void run_client(int port, std::uint8_t first) {
  const auto dialect = (first & 1) ? ejob::agent::tcp_store::Dialect::Torch2
                                   : ejob::agent::tcp_store::Dialect::Torch1;
  TcpStoreClient client("127.0.0.1", port, std::chrono::milliseconds(100), dialect);
  const auto& all = commands();
  for (std::size_t i = (first >> 1) % all.size(); i < all.size(); ++i) all[i](client);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  int port = 0;
  const int listener = ejob::fuzz::listen_loopback(port);
  if (listener < 0) std::abort();
  std::thread store(fake_store, listener, ejob::fuzz::as_text(data + 1, size - 1));
  ejob::fuzz::refusals_expected([&] { run_client(port, data[0]); });
  store.join();
  ::close(listener);
  return 0;
}
