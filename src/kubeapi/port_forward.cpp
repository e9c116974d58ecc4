#include "src/kubeapi/port_forward.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

constexpr char k_data_channel = 0;
constexpr char k_error_channel = 1;
/// Bytes of one message we send; larger writes are split (the server holds a whole message).
constexpr std::size_t k_max_chunk = 256u << 10;
constexpr std::size_t k_local_read = 64u << 10;

/// Writes all of `data` to a local socket; false when the peer is gone.
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

int poll_retry(pollfd* fds, nfds_t n, int timeout_ms) {
  int rc;
  do {
    rc = ::poll(fds, n, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  return rc;
}

/// Copies bytes both ways between a local connection and a stream until either side ends or
/// `stop_fd` becomes readable.
void pump(PortForwardStream& stream, int client, int stop_fd) {
  std::string from_pod;
  char buf[k_local_read];
  while (true) {
    // Everything that already arrived (send() may have read ahead) goes out before polling.
    for (StreamRead r;
         (r = stream.read(from_pod, std::chrono::milliseconds(0))) != StreamRead::Timeout;) {
      if (!write_all(client, from_pod) || r == StreamRead::Closed) return;
      from_pod.clear();
    }
    pollfd fds[3] = {{client, POLLIN, 0}, {stream.socket(), POLLIN, 0}, {stop_fd, POLLIN, 0}};
    poll_retry(fds, 3, -1);
    if (fds[2].revents != 0) return;
    if (fds[0].revents != 0) {
      const ssize_t n = ::recv(client, buf, sizeof buf, 0);
      if (n <= 0) return;  // the local side closed: no half-close in this protocol
      stream.write(std::string_view(buf, static_cast<std::size_t>(n)));
    }
  }
}

/// A listening socket on address:port (0: a free port); `chosen` receives the port. Throws
/// ejob::Error(Usage) for an address that is not IPv4, Io when it cannot be bound.
int listen_on(const std::string& address, int port, int& chosen) {
  const std::string where = address + ":" + std::to_string(port);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1)
    throw Error(ErrorCode::Usage, "cannot listen on " + where + ": not an IPv4 address");
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  // The port of a forwarder that just stopped (TIME_WAIT) can be listened on again at once.
  if (fd >= 0) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(fd, 128) != 0) {
    const std::string why = std::strerror(errno);
    if (fd >= 0) ::close(fd);
    throw Error(ErrorCode::Io, "cannot listen on " + where + ": " + why);
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  chosen = ntohs(addr.sin_port);
  return fd;
}

}  // namespace

// ---- PortForwardStream
// ---------------------------------------------------------------------------

PortForwardStream::PortForwardStream(std::unique_ptr<WebSocket> ws, std::string pod, int port)
    : m_ws(std::move(ws)), m_pod(std::move(pod)), m_port(port) {}

std::unique_ptr<PortForwardStream> PortForwardStream::open(Transport& transport,
                                                           const std::string& ns,
                                                           const std::string& pod, int port) {
  const std::string target =
      "/api/v1/namespaces/" + ns + "/pods/" + pod + "/portforward?ports=" + std::to_string(port);
  auto ws = WebSocket::open(transport, target, {std::string(k_port_forward_protocol)});
  return std::unique_ptr<PortForwardStream>(
      new PortForwardStream(std::move(ws), ns + "/" + pod, port));
}

void PortForwardStream::write(std::string_view data) {
  while (!data.empty()) {
    const std::string_view part = data.substr(0, k_max_chunk);
    std::string message(1, k_data_channel);
    message.append(part);
    m_ws->send(MessageType::Binary, message);
    data.remove_prefix(part.size());
  }
}

void PortForwardStream::fail(const std::string& what) const {
  throw Error(ErrorCode::Transport, "port-forward to pod " + m_pod + " port " +
                                        std::to_string(m_port) + ": the server " + what);
}

bool PortForwardStream::take(Message& m, std::string& out) {
  if (m.data.empty()) return false;
  const char channel = m.data[0];
  std::string_view payload = std::string_view(m.data).substr(1);
  if (channel != k_data_channel && channel != k_error_channel)
    fail("used channel " + std::to_string(static_cast<unsigned char>(channel)));
  // The first message on each channel names the port, 2 bytes little endian.
  bool& port_seen = channel == k_data_channel ? m_data_port_seen : m_error_port_seen;
  if (!port_seen) {
    if (payload.size() < 2) fail("sent no port number");
    const int port =
        static_cast<unsigned char>(payload[0]) | (static_cast<unsigned char>(payload[1]) << 8);
    if (port != m_port) fail("answered for port " + std::to_string(port));
    payload.remove_prefix(2);
    port_seen = true;
  }
  if (payload.empty()) return false;
  if (channel == k_error_channel) throw Error(ErrorCode::Transport, std::string(payload));
  out.append(payload);
  return true;
}

StreamRead PortForwardStream::read(std::string& out, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  Message m;
  while (true) {
    auto left = timeout;
    if (timeout.count() > 0)
      left = std::max(std::chrono::milliseconds(0),
                      std::chrono::duration_cast<std::chrono::milliseconds>(
                          deadline - std::chrono::steady_clock::now()));
    switch (m_ws->receive(m, left)) {
      case Received::Timeout: return StreamRead::Timeout;
      case Received::Closed: return StreamRead::Closed;
      case Received::Message:
        if (take(m, out)) return StreamRead::Data;
    }
  }
}

void PortForwardStream::close() { m_ws->close(); }

int PortForwardStream::socket() const { return m_ws->socket(); }

// ---- PortForwarder
// -------------------------------------------------------------------------------

PortForwarder::PortForwarder(Transport& transport, ForwardSpec spec)
    : m_transport(transport), m_spec(std::move(spec)) {
  m_listen_fd = listen_on(m_spec.address, m_spec.local_port, m_local_port);
  m_stop_fd = eventfd(0, EFD_CLOEXEC);
  if (m_stop_fd < 0) {
    const std::string why = std::strerror(errno);
    ::close(m_listen_fd);
    throw Error(ErrorCode::Io, "cannot make the stop event of a port-forward: " + why);
  }
  m_acceptor = std::thread([this] { accept_loop(); });
}

PortForwarder::~PortForwarder() { stop(); }

void PortForwarder::stop() {
  if (m_stopped.exchange(true)) return;
  const std::uint64_t one = 1;
  if (::write(m_stop_fd, &one, sizeof one) < 0) {
    // an eventfd write only fails on overflow, which one write cannot cause
  }
  if (m_acceptor.joinable()) m_acceptor.join();
  reap(true);
  ::close(m_listen_fd);
  ::close(m_stop_fd);
}

void PortForwarder::accept_loop() {
  while (true) {
    pollfd fds[2] = {{m_listen_fd, POLLIN, 0}, {m_stop_fd, POLLIN, 0}};
    poll_retry(fds, 2, -1);
    if (fds[1].revents != 0) return;
    const int client = ::accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;  // the connection went away before we took it
    const int one = 1;
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    reap(false);
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard lock(m_mutex);
    m_connections.push_back({std::thread([this, client, done] {
                               serve(client);
                               done->store(true);
                             }),
                             done});
  }
}

void PortForwarder::serve(int client) {
  try {
    auto stream = PortForwardStream::open(m_transport, m_spec.ns, m_spec.pod, m_spec.remote_port);
    pump(*stream, client, m_stop_fd);
  } catch (const Error& e) {
    if (m_spec.on_error && !m_stopped) m_spec.on_error(e.message());
  }
  ::close(client);
}

void PortForwarder::reap(bool all) {
  std::vector<Connection> finished;
  {
    std::lock_guard lock(m_mutex);
    for (auto it = m_connections.begin(); it != m_connections.end();) {
      if (all || it->done->load()) {
        finished.push_back(std::move(*it));
        it = m_connections.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (Connection& c : finished) c.thread.join();
}

}  // namespace ejob::kubeapi
