#include "src/agent/base/host_identity.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "src/util/error.hpp"

namespace ejob::agent {

std::string fq_hostname() {
  char name[256] = {};
  ::gethostname(name, sizeof name - 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  addrinfo* res = nullptr;
  if (::getaddrinfo(name, nullptr, &hints, &res) != 0 || res == nullptr) return name;
  std::vector<char> addr(res->ai_addrlen);
  std::memcpy(addr.data(), res->ai_addr, res->ai_addrlen);
  int family = res->ai_family;
  ::freeaddrinfo(res);
  const void* raw =
      family == AF_INET6
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(addr.data())->sin6_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(addr.data())->sin_addr);
  socklen_t len = family == AF_INET6 ? sizeof(in6_addr) : sizeof(in_addr);
  hostent result{};
  hostent* he = nullptr;
  std::vector<char> buf(8192);
  int err = 0;
  if (::gethostbyaddr_r(raw, len, family, &result, buf.data(), buf.size(), &he, &err) != 0 ||
      he == nullptr)
    return name;
  std::vector<std::string> names = {he->h_name};
  for (char** a = he->h_aliases; a != nullptr && *a != nullptr; ++a) names.emplace_back(*a);
  for (const auto& n : names)
    if (n.find('.') != std::string::npos) return n;
  return he->h_name;
}

int free_local_port() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo("localhost", "0", &hints, &res) != 0)
    throw Error(ErrorCode::Io, "cannot resolve localhost to pick MASTER_PORT");
  int port = -1;
  for (addrinfo* a = res; a != nullptr && port < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype, a->ai_protocol);
    if (fd < 0) continue;
    sockaddr_storage ss{};
    socklen_t sl = sizeof ss;
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &sl) == 0)
      port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
    ::close(fd);
  }
  ::freeaddrinfo(res);
  if (port < 0) throw Error(ErrorCode::Io, "cannot bind a free port on localhost for MASTER_PORT");
  return port;
}

}  // namespace ejob::agent
