#include "src/agent/etcd/http_client.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void transport_error(const std::string& message) {
  throw Error(ErrorCode::Transport, message);
}

/// What waiting for a socket or doing I/O on it came to.
enum class Io { Ready, Closed, TimedOut, Cancelled };

HttpEnd end_of(Io io) { return io == Io::TimedOut ? HttpEnd::TimedOut : HttpEnd::Cancelled; }

/// Waits for a socket under the request's deadline, woken early by cancel().
struct Waiter {
  int wake_fd;
  const std::atomic<bool>& cancelled;
  Clock::time_point deadline;

  Io wait(int fd, short events) const {
    for (;;) {
      if (cancelled) return Io::Cancelled;
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      if (left.count() <= 0) return Io::TimedOut;
      pollfd fds[2] = {{fd, events, 0}, {wake_fd, POLLIN, 0}};
      int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
      if (n < 0 && errno != EINTR) transport_error(std::string("poll: ") + std::strerror(errno));
      if (cancelled) return Io::Cancelled;
      if (n > 0 && fds[0].revents != 0) return Io::Ready;
    }
  }
};

/// OpenSSL writes to the socket with write(2), which raises SIGPIPE when the peer has gone;
/// the agent must not die of it, nor ignore SIGPIPE process-wide (its workers would inherit
/// that). So SIGPIPE is blocked in this thread around each TLS call and a pending one is
/// consumed before unblocking, as libcurl does.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&m_pipe_only);
    sigaddset(&m_pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &m_pipe_only, &m_old);
  }
  ~SigpipeBlock() {
    timespec zero{};
    int saved = errno;
    while (sigtimedwait(&m_pipe_only, nullptr, &zero) == SIGPIPE) {
    }
    pthread_sigmask(SIG_SETMASK, &m_old, nullptr);
    errno = saved;
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t m_pipe_only{};
  sigset_t m_old{};
};

/// OpenSSL's error queue as one line, emptied.
std::string tls_errors() {
  std::string out;
  while (unsigned long code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    out += (out.empty() ? "" : "; ") + std::string(text);
  }
  return out.empty() ? "unknown TLS error" : out;
}

bool is_ip_literal(const std::string& host) {
  in6_addr any{};
  return inet_pton(AF_INET, host.c_str(), &any) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &any) == 1;
}

/// A non-blocking TCP connection to the first address of `host` that accepts one.
int connect_tcp(const HttpEndpoint& at, const Waiter& waiter, Io& io) {
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string port = std::to_string(at.port);
  if (int rc = getaddrinfo(at.host.c_str(), port.c_str(), &hints, &found); rc != 0)
    transport_error("cannot resolve host '" + at.host + "': " + gai_strerror(rc));
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, &freeaddrinfo);
  Waiter connecting = waiter;
  connecting.deadline =
      std::min(waiter.deadline, Clock::now() + std::chrono::milliseconds(at.connect_timeout_ms));
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int err = ::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
      io = connecting.wait(fd, POLLOUT);
      socklen_t len = sizeof err;
      err = io == Io::Ready ? (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len), err) : ETIMEDOUT;
      if (io == Io::Cancelled || (io == Io::TimedOut && waiter.deadline <= Clock::now())) {
        ::close(fd);
        return -1;
      }
    }
    if (err == 0) {
      int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      io = Io::Ready;
      return fd;
    }
    why = std::strerror(err);
    ::close(fd);
  }
  transport_error("cannot connect to " + at.host + " port " + port + ": " + why);
}

}  // namespace

/// One open connection: a socket and, for https, its TLS session.
class HttpClient::Connection {
 public:
  bool used = false;  ///< a request went over it (a later close may just be keep-alive ending)

  /// Connects (and shakes hands); Ready, or how waiting ended. Throws on failure.
  static Io open(const HttpEndpoint& at, const Waiter& waiter, std::unique_ptr<Connection>& out) {
    Io io = Io::Ready;
    int fd = connect_tcp(at, waiter, io);
    if (fd < 0) return io;
    out.reset(new Connection(fd));
    if (!at.tls) return Io::Ready;
    out->start_tls(at);
    io = out->handshake(waiter);
    if (io != Io::Ready) out.reset();
    return io;
  }

  ~Connection() {
    if (m_ssl != nullptr) SSL_free(m_ssl);
    if (m_ctx != nullptr) SSL_CTX_free(m_ctx);
    ::close(m_fd);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  /// Sends all of `bytes`; Closed when the peer has gone.
  Io write_all(std::string_view bytes, const Waiter& waiter) {
    while (!bytes.empty()) {
      long n = m_ssl != nullptr
                   ? tls_io(waiter,
                            [&] {
                              return SSL_write(m_ssl, bytes.data(), static_cast<int>(bytes.size()));
                            })
                   : plain_write(bytes, waiter);
      if (n <= 0) return static_cast<Io>(-n);
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return Io::Ready;
  }

  /// Appends what arrives next to `into`; Closed at the end of the stream.
  Io read_some(std::string& into, const Waiter& waiter) {
    char buffer[16384];
    long n = m_ssl != nullptr
                 ? tls_io(waiter, [&] { return SSL_read(m_ssl, buffer, sizeof buffer); })
                 : plain_read(buffer, sizeof buffer, waiter);
    if (n <= 0) return static_cast<Io>(-n);
    into.append(buffer, static_cast<std::size_t>(n));
    return Io::Ready;
  }

 private:
  explicit Connection(int fd) : m_fd(fd) {}

  // The I/O helpers return a byte count > 0, or -Io (Closed, TimedOut, Cancelled).
  static long fail(Io io) { return -static_cast<long>(io); }

  long plain_write(std::string_view bytes, const Waiter& waiter) {
    for (;;) {
      ssize_t n = ::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) return n;
      if (errno == EPIPE || errno == ECONNRESET) return fail(Io::Closed);
      if (errno != EAGAIN && errno != EINTR)
        transport_error(std::string("send: ") + std::strerror(errno));
      if (Io io = waiter.wait(m_fd, POLLOUT); io != Io::Ready) return fail(io);
    }
  }

  long plain_read(char* buffer, std::size_t size, const Waiter& waiter) {
    for (;;) {
      ssize_t n = ::recv(m_fd, buffer, size, 0);
      if (n > 0) return n;
      if (n == 0 || errno == ECONNRESET) return fail(Io::Closed);
      if (errno != EAGAIN && errno != EINTR)
        transport_error(std::string("recv: ") + std::strerror(errno));
      if (Io io = waiter.wait(m_fd, POLLIN); io != Io::Ready) return fail(io);
    }
  }

  /// Runs one OpenSSL call until it makes progress, waiting for the socket as it asks.
  template <typename Call>
  long tls_io(const Waiter& waiter, Call call) {
    for (;;) {
      SigpipeBlock no_sigpipe;
      int n = call();
      if (n > 0) return n;
      switch (SSL_get_error(m_ssl, n)) {
        case SSL_ERROR_WANT_READ:
          if (Io io = waiter.wait(m_fd, POLLIN); io != Io::Ready) return fail(io);
          break;
        case SSL_ERROR_WANT_WRITE:
          if (Io io = waiter.wait(m_fd, POLLOUT); io != Io::Ready) return fail(io);
          break;
        case SSL_ERROR_ZERO_RETURN:
        case SSL_ERROR_SYSCALL:  // the peer closed or reset the connection
          ERR_clear_error();
          return fail(Io::Closed);
        default: transport_error("TLS: " + tls_errors());
      }
    }
  }

  void start_tls(const HttpEndpoint& at) {
    m_ctx = SSL_CTX_new(TLS_client_method());
    if (m_ctx == nullptr) transport_error("TLS: " + tls_errors());
    SSL_CTX_set_verify(m_ctx, SSL_VERIFY_PEER, nullptr);
    bool cas = at.cacert.empty()
                   ? SSL_CTX_set_default_verify_paths(m_ctx) == 1
                   : SSL_CTX_load_verify_locations(m_ctx, at.cacert.c_str(), nullptr) == 1;
    if (!cas) transport_error("cannot read the CA certificates " + at.cacert + ": " + tls_errors());
    if (!at.cert.empty() && SSL_CTX_use_certificate_chain_file(m_ctx, at.cert.c_str()) != 1)
      transport_error("cannot read the client certificate " + at.cert + ": " + tls_errors());
    if (!at.key.empty() &&
        SSL_CTX_use_PrivateKey_file(m_ctx, at.key.c_str(), SSL_FILETYPE_PEM) != 1)
      transport_error("cannot read the client key " + at.key + ": " + tls_errors());
    m_ssl = SSL_new(m_ctx);
    if (m_ssl == nullptr || SSL_set_fd(m_ssl, m_fd) != 1) transport_error("TLS: " + tls_errors());
    X509_VERIFY_PARAM* verify = SSL_get0_param(m_ssl);
    if (is_ip_literal(at.host)) {
      X509_VERIFY_PARAM_set1_ip_asc(verify, at.host.c_str());
    } else {
      SSL_set_tlsext_host_name(m_ssl, at.host.c_str());
      X509_VERIFY_PARAM_set1_host(verify, at.host.c_str(), 0);
    }
  }

  Io handshake(const Waiter& waiter) {
    long n = tls_io(waiter, [&] { return SSL_connect(m_ssl); });
    if (n > 0) return Io::Ready;
    if (static_cast<Io>(-n) != Io::Closed) return static_cast<Io>(-n);
    long verified = SSL_get_verify_result(m_ssl);
    transport_error("TLS handshake failed: " +
                    std::string(verified != X509_V_OK ? X509_verify_cert_error_string(verified)
                                                      : "the server closed the connection"));
  }

  int m_fd;
  SSL_CTX* m_ctx = nullptr;
  SSL* m_ssl = nullptr;
};

HttpClient::HttpClient(HttpEndpoint endpoint)
    : m_endpoint(std::move(endpoint)), m_wake_fd(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (m_wake_fd < 0)
    throw Error(ErrorCode::Internal, std::string("eventfd: ") + std::strerror(errno));
}

HttpClient::~HttpClient() {
  m_connection.reset();
  ::close(m_wake_fd);
}

void HttpClient::cancel() {
  m_cancelled = true;
  std::uint64_t one = 1;
  [[maybe_unused]] ssize_t n = ::write(m_wake_fd, &one, sizeof one);
}

void HttpClient::reset_cancel() {
  m_cancelled = false;
  std::uint64_t count = 0;
  [[maybe_unused]] ssize_t n = ::read(m_wake_fd, &count, sizeof count);
}

std::string HttpClient::wire_request(const HttpRequest& request) const {
  bool ipv6 = m_endpoint.host.find(':') != std::string::npos;
  std::string host = ipv6 ? "[" + m_endpoint.host + "]" : m_endpoint.host;
  std::string wire = std::string(request.method) + " " + std::string(request.target) +
                     " HTTP/1.1\r\nHost: " + host + ":" + std::to_string(m_endpoint.port) +
                     "\r\nUser-Agent: ejob-agent\r\nAccept: */*\r\n";
  for (const auto& [name, value] : request.headers)
    wire += std::string(name) + ": " + std::string(value) + "\r\n";
  if (!request.content_type.empty())
    wire += "Content-Type: " + std::string(request.content_type) + "\r\n";
  if (!request.body.empty() || request.method == "PUT" || request.method == "POST")
    wire += "Content-Length: " + std::to_string(request.body.size()) + "\r\n";
  wire += "\r\n";
  wire += request.body;
  return wire;
}

HttpEnd HttpClient::request(const HttpRequest& request, long timeout_ms, HttpResponse& out) {
  if (m_cancelled) return HttpEnd::Cancelled;
  std::string wire = wire_request(request);
  bool stale = false;
  HttpEnd end = exchange(wire, timeout_ms, out, stale);
  if (stale) end = exchange(wire, timeout_ms, out, stale);  // on a fresh connection
  return end;
}

/// One request over the current connection (opened first if there is none). Sets `stale`
/// when a reused connection turned out closed before any answer: the request never reached a
/// server that would act on it, and may be sent again.
HttpEnd HttpClient::exchange(const std::string& wire, long timeout_ms, HttpResponse& out,
                             bool& stale) {
  stale = false;
  Waiter waiter{m_wake_fd, m_cancelled, Clock::now() + std::chrono::milliseconds(timeout_ms)};
  if (!m_connection)
    if (Io io = Connection::open(m_endpoint, waiter, m_connection); io != Io::Ready)
      return end_of(io);
  bool reused = m_connection->used;
  m_connection->used = true;
  try {
    HttpResponseReader reader;
    Io io = m_connection->write_all(wire, waiter);
    std::string bytes;
    while (io == Io::Ready && !reader.feed(bytes)) {
      bytes.clear();
      io = m_connection->read_some(bytes, waiter);
    }
    if (io == Io::Closed && reused && !reader.started()) {
      m_connection.reset();
      stale = true;
      return HttpEnd::Complete;
    }
    if (io == Io::Closed)
      reader.finish_at_eof();
    else if (io != Io::Ready) {
      m_connection.reset();
      return end_of(io);
    }
    out = reader.take();
    if (io == Io::Closed || !out.keep_alive) m_connection.reset();
    return HttpEnd::Complete;
  } catch (...) {
    m_connection.reset();
    throw;
  }
}

}  // namespace ejob::agent
