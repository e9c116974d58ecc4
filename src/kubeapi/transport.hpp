#pragma once
/// HTTP to one API server over libcurl: TLS from the RestConfig (certificates and keys handed
/// to curl as memory blobs, never files), connection reuse (a pool of easy handles sharing one
/// connection cache, TLS session cache and DNS cache), HTTP/2 where the server offers it (ALPN),
/// connect and request timeouts, and retries with jittered exponential backoff:
/// - 429 is retried for every request (the server did not process it), honouring Retry-After;
/// - 500/502/503/504 and connection failures are retried only for Retry::Idempotent requests;
///   a request that may have been processed (POST) is never sent twice by this layer;
/// - curl itself sends a request once more when a kept-alive connection turns out closed before
///   any byte of the answer arrived; callers of POST therefore treat AlreadyExists as "maybe
///   ours" (submit checks ownership);
/// - a 401 is retried once after Credentials::refresh() (exec plugin re-run, token re-read).
/// No curl type appears in this header. Nothing logged here contains a header or a body.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "src/kubeapi/credentials.hpp"
#include "src/kubeapi/kubeconfig.hpp"
#include "src/util/error.hpp"

namespace ejob::kubeapi {

enum class Method { Get, Post, Put, Patch, Delete };

/// Which failures may be retried.
enum class Retry {
  Idempotent,   ///< 429, 5xx and connection errors
  Unprocessed,  ///< only what the server certainly did not process: 429, failed connects
};

struct Request {
  Method method = Method::Get;
  std::string target;  ///< path and query, starting with '/'
  std::string body;
  std::string content_type;
  std::string accept = "application/json";
  Retry retry = Retry::Idempotent;
  /// Streams only: when it turns true the stream ends as if the server had ended it (curl
  /// looks at it about once a second while no data comes).
  const std::atomic<bool>* cancel = nullptr;
  /// Streams only: fail (Transport) when nothing at all arrives for this long (0: never). A
  /// watch sets it past the timeout it asked the server for, by when a live server has ended
  /// the stream: a hung one leaves it open and silent.
  std::chrono::seconds stall_limit{0};
};

/// The HTTP version an answer came over (ALPN decides between 1.1 and 2 on TLS).
enum class HttpVersion { Unknown, Http1_0, Http1_1, Http2, Http3 };

struct Response {
  long status = 0;
  std::string body;
  HttpVersion version = HttpVersion::Unknown;
};

struct TransportOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  std::chrono::milliseconds request_timeout{60'000};  ///< not applied to streams
  int max_attempts = 6;
  std::chrono::milliseconds backoff_base{100};
  std::chrono::milliseconds backoff_cap{3'000};
  std::chrono::seconds retry_after_cap{10};
  /// Receives one line per attempt (method, URL, status, time) for --debug; may be empty.
  std::function<void(const std::string&)> debug;
  /// Receives one line before each wait for a retry (what failed, how long the wait is), so
  /// that a user knows why nothing seems to happen; may be empty.
  std::function<void(const std::string&)> on_retry;
};

/// Receives streamed body bytes; returns false to stop the stream.
using Sink = std::function<bool(std::string_view)>;

/// A connection to the API server made as for a request — TCP, the proxy-url tunnel (HTTP
/// CONNECT), TLS with the cluster's CA, tls-server-name and client certificate — on which the
/// caller speaks HTTP/1.1 itself (the WebSocket upgrade). Non-blocking; one thread at a time.
class RawConnection {
 public:
  ~RawConnection();
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  /// The head of a request to `target` (path and query on the API server, as for
  /// Request::target): request line, Host, User-Agent and the credentials' Authorization,
  /// each line ending in CRLF; the caller adds its own header lines and the empty line.
  [[nodiscard]] std::string request_head(std::string_view method, std::string_view target) const;
  /// Sends what the connection takes now of `bytes`; 0 when it takes nothing (poll socket()
  /// for writing). Throws ejob::Error(Transport) when the connection failed.
  std::size_t send(std::string_view bytes);
  /// Receives what has arrived, up to `size` bytes: their count, 0 at the end of the
  /// connection, -1 when nothing is there yet (poll socket() for reading). Throws
  /// ejob::Error(Transport) when the connection failed.
  long receive(char* buffer, std::size_t size);
  /// The socket, for poll().
  [[nodiscard]] int socket() const;

 private:
  friend class Transport;
  struct Impl;
  explicit RawConnection(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// A request that failed on the way (ErrorCode::Transport). `sent()` says whether any of it
/// reached the server: false after a refused connection, an unresolved name or a connection
/// (TCP, TLS) not made in time, so that a create that failed so certainly made nothing.
class TransportError : public Error {
 public:
  TransportError(std::string message, bool sent)
      : Error(ErrorCode::Transport, std::move(message)), m_sent(sent) {}
  [[nodiscard]] bool sent() const { return m_sent; }

 private:
  bool m_sent;
};

class Transport {
 public:
  Transport(RestConfig cfg, TransportOptions options, Terminal terminal = Terminal::No);
  ~Transport();
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  /// Sends a request and returns the final response, whatever its status. Throws
  /// ejob::Error(Transport) when the server cannot be reached (after retries, where allowed),
  /// or Auth when credentials cannot be obtained.
  Response send(const Request& request);

  /// Sends a request whose 2xx body is streamed to `sink` without a request timeout. Retries
  /// as send() does until the first byte reached the sink. Returns the status; a non-2xx body
  /// is returned in `error_body` instead. Throws like send(), and ejob::Error(Transport) when
  /// the stream breaks before the server ended it.
  long stream(const Request& request, const Sink& sink, std::string& error_body);

  /// Opens a RawConnection for a request to `target` with the current credentials, within
  /// `timeout`. Throws ejob::Error(Transport) when the server cannot be reached or the TLS
  /// handshake fails (messages as send()'s), Auth when credentials cannot be obtained. Not
  /// retried: the caller knows whether its protocol may be.
  std::unique_ptr<RawConnection> connect(const std::string& target,
                                         std::chrono::milliseconds timeout);

  [[nodiscard]] const RestConfig& config() const;
  /// How long one request may take, its retries included (0: no limit).
  [[nodiscard]] std::chrono::milliseconds request_timeout() const;
  /// Requests sent so far (attempts, retries included).
  [[nodiscard]] long requests_sent() const;
  /// The credentials (tests look at the exec plugin's run count).
  [[nodiscard]] Credentials& credentials();

 private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

/// The method's name on the wire.
std::string_view method_name(Method method);

}  // namespace ejob::kubeapi
