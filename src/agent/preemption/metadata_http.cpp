#include "src/agent/preemption/metadata_http.hpp"

#include <cctype>
#include <charconv>

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// Splits `HOST[:PORT]` (`[v6]:PORT` for IPv6); false when malformed.
bool split_authority(std::string_view authority, MetadataUrl& url) {
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return false;
    url.host = std::string(authority.substr(1, close - 1));
    std::string_view rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return false;
    if (!rest.empty()) port = rest.substr(1);
  } else {
    std::size_t colon = authority.find(':');
    url.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) return false;
  if (port.empty()) return true;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), url.port);
  return ec == std::errc() && end == port.data() + port.size() && url.port > 0 && url.port < 65536;
}

HttpEndpoint endpoint_of(const MetadataUrl& url, long connect_timeout_ms) {
  HttpEndpoint at;
  at.host = url.host;
  at.port = url.port;
  at.tls = url.tls;
  at.connect_timeout_ms = connect_timeout_ms;
  return at;
}

}  // namespace

std::optional<MetadataUrl> parse_metadata_url(std::string_view text) {
  MetadataUrl url;
  if (text.rfind("http://", 0) == 0) {
    text.remove_prefix(7);
  } else if (text.rfind("https://", 0) == 0) {
    text.remove_prefix(8);
    url.tls = true;
    url.port = 443;
  } else {
    return std::nullopt;
  }
  std::size_t slash = text.find('/');
  if (!split_authority(text.substr(0, slash), url)) return std::nullopt;
  if (slash != std::string_view::npos) url.prefix = std::string(text.substr(slash));
  while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  return url;
}

const std::string* MetadataReply::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return &value;
  return nullptr;
}

std::string MetadataReply::describe() const {
  switch (end) {
    case MetadataEnd::Answered: return "HTTP " + std::to_string(status);
    case MetadataEnd::TimedOut: return "timed out";
    case MetadataEnd::Cancelled: return "cancelled";
    case MetadataEnd::Unreachable: return why;
  }
  return why;
}

HttpMetadata::HttpMetadata(MetadataUrl url, long connect_timeout_ms)
    : m_url(std::move(url)), m_http(endpoint_of(m_url, connect_timeout_ms)) {}

std::string HttpMetadata::where() const {
  bool v6 = m_url.host.find(':') != std::string::npos;
  return std::string(m_url.tls ? "https://" : "http://") + (v6 ? "[" : "") + m_url.host +
         (v6 ? "]" : "") + ":" + std::to_string(m_url.port) + m_url.prefix;
}

MetadataReply HttpMetadata::send(const MetadataRequest& request) {
  std::string target = m_url.prefix + request.path;
  HttpRequest http;
  http.method = request.method;
  http.target = target;
  http.content_type = request.content_type;
  http.body = request.body;
  for (const auto& [name, value] : request.headers) http.headers.emplace_back(name, value);
  MetadataReply reply;
  try {
    HttpResponse response;
    HttpEnd end = m_http.request(http, request.timeout_ms, response);
    if (end == HttpEnd::TimedOut) reply.end = MetadataEnd::TimedOut;
    if (end == HttpEnd::Cancelled) reply.end = MetadataEnd::Cancelled;
    reply.status = response.status;
    reply.body = std::move(response.body);
    reply.headers = std::move(response.headers);
  } catch (const Error& e) {
    reply.end = MetadataEnd::Unreachable;
    reply.why = e.message();
  }
  return reply;
}

}  // namespace ejob::agent
