#pragma once
/// A small HTTP/1.1 client for one server, plain or TLS (OpenSSL), over one keep-alive
/// connection, with a deadline per request and cancellation from another thread. It is what
/// the agent needs to talk to etcd, written here rather than taken from libcurl so that
/// ejob-agent links statically and runs in other people's images (libcurl's ~30 shared
/// libraries and their glibc versions are not there).

#include <atomic>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/agent/etcd/http_response.hpp"

namespace ejob::agent {

/// Where and how to connect.
struct HttpEndpoint {
  std::string host = "localhost";
  int port = 80;
  bool tls = false;
  std::string cacert, cert, key;  ///< TLS files; empty = system CAs / no client certificate
  long connect_timeout_ms = 5000;
};

/// One request.
struct HttpRequest {
  std::string_view method = "GET";
  std::string_view target = "/";  ///< path and query
  std::string_view content_type;  ///< empty = no Content-Type header
  std::string_view body;
  /// Further headers (`Metadata: true` for a cloud's metadata service); none by default.
  std::vector<std::pair<std::string_view, std::string_view>> headers;
};

/// How a request ended, apart from the transport failures that throw.
enum class HttpEnd {
  Complete,   ///< the response is in `out`
  TimedOut,   ///< the deadline passed first
  Cancelled,  ///< cancel() was called
};

/// The client. One thread makes requests; any other may call cancel(). Throws
/// ejob::Error(Transport) when the server cannot be reached, TLS fails, or the answer is not
/// HTTP; the message says what happened (not where: the caller names the endpoint).
class HttpClient {
 public:
  explicit HttpClient(HttpEndpoint endpoint);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  /// Sends the request and reads the whole response within `timeout_ms` (connecting
  /// included). A kept-alive connection that the server closed meanwhile is replaced once.
  HttpEnd request(const HttpRequest& request, long timeout_ms, HttpResponse& out);
  /// Makes the running request (and any later one) end as Cancelled.
  void cancel();
  /// Clears a previous cancel().
  void reset_cancel();

 private:
  class Connection;
  HttpEnd exchange(const std::string& wire, long timeout_ms, HttpResponse& out, bool& stale);
  [[nodiscard]] std::string wire_request(const HttpRequest& request) const;

  HttpEndpoint m_endpoint;
  std::unique_ptr<Connection> m_connection;
  int m_wake_fd = -1;  ///< an eventfd that cancel() makes readable
  std::atomic<bool> m_cancelled{false};
};

}  // namespace ejob::agent
