#pragma once
/// Loopback sockets for the fuzz targets whose parser reads a connection (the TCPStore server
/// and client, the API client): a peer that sends the fuzz input and reads what comes back.
/// Every socket is closed with a reset (SO_LINGER 0), so that thousands of connections a
/// second leave no TIME_WAIT behind to run the ephemeral ports out. A peer that neither ends
/// nor answers within k_hang_ms is a hang: abort(), which libFuzzer reports with the input.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

namespace ejob::fuzz {

inline constexpr int k_hang_ms = 10'000;

[[noreturn]] inline void hang(const char* what) {
  std::fprintf(stderr, "fuzz: %s did not end within %d ms\n", what, k_hang_ms);
  std::abort();
}

/// Closes `fd` with a reset instead of a FIN.
inline void close_hard(int fd) {
  linger l{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd);
}

/// A socket listening on 127.0.0.1 on a free port, which `port` receives; -1 on failure.
inline int listen_loopback(int& port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return -1;
  }
  port = ntohs(a.sin_port);
  return fd;
}

/// A connection to 127.0.0.1:port; -1 on failure. The client that ends first keeps its port in
/// TIME_WAIT for a minute, so at thousands of connections a second the ephemeral ports of one
/// address run out: each connection comes from the next of 250 loopback addresses
/// (127.0.0.2 …), each with ports of its own.
inline int connect_loopback(int port) {
  static unsigned next = 0;
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in from{};
  from.sin_family = AF_INET;
  from.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1 + (next++ % 250));
  ::bind(fd, reinterpret_cast<sockaddr*>(&from), sizeof from);  // on failure: the kernel's pick
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    // Interrupted by libFuzzer's SIGALRM, the connection goes on: wait until it is made.
    pollfd p{fd, POLLOUT, 0};
    int error = errno;
    socklen_t len = sizeof error;
    if (error != EINTR || ::poll(&p, 1, k_hang_ms) <= 0 ||
        ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
      std::fprintf(stderr, "fuzz: connect: %s\n", std::strerror(error));
      ::close(fd);
      return -1;
    }
  }
  return fd;
}

/// Waits for `fd` to be readable; hang() after k_hang_ms. libFuzzer's timeout check is a
/// SIGALRM every few seconds, which interrupts poll (EINTR): that is no hang, so poll again for
/// the time left.
inline void wait_readable(int fd, const char* what) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(k_hang_ms);
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    const int rc = ::poll(&p, 1, static_cast<int>(std::max<long>(left.count(), 0)));
    if (rc > 0) return;
    if (rc == 0 || errno != EINTR) hang(what);
  }
}

/// Sends all of `bytes` (false when the peer is gone).
inline bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;  // libFuzzer's SIGALRM
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

/// Reads until the peer ends the connection (or resets it), returning what came.
inline std::string read_to_end(int fd, const char* what) {
  std::string in;
  char buf[65536];
  while (true) {
    wait_readable(fd, what);
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return in;
    in.append(buf, static_cast<std::size_t>(n));
  }
}

}  // namespace ejob::fuzz
