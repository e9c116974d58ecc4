#pragma once
/// Requests to a cloud's instance metadata service (`http://169.254.169.254`, or the base URL
/// EJOB_SPOT_METADATA_URL names: a proxy, or a fake in tests), behind an interface so that the
/// watchers can be tested without a network. The real one rides on the etcd room's HTTP/1.1
/// client (no libcurl in the static agent).

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/agent/etcd/http_client.hpp"

namespace ejob::agent {

/// Where the metadata service answers when EJOB_SPOT_METADATA_URL does not say otherwise: the
/// link-local address all three clouds serve (GCE also as metadata.google.internal, which would
/// cost a DNS lookup off GCE).
inline constexpr std::string_view k_default_metadata_url = "http://169.254.169.254";

/// A parsed base URL: `http[s]://HOST[:PORT][/PREFIX]`.
struct MetadataUrl {
  std::string host;
  int port = 80;
  bool tls = false;
  std::string prefix;  ///< prepended to every path, without a trailing '/'
};

/// Parses a base URL; nullopt when it is not `http://` or `https://` with a host (IPv6 hosts
/// in brackets) and an optional port and path.
std::optional<MetadataUrl> parse_metadata_url(std::string_view text);

/// One request.
struct MetadataRequest {
  std::string method = "GET";
  std::string path;  ///< path and query, from the service's root
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::string content_type;
  long timeout_ms = 2000;  ///< the whole exchange, connecting included
};

/// How a request ended.
enum class MetadataEnd {
  Answered,     ///< `status` and `body` are the service's answer
  Unreachable,  ///< no connection, or what came back was not HTTP (`why` says which)
  TimedOut,     ///< no whole answer within the request's timeout
  Cancelled,    ///< cancel() was called
};

/// The outcome of one request.
struct MetadataReply {
  MetadataEnd end = MetadataEnd::Answered;
  int status = 0;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased
  std::string why;                                           ///< for Unreachable

  /// The first header of this lower-case name, or nullptr.
  [[nodiscard]] const std::string* header(std::string_view name) const;
  [[nodiscard]] bool answered(int wanted) const {
    return end == MetadataEnd::Answered && status == wanted;
  }
  /// A short description for messages: `HTTP 404`, `timed out`, the transport failure.
  [[nodiscard]] std::string describe() const;
};

/// The metadata service as the watchers see it. One thread sends; another may cancel().
class MetadataHttp {
 public:
  virtual ~MetadataHttp() = default;
  virtual MetadataReply send(const MetadataRequest& request) = 0;
  /// Ends the running request (and every later one) as Cancelled.
  virtual void cancel() = 0;
  /// Where requests go, for messages.
  [[nodiscard]] virtual std::string where() const = 0;
};

/// The real service over HttpClient. A connection is given up after `connect_timeout_ms`: the
/// link-local service answers within milliseconds where it exists, and off a cloud nothing may
/// answer at all.
class HttpMetadata : public MetadataHttp {
 public:
  HttpMetadata(MetadataUrl url, long connect_timeout_ms);
  MetadataReply send(const MetadataRequest& request) override;
  void cancel() override { m_http.cancel(); }
  [[nodiscard]] std::string where() const override;

 private:
  MetadataUrl m_url;
  HttpClient m_http;
};

}  // namespace ejob::agent
