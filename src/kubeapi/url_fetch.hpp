#pragma once
/// One GET of an http(s) document, as Helm v3.21.4's HTTPURLLoader (pkg/chartutil/jsonschema.go)
/// fetches the `$ref`/`$schema` documents a values.schema.json names: an http.Client with a 15 s
/// timeout, proxies from the environment (http.ProxyFromEnvironment), the system's CA store, and
/// Go's default redirect policy. Independent of the API server's Transport: no credentials, no
/// retries, a fresh connection per call. No curl type appears in this header.

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>

#include "src/kubeapi/kubeconfig.hpp"

namespace ejob::kubeapi {

struct UrlFetchOptions {
  /// The whole exchange, redirects and body included (Helm's http.Client.Timeout).
  std::chrono::milliseconds timeout{15'000};
  /// Go reads any size; ejob stops at this many bytes of body rather than filling the memory.
  std::size_t max_body = std::size_t{64} << 20;
  /// HTTP_PROXY, HTTPS_PROXY, NO_PROXY (either case), REQUEST_METHOD, SSL_CERT_FILE and
  /// SSL_CERT_DIR are read from here; none: the process's environment.
  std::optional<Environment> env;
};

/// The body of the 200 answer to GET `url`, after Go's redirect policy (301, 302, 303, 307 and
/// 308 with a Location are followed; the 10th redirect fails). Anything else throws
/// std::runtime_error with the text Helm's loader returns:
///   `HTTP request to URL returned status 404 (Not Found)` (the final answer's status),
///   `HTTP request failed for URL: Get "URL2": WHY` (URL2: the request that failed),
///   `failed to create HTTP request for URL: ...` (a URL that does not parse),
///   `context deadline exceeded (Client.Timeout or context cancellation while reading body)`
///   or `unexpected EOF` (time ran out, or the connection ended, after a 200's head: the body's
///   read error, which Helm's loader returns unwrapped).
/// WHY is Go's text where ejob can know it (connection refused, unknown host, timeouts,
/// redirects, an untrusted certificate, a proxy in a CGI environment) and curl's description
/// otherwise (url_fetch.cpp).
std::string fetch_url(const std::string& url, const UrlFetchOptions& options = {});

/// Go's http.StatusText: the reason of a status code Go knows, "" for the others.
std::string go_status_text(long code);

}  // namespace ejob::kubeapi
