// The TCPStore server's wire reader (src/agent/store/tcp_store_server.cpp, both dialects): the
// input is what one client sends on one connection, then it ends its side. The server must
// answer what it can, drop the client on bad data (logging why) and close; a server that keeps
// the connection open after the client ended it is a hang. The keys are cleared after every
// input, so that each runs against an empty store.
#include <sys/socket.h>

#include <memory>

#include "src/agent/store/tcp_store_server.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "tests/fuzz/loopback.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto* server = new ejob::agent::TcpStoreServer(0);  // lives as long as the process
  int fd = ejob::fuzz::connect_loopback(server->port());
  if (fd < 0) std::abort();
  ejob::fuzz::send_all(fd, ejob::fuzz::as_text(data, size));
  ::shutdown(fd, SHUT_WR);
  ejob::fuzz::read_to_end(fd, "the TCPStore server");
  ejob::fuzz::close_hard(fd);
  server->clear();
  return 0;
}
