#include "src/kubeapi/url_fetch.hpp"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <openssl/x509_vfy.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string_view>

#include "src/kubeapi/user_agent.hpp"

namespace ejob::kubeapi {
namespace {

using Clock = std::chrono::steady_clock;

/// curl_global_init once per process before the first handle (curl counts its callers, so this
/// and the Transport's may both init and clean up).
void ensure_global() {
  struct Global {
    Global() { curl_global_init(CURL_GLOBAL_DEFAULT); }
    ~Global() { curl_global_cleanup(); }
  };
  static const Global global;
}

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using UrlPtr = std::unique_ptr<CURLU, UrlDeleter>;

/// A part of a parsed URL ("" when absent).
std::string url_part(CURLU* u, CURLUPart part, unsigned flags = 0) {
  char* text = nullptr;
  if (curl_url_get(u, part, &text, flags) != CURLUE_OK || text == nullptr) return "";
  std::string out = text;
  curl_free(text);
  return out;
}

struct UrlParts {
  std::string scheme;  ///< lower case
  std::string host;    ///< as written; IPv6 in brackets
  std::string port;    ///< the scheme's default when absent
};

/// Parses an absolute URL; throws std::runtime_error(curl's reason) when it does not parse.
UrlParts parse_url(const std::string& url) {
  const UrlPtr u(curl_url());
  const CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0);
  if (rc != CURLUE_OK) throw std::runtime_error(curl_url_strerror(rc));
  return {url_part(u.get(), CURLUPART_SCHEME), url_part(u.get(), CURLUPART_HOST),
          url_part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT)};
}

/// `location` resolved against `base` (Go's req.URL.Parse(loc)); throws std::runtime_error(why).
std::string resolve(const std::string& base, const std::string& location) {
  const UrlPtr u(curl_url());
  curl_url_set(u.get(), CURLUPART_URL, base.c_str(), 0);
  const CURLUcode rc = curl_url_set(u.get(), CURLUPART_URL, location.c_str(), 0);
  if (rc != CURLUE_OK) throw std::runtime_error(curl_url_strerror(rc));
  return url_part(u.get(), CURLUPART_URL);
}

/// The URL as Go's errors show it: a password replaced by *** (client.go stripPassword).
std::string shown_url(const std::string& url) {
  const std::size_t start = url.find("://");
  if (start == std::string::npos) return url;
  const std::size_t at = url.find('@', start + 3);
  const std::size_t slash = url.find('/', start + 3);
  if (at == std::string::npos || (slash != std::string::npos && slash < at)) return url;
  const std::size_t colon = url.find(':', start + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

/// Go's getEnvAny: the first of the variables that is set and not empty.
std::string env_any(const Environment& env, std::initializer_list<const char*> names) {
  for (const char* name : names)
    if (auto v = env.get(name); v && !v->empty()) return *v;
  return "";
}

/// Go's useProxy exceptions before NO_PROXY: "localhost" and loopback addresses.
bool is_loopback(std::string host) {
  std::transform(host.begin(), host.end(), host.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (host == "localhost") return true;
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  unsigned char a[16];
  if (inet_pton(AF_INET, host.c_str(), a) == 1) return a[0] == 127;
  static const unsigned char v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  static const unsigned char v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (inet_pton(AF_INET6, host.c_str(), a) != 1) return false;
  return std::memcmp(a, v6_loopback, 16) == 0 ||
         (std::memcmp(a, v4_mapped, 12) == 0 && a[12] == 127);
}

/// The proxy of one request as Go's http.ProxyFromEnvironment picks it (x/net/http/httpproxy).
/// curl reads only lower-case http_proxy and adds ALL_PROXY and its own loopback rules, so ejob
/// decides instead and hands curl the answer (an empty CURLOPT_PROXY: none). NO_PROXY's entries
/// are matched by curl (names with their subdomains, IPs, CIDRs, "*"); unlike Go, curl does not
/// read a `:port` in an entry, and ".example.com" matches example.com itself too.
struct ProxyChoice {
  std::string proxy;     ///< "" for none
  std::string no_proxy;  ///< NO_PROXY or no_proxy
  std::string refusal;   ///< Go's error when a proxy may not be used (CGI)
};

ProxyChoice choose_proxy(const UrlParts& url, const Environment& env) {
  ProxyChoice c;
  c.no_proxy = env_any(env, {"NO_PROXY", "no_proxy"});
  const bool https = url.scheme == "https";
  std::string proxy = https ? env_any(env, {"HTTPS_PROXY", "https_proxy"})
                            : env_any(env, {"HTTP_PROXY", "http_proxy"});
  if (proxy.empty()) return c;
  if (!https && !env_any(env, {"REQUEST_METHOD"}).empty()) {
    c.refusal =
        "refusing to use HTTP_PROXY value in CGI environment; see golang.org/s/cgihttpproxy";
    return c;
  }
  if (is_loopback(url.host)) return c;
  // Go's socks5 proxy is given the host name to resolve, which curl calls socks5h.
  if (proxy.rfind("socks5://", 0) == 0) proxy.insert(6, "h");
  c.proxy = proxy;
  return c;
}

// net/http's StatusText: every code from 100 to 599 it names, the same in Go 1.19 and 1.24
// (compared with Go 1.24's output; newer Go changed the constants' RFC references only).
const std::pair<long, const char*> k_status_texts[] = {
    {100, "Continue"},
    {101, "Switching Protocols"},
    {102, "Processing"},
    {103, "Early Hints"},
    {200, "OK"},
    {201, "Created"},
    {202, "Accepted"},
    {203, "Non-Authoritative Information"},
    {204, "No Content"},
    {205, "Reset Content"},
    {206, "Partial Content"},
    {207, "Multi-Status"},
    {208, "Already Reported"},
    {226, "IM Used"},
    {300, "Multiple Choices"},
    {301, "Moved Permanently"},
    {302, "Found"},
    {303, "See Other"},
    {304, "Not Modified"},
    {305, "Use Proxy"},
    {307, "Temporary Redirect"},
    {308, "Permanent Redirect"},
    {400, "Bad Request"},
    {401, "Unauthorized"},
    {402, "Payment Required"},
    {403, "Forbidden"},
    {404, "Not Found"},
    {405, "Method Not Allowed"},
    {406, "Not Acceptable"},
    {407, "Proxy Authentication Required"},
    {408, "Request Timeout"},
    {409, "Conflict"},
    {410, "Gone"},
    {411, "Length Required"},
    {412, "Precondition Failed"},
    {413, "Request Entity Too Large"},
    {414, "Request URI Too Long"},
    {415, "Unsupported Media Type"},
    {416, "Requested Range Not Satisfiable"},
    {417, "Expectation Failed"},
    {418, "I'm a teapot"},
    {421, "Misdirected Request"},
    {422, "Unprocessable Entity"},
    {423, "Locked"},
    {424, "Failed Dependency"},
    {425, "Too Early"},
    {426, "Upgrade Required"},
    {428, "Precondition Required"},
    {429, "Too Many Requests"},
    {431, "Request Header Fields Too Large"},
    {451, "Unavailable For Legal Reasons"},
    {500, "Internal Server Error"},
    {501, "Not Implemented"},
    {502, "Bad Gateway"},
    {503, "Service Unavailable"},
    {504, "Gateway Timeout"},
    {505, "HTTP Version Not Supported"},
    {506, "Variant Also Negotiates"},
    {507, "Insufficient Storage"},
    {508, "Loop Detected"},
    {510, "Not Extended"},
    {511, "Network Authentication Required"},
};

/// One request and what came back of it.
struct Hop {
  std::size_t max_body = 0;
  long status = 0;       ///< of the final answer's head; 0: no answer
  std::string location;  ///< its first Location header
  std::string body;      ///< a 200's body
  bool too_big = false;  ///< the body passed max_body
  CURLcode rc = CURLE_OK;
  long os_errno = 0;
  curl_off_t connect_us = 0;  ///< 0: no connection was made
  long verify_result = 0;     ///< OpenSSL's X509_V_ERR_* of the server's certificate
  char error[CURL_ERROR_SIZE] = "";
};

bool starts_with_ci(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), text.begin(), [](char a, char b) {
           return std::tolower(static_cast<unsigned char>(a)) ==
                  std::tolower(static_cast<unsigned char>(b));
         });
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

/// Reads the status and Location of each head; at the end of a final head other than 200 it
/// stops the transfer, as Go returns the response without reading its body.
size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* hop = static_cast<Hop*>(user);
  const std::string_view line(data, size * count);
  if (starts_with_ci(line, "HTTP/")) {
    const std::size_t space = line.find(' ');
    hop->status = space == std::string_view::npos ? 0 : std::atol(line.data() + space + 1);
    hop->location.clear();
  } else if (starts_with_ci(line, "location:") && hop->location.empty()) {
    hop->location = trimmed(line.substr(9));
  } else if (trimmed(line).empty() && hop->status >= 200 && hop->status != 200) {
    return 0;  // CURLE_WRITE_ERROR; status says why
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* hop = static_cast<Hop*>(user);
  const std::size_t n = size * count;
  if (hop->body.size() + n > hop->max_body) {
    hop->too_big = true;
    return 0;
  }
  hop->body.append(data, n);
  return n;
}

struct EasyDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

/// The request as Go's Transport sends it: HTTP/1.1 (Helm sets a TLSClientConfig, which turns
/// Go's automatic HTTP/2 off), Accept-Encoding: gzip (decoded), no Accept header. The
/// User-Agent is ejob's own (user_agent.hpp), not Helm's `Helm/3.21.4`: ejob is not Helm, and
/// no schema host is known to answer by it.
void set_request(CURL* h, const std::string& url, curl_slist* headers, Hop& hop) {
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_HTTP_VERSION, long{CURL_HTTP_VERSION_1_1});
  curl_easy_setopt(h, CURLOPT_USERAGENT, k_user_agent);
  curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "gzip");
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, hop.error);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &hop);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &hop);
}

/// Proxy and trust: Go reads SSL_CERT_FILE and SSL_CERT_DIR (crypto/x509) in place of the
/// system's bundle and directories; otherwise both use the system CA store.
void set_network(CURL* h, const ProxyChoice& proxy, const Environment& env) {
  curl_easy_setopt(h, CURLOPT_PROXY, proxy.proxy.c_str());
  curl_easy_setopt(h, CURLOPT_NOPROXY, proxy.no_proxy.c_str());
  curl_easy_setopt(h, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);
  const std::string file = env_any(env, {"SSL_CERT_FILE"});
  if (!file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, file.c_str());
  const std::string dir = env_any(env, {"SSL_CERT_DIR"});
  if (!dir.empty()) curl_easy_setopt(h, CURLOPT_CAPATH, dir.c_str());
}

Hop send_one(const std::string& url, const ProxyChoice& proxy, const Environment& env,
             std::chrono::milliseconds left, std::size_t max_body) {
  Hop hop;
  hop.max_body = max_body;
  const std::unique_ptr<CURL, EasyDeleter> h(curl_easy_init());
  if (!h) throw std::runtime_error("cannot make a curl handle");
  const std::unique_ptr<curl_slist, SlistDeleter> headers(curl_slist_append(nullptr, "Accept:"));
  set_request(h.get(), url, headers.get(), hop);
  set_network(h.get(), proxy, env);
  curl_easy_setopt(h.get(), CURLOPT_TIMEOUT_MS, std::max<long>(1, left.count()));
  hop.rc = curl_easy_perform(h.get());
  curl_easy_getinfo(h.get(), CURLINFO_OS_ERRNO, &hop.os_errno);
  curl_easy_getinfo(h.get(), CURLINFO_CONNECT_TIME_T, &hop.connect_us);
  curl_easy_getinfo(h.get(), CURLINFO_SSL_VERIFYRESULT, &hop.verify_result);
  return hop;
}

/// Go's net.Dialer error prefix for the connection this request makes: to the proxy when there
/// is one (`proxyconnect tcp: `). Go names the address it dialled, ejob the URL's host (the
/// same for an IP address).
std::string dial_prefix(const UrlParts& url, const ProxyChoice& proxy) {
  if (proxy.proxy.empty()) return "dial tcp " + url.host + ":" + url.port;
  const std::string with_scheme =
      proxy.proxy.find("://") == std::string::npos ? "http://" + proxy.proxy : proxy.proxy;
  try {
    const UrlParts p = parse_url(with_scheme);
    return "proxyconnect tcp: dial tcp " + p.host + ":" + p.port;
  } catch (const std::runtime_error&) {
    return "proxyconnect tcp: dial tcp " + proxy.proxy;
  }
}

/// Go's text for an errno (syscall's table: strerror with a lower-case first letter).
std::string errno_text(long os_errno) {
  std::string text = std::strerror(static_cast<int>(os_errno));
  if (!text.empty()) text[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(text[0])));
  return text;
}

/// Whether OpenSSL found no trusted issuer for the server's chain (Go's UnknownAuthorityError).
bool unknown_authority(long verify_result) {
  return verify_result == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT ||
         verify_result == X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT ||
         verify_result == X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN ||
         verify_result == X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY ||
         verify_result == X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE;
}

/// Why a request failed, in Go's words where ejob knows them, else curl's (its error buffer).
/// The Go texts were checked against Helm's loader code built with Go 1.24, run on the cases of
/// url_fetch_test.cpp. One differs knowingly: Go's own resolver (Helm's release builds) names
/// the DNS server, `lookup HOST on 10.0.0.2:53: no such host`, which curl does not report.
std::string failure_reason(const Hop& hop, const UrlParts& url, const ProxyChoice& proxy) {
  const std::string dial = dial_prefix(url, proxy);
  switch (hop.rc) {
    case CURLE_OPERATION_TIMEDOUT:
      return (hop.connect_us == 0 ? dial + ": i/o timeout" : "context deadline exceeded") +
             std::string(" (Client.Timeout exceeded while awaiting headers)");
    case CURLE_COULDNT_CONNECT:
      if (hop.os_errno != 0) return dial + ": connect: " + errno_text(hop.os_errno);
      break;
    case CURLE_COULDNT_RESOLVE_HOST: return "dial tcp: lookup " + url.host + ": no such host";
    case CURLE_GOT_NOTHING: return "EOF";  // closed before an answer
    case CURLE_PEER_FAILED_VERIFICATION:
      if (unknown_authority(hop.verify_result))
        return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
      break;
    default: break;
  }
  return hop.error[0] != '\0' ? hop.error : curl_easy_strerror(hop.rc);
}

std::runtime_error request_failed(const std::string& url, const std::string& hop_url,
                                  const std::string& why) {
  return std::runtime_error("HTTP request failed for " + url + ": Get \"" + shown_url(hop_url) +
                            "\": " + why);
}

bool is_redirect(long status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

struct Deadline {
  Clock::time_point at;
  [[nodiscard]] std::chrono::milliseconds left() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(at - Clock::now());
  }
};

/// After a 200's head, Go's loader returns the body's read error as it is: the deadline, or the
/// connection ending before the body did (encoding/json's io.ErrUnexpectedEOF).
void body_failed(const Hop& hop) {
  if (hop.rc == CURLE_OPERATION_TIMEDOUT)
    throw std::runtime_error(
        "context deadline exceeded (Client.Timeout or context cancellation while reading body)");
  if (hop.rc == CURLE_PARTIAL_FILE) throw std::runtime_error("unexpected EOF");
}

/// One request of the chain: the answer's status (its body in `body` for a 200) or a throw.
Hop request(const std::string& url, const std::string& hop_url, const UrlFetchOptions& options,
            const Environment& env, const Deadline& deadline) {
  const UrlParts parts = parse_url(hop_url);
  if (parts.scheme != "http" && parts.scheme != "https")
    throw request_failed(url, hop_url, "unsupported protocol scheme \"" + parts.scheme + "\"");
  const ProxyChoice proxy = choose_proxy(parts, env);
  if (!proxy.refusal.empty()) throw request_failed(url, hop_url, proxy.refusal);
  Hop hop = send_one(hop_url, proxy, env, deadline.left(), options.max_body);
  if (hop.too_big)
    throw request_failed(url, hop_url,
                         "the body is larger than " + std::to_string(options.max_body >> 20) +
                             " MiB, as much as ejob reads of a schema document");
  const bool stopped_at_head = hop.rc == CURLE_WRITE_ERROR && hop.status != 200;
  if (hop.rc == CURLE_OK || stopped_at_head) return hop;
  if (hop.status == 200) body_failed(hop);
  throw request_failed(url, hop_url, failure_reason(hop, parts, proxy));
}

/// The next URL of a redirect; Go's errors when there may be none.
std::string next_url(const std::string& url, const std::string& hop_url, const Hop& hop, int sent) {
  // defaultCheckRedirect: the 10th redirect fails, named by its Location as written.
  if (sent >= 10) throw request_failed(url, hop.location, "stopped after 10 redirects");
  try {
    return resolve(hop_url, hop.location);
  } catch (const std::runtime_error& e) {
    throw request_failed(url, hop_url,
                         "failed to parse Location header \"" + hop.location + "\": " + e.what());
  }
}

}  // namespace

std::string fetch_url(const std::string& url, const UrlFetchOptions& options) {
  ensure_global();
  try {
    parse_url(url);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("failed to create HTTP request for " + url + ": parse \"" + url +
                             "\": " + e.what());
  }
  const Environment env = options.env ? *options.env : Environment::from_process();
  const Deadline deadline{Clock::now() + options.timeout};
  std::string hop_url = url;
  for (int sent = 1;; ++sent) {
    Hop hop = request(url, hop_url, options, env, deadline);
    if (is_redirect(hop.status) && !hop.location.empty()) {
      hop_url = next_url(url, hop_url, hop, sent);
      continue;
    }
    if (hop.status != 200)
      throw std::runtime_error("HTTP request to " + url + " returned status " +
                               std::to_string(hop.status) + " (" + go_status_text(hop.status) +
                               ")");
    return std::move(hop.body);
  }
}

std::string go_status_text(long code) {
  for (const auto& [known, text] : k_status_texts)
    if (known == code) return text;
  return "";
}

}  // namespace ejob::kubeapi
