#include "src/kubeapi/transport.hpp"

#include <curl/curl.h>

#include <atomic>
#include <exception>
#include <future>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "src/kubeapi/tls_material.hpp"
#include "src/kubeapi/user_agent.hpp"
#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

using Clock = std::chrono::steady_clock;

/// curl_global_init once per process, before the first handle (C++ makes the static's
/// construction thread-safe); cleanup at exit.
struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
  ~CurlGlobal() { curl_global_cleanup(); }
  CurlGlobal(const CurlGlobal&) = delete;
  CurlGlobal& operator=(const CurlGlobal&) = delete;
};

void ensure_global() { static CurlGlobal global; }

struct EasyDeleter {
  void operator()(CURL* h) const { curl_easy_cleanup(h); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};
struct ShareDeleter {
  void operator()(CURLSH* s) const { curl_share_cleanup(s); }
};
using EasyPtr = std::unique_ptr<CURL, EasyDeleter>;
using SharePtr = std::unique_ptr<CURLSH, ShareDeleter>;

/// Locks for the share handle: one mutex per kind of shared data.
struct ShareLocks {
  std::mutex m[CURL_LOCK_DATA_LAST];
};

void share_lock(CURL*, curl_lock_data data, curl_lock_access, void* user) {
  static_cast<ShareLocks*>(user)->m[data].lock();
}

void share_unlock(CURL*, curl_lock_data data, void* user) {
  static_cast<ShareLocks*>(user)->m[data].unlock();
}
using SlistPtr = std::unique_ptr<curl_slist, SlistDeleter>;

}  // namespace

struct RawConnection::Impl {
  EasyPtr easy;  ///< owns the connection
  int sock = -1;
  std::string server;  ///< for messages
  std::string host_header;
  std::string path_prefix;
  std::string authorization;
};

namespace {

/// The outcome of one attempt.
struct Attempt {
  CURLcode curl = CURLE_OK;
  std::string curl_error;
  long status = 0;
  std::string body;           ///< the whole body, or the error body of a stream
  long retry_after = -1;      ///< seconds, -1 when absent
  long http_version = 0;      ///< CURLINFO_HTTP_VERSION
  bool delivered = false;     ///< bytes reached the sink
  bool stopped = false;       ///< the sink or the request's cancel flag asked to stop
  std::exception_ptr thrown;  ///< what the sink threw (never let through curl's C frames)
  std::string tls_error;      ///< why the TLS material could not be installed
  bool sent = false;          ///< request bytes went out (CURLINFO_REQUEST_SIZE)
};

/// State the curl callbacks of one attempt share.
struct CallbackState {
  CURL* handle;
  Attempt* attempt;
  const Sink* sink;
  TlsMaterial* tls;
  const AuthMaterial* auth;
  const std::atomic<bool>* cancel;
};

/// CURLOPT_SSL_CTX_FUNCTION: the CAs and client pair parsed once go into curl's new SSL_CTX.
CURLcode on_ssl_ctx(CURL*, void* ssl_ctx, void* user) {
  auto* st = static_cast<CallbackState*>(user);
  st->attempt->tls_error =
      st->tls->install(ssl_ctx, st->auth->client_cert_pem, st->auth->client_key_pem);
  return st->attempt->tls_error.empty() ? CURLE_OK : CURLE_SSL_CERTPROBLEM;
}

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<CallbackState*>(user);
  std::string_view line(data, size * n);
  constexpr std::string_view k_name = "retry-after:";
  if (line.size() > k_name.size()) {
    std::string lower(line.substr(0, k_name.size()));
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == k_name) {
      try {
        st->attempt->retry_after = std::stol(std::string(line.substr(k_name.size())));
      } catch (const std::exception&) {
        st->attempt->retry_after = -1;  // an HTTP date; the backoff applies instead
      }
    }
  }
  return size * n;
}

/// CURLOPT_XFERINFOFUNCTION of a cancellable stream: non-zero ends the transfer.
int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* st = static_cast<CallbackState*>(user);
  if (!st->cancel->load()) return 0;
  st->attempt->stopped = true;
  return 1;  // makes curl stop with CURLE_ABORTED_BY_CALLBACK
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* st = static_cast<CallbackState*>(user);
  const size_t len = size * n;
  long status = 0;
  curl_easy_getinfo(st->handle, CURLINFO_RESPONSE_CODE, &status);
  if (st->sink && status >= 200 && status < 300) {
    st->attempt->delivered = true;
    bool more = false;
    try {
      more = (*st->sink)(std::string_view(data, len));
    } catch (...) {
      st->attempt->thrown = std::current_exception();
    }
    if (!more) {
      st->attempt->stopped = true;
      return 0;  // makes curl stop with CURLE_WRITE_ERROR
    }
    return len;
  }
  st->attempt->body.append(data, len);
  return len;
}

void set_blob(CURL* h, CURLoption opt, const std::string& pem) {
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(h, opt, &blob);
}

bool is_tls_failure(CURLcode c) {
  return c == CURLE_PEER_FAILED_VERIFICATION || c == CURLE_SSL_CACERT_BADFILE ||
         c == CURLE_SSL_CERTPROBLEM || c == CURLE_SSL_CONNECT_ERROR;
}

/// The server's TLS alert after the handshake, as TLS 1.3 sends one about a client
/// certificate it does not accept (`tlsv1 alert unknown ca`, `certificate required`): the same
/// answer however often it is asked.
bool is_tls_alert(CURLcode c, const std::string& error) {
  return (c == CURLE_RECV_ERROR || c == CURLE_SEND_ERROR) &&
         error.find(" alert ") != std::string::npos;
}

/// `tlsv1 alert unknown ca` out of OpenSSL's `...:SSL routines::tlsv1 alert unknown ca, errno 0`.
std::string tls_alert_text(const std::string& error) {
  std::string text = error.substr(error.rfind(':') + 1);
  return text.substr(0, text.find(','));
}

bool retryable_status(long s) { return s == 500 || s == 502 || s == 503 || s == 504; }

HttpVersion version_of(long curl_version) {
  switch (curl_version) {
    case CURL_HTTP_VERSION_1_0: return HttpVersion::Http1_0;
    case CURL_HTTP_VERSION_1_1: return HttpVersion::Http1_1;
    case CURL_HTTP_VERSION_2_0: return HttpVersion::Http2;
    case CURL_HTTP_VERSION_3: return HttpVersion::Http3;
    default: return HttpVersion::Unknown;
  }
}

}  // namespace

std::string_view method_name(Method method) {
  switch (method) {
    case Method::Get: return "GET";
    case Method::Post: return "POST";
    case Method::Put: return "PUT";
    case Method::Patch: return "PATCH";
    case Method::Delete: return "DELETE";
  }
  return "GET";
}

struct Transport::Impl {
  RestConfig cfg;
  TransportOptions opts;
  Credentials creds;
  std::string base_url;     ///< scheme://host:port/prefix as curl connects to it
  std::string host_header;  ///< host:port of the Host header (the TLS name when one is set)
  std::string path_prefix;  ///< the server URL's path ("/k8s/clusters/c-1"), else empty
  std::string connect_to;   ///< CURLOPT_CONNECT_TO entry for tls-server-name
  // The share handle (connection cache, TLS sessions, DNS) outlives the easy handles that use
  // it: members are destroyed in reverse order.
  ShareLocks share_locks;
  std::mutex share_mutex;
  std::vector<SharePtr> shares;  ///< the current one last (see share_for)
  bool share_used = false;
  std::string share_identity;  ///< the client certificate the current share's connections show
  std::unique_ptr<TlsMaterial> tls;  ///< nullptr: curl parses the PEM blobs itself
  std::mutex pool_mutex;
  std::vector<EasyPtr> pool;
  std::mutex rng_mutex;
  std::mt19937 rng{std::random_device{}()};
  std::atomic<long> sent{0};
  SlistPtr connect_list;  ///< built once; read by every attempt

  std::once_flag ready_flag;
  std::mutex auth_mutex;
  std::shared_future<AuthMaterial> auth_in_flight;  ///< credentials being fetched right now
  std::thread loader;                               ///< loads libcurl meanwhile (see below)

  // No curl call on this thread: libcurl (the lean executable dlopens it with its ~30
  // libraries, tens of milliseconds) is loaded by a thread of its own from here, so that the
  // caller goes on meanwhile — submit renders, an exec credential plugin runs. The first
  // request waits for it (and reports its error, as ready() retries).
  Impl(RestConfig c, TransportOptions o, Terminal t)
      : cfg(std::move(c)), opts(std::move(o)), creds(cfg, t), base_url(cfg.server) {
    while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();  // + "/api/..."
    loader = std::thread([this] {
      try {
        ready();
      } catch (const std::exception&) {
      }
    });
  }

  ~Impl() { loader.join(); }
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;

  /// The credentials for a request. Concurrent requests share one fetch and its outcome, so
  /// an exec plugin is not run twice at once (nor a failing one once per waiting request).
  AuthMaterial auth() {
    std::promise<AuthMaterial> mine;
    std::shared_future<AuthMaterial> theirs;
    {
      std::lock_guard lock(auth_mutex);
      if (auth_in_flight.valid())
        theirs = auth_in_flight;
      else
        auth_in_flight = mine.get_future().share();
    }
    if (theirs.valid()) return theirs.get();
    try {
      AuthMaterial a = creds.current();
      done_auth();
      mine.set_value(a);
      return a;
    } catch (...) {
      done_auth();
      mine.set_exception(std::current_exception());
      throw;
    }
  }

  void done_auth() {
    std::lock_guard lock(auth_mutex);
    auth_in_flight = {};
  }

  /// Loads libcurl and makes the share handle, once; a failure is retried by the next call.
  void ready() {
    std::call_once(ready_flag, [this] {
      ensure_global();
      shares.push_back(new_share());
      route();
      tls = TlsMaterial::load(cfg.ca_pem);  // on the loader thread, before any connection
    });
  }

  SharePtr new_share() {
    SharePtr share(curl_share_init());
    if (!share) throw Error(ErrorCode::Internal, "curl_share_init failed");
    curl_share_setopt(share.get(), CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(share.get(), CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(share.get(), CURLSHOPT_USERDATA, &share_locks);
    for (curl_lock_data d :
         {CURL_LOCK_DATA_CONNECT, CURL_LOCK_DATA_SSL_SESSION, CURL_LOCK_DATA_DNS})
      curl_share_setopt(share.get(), CURLSHOPT_SHARE, d);
    return share;
  }

  /// The share (connections, TLS sessions) for a request. curl tells connections apart by the
  /// client certificate blob it was given; with the client pair installed by on_ssl_ctx it
  /// cannot, so a new client certificate (a refreshed exec credential) gets a new share and
  /// never a connection that shows the old one.
  CURLSH* share_for(const AuthMaterial& auth) {
    std::lock_guard lock(share_mutex);
    if (tls && share_used && auth.client_cert_pem != share_identity) shares.push_back(new_share());
    share_used = true;
    share_identity = auth.client_cert_pem;
    return shares.back().get();
  }

  /// The server URL's parts (Host header, path prefix) and, with tls-server-name, the routing:
  /// SNI and certificate check use that name while the connection goes to the server's address;
  /// curl does this when the URL names the TLS name and CONNECT_TO maps it.
  void route() {
    CURLU* u = curl_url();
    if (curl_url_set(u, CURLUPART_URL, cfg.server.c_str(), 0) == CURLUE_OK) {
      char* host = nullptr;
      char* port = nullptr;
      char* path = nullptr;
      curl_url_get(u, CURLUPART_HOST, &host, 0);
      curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT);
      curl_url_get(u, CURLUPART_PATH, &path, 0);
      if (path) path_prefix = path;
      while (!path_prefix.empty() && path_prefix.back() == '/') path_prefix.pop_back();
      if (host && port) {
        host_header = std::string(host) + ":" + port;
        if (!cfg.tls_server_name.empty()) {
          connect_to = cfg.tls_server_name + ":" + port + ":" + host + ":" + port;
          connect_list.reset(curl_slist_append(nullptr, connect_to.c_str()));
          base_url = "https://" + cfg.tls_server_name + ":" + port + path_prefix;
          host_header = cfg.tls_server_name + ":" + port;
        }
      }
      curl_free(host);
      curl_free(port);
      curl_free(path);
    }
    curl_url_cleanup(u);
  }

  EasyPtr take() {
    ready();
    {
      std::lock_guard lock(pool_mutex);
      if (!pool.empty()) {
        EasyPtr h = std::move(pool.back());
        pool.pop_back();
        return h;
      }
    }
    EasyPtr h(curl_easy_init());
    if (!h) throw Error(ErrorCode::Internal, "curl_easy_init failed");
    return h;
  }

  void give_back(EasyPtr h) {
    std::lock_guard lock(pool_mutex);
    pool.push_back(std::move(h));
  }

  /// What every connection to the server needs: its URL, the route, TLS (CA, verification,
  /// client certificate through on_ssl_ctx or as blobs), the proxy and the connect timeout.
  void configure_connection(CURL* h, const std::string& url, const AuthMaterial& auth,
                            CallbackState& st, std::chrono::milliseconds connect_timeout) {
    curl_easy_setopt(h, CURLOPT_URL, url.c_str());
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout.count()));
    if (tls) {
      curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
      curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, &st);
    }
    if (tls && tls->has_ca()) {  // on_ssl_ctx installs them: curl loads no CA file
      curl_easy_setopt(h, CURLOPT_CAINFO, nullptr);
      curl_easy_setopt(h, CURLOPT_CAPATH, nullptr);
    } else if (!cfg.ca_pem.empty()) {
      set_blob(h, CURLOPT_CAINFO_BLOB, cfg.ca_pem);
    }
    if (cfg.insecure) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (!auth.client_cert_pem.empty() && !tls) {
      set_blob(h, CURLOPT_SSLCERT_BLOB, auth.client_cert_pem);
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
      set_blob(h, CURLOPT_SSLKEY_BLOB, auth.client_key_pem);
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (!cfg.proxy_url.empty()) curl_easy_setopt(h, CURLOPT_PROXY, cfg.proxy_url.c_str());
    if (connect_list) curl_easy_setopt(h, CURLOPT_CONNECT_TO, connect_list.get());
  }

  /// `left`: what remains of the request's deadline (nullopt for a stream, which has none).
  void configure(CURL* h, const Request& req, const AuthMaterial& auth, CallbackState& st,
                 std::optional<std::chrono::milliseconds> left) {
    curl_easy_reset(h);  // keeps the connection cache
    configure_connection(h, base_url + req.target, auth, st,
                         left ? std::min(opts.connect_timeout, *left) : opts.connect_timeout);
    curl_easy_setopt(h, CURLOPT_SHARE, share_for(auth));
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    if (left) curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(left->count()));
    if (!left && req.stall_limit.count() > 0) {  // below 1 byte/s for that long: nothing came
      curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
      curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, static_cast<long>(req.stall_limit.count()));
    }
    const std::string_view m = method_name(req.method);
    if (req.method != Method::Get && req.method != Method::Post)
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, std::string(m).c_str());
    if (req.method != Method::Get) {
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, req.body.c_str());
    }
  }

  SlistPtr headers(const Request& req, const AuthMaterial& auth) {
    curl_slist* list = nullptr;
    list = curl_slist_append(list, ("Accept: " + req.accept).c_str());
    if (!req.content_type.empty())
      list = curl_slist_append(list, ("Content-Type: " + req.content_type).c_str());
    if (!auth.authorization.empty())
      list = curl_slist_append(list, ("Authorization: " + auth.authorization).c_str());
    list = curl_slist_append(list, (std::string("User-Agent: ") + k_user_agent).c_str());
    list = curl_slist_append(list, "Expect:");  // no 100-continue round trip
    return SlistPtr(list);
  }

  Attempt perform(const Request& req, const Sink* sink,
                  std::optional<std::chrono::milliseconds> left) {
    const AuthMaterial auth = this->auth();
    EasyPtr h = take();
    Attempt a;
    CallbackState st{h.get(), &a, sink, tls.get(), &auth, req.cancel};
    char errbuf[CURL_ERROR_SIZE] = {0};
    configure(h.get(), req, auth, st, left);
    if (sink && req.cancel) {
      curl_easy_setopt(h.get(), CURLOPT_XFERINFOFUNCTION, on_progress);
      curl_easy_setopt(h.get(), CURLOPT_XFERINFODATA, &st);
      curl_easy_setopt(h.get(), CURLOPT_NOPROGRESS, 0L);
    }
    SlistPtr hdrs = headers(req, auth);
    curl_easy_setopt(h.get(), CURLOPT_HTTPHEADER, hdrs.get());
    curl_easy_setopt(h.get(), CURLOPT_ERRORBUFFER, errbuf);
    curl_easy_setopt(h.get(), CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h.get(), CURLOPT_HEADERDATA, &st);
    curl_easy_setopt(h.get(), CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h.get(), CURLOPT_WRITEDATA, &st);
    const auto start = Clock::now();
    ++sent;
    a.curl = curl_easy_perform(h.get());
    curl_easy_getinfo(h.get(), CURLINFO_RESPONSE_CODE, &a.status);
    curl_easy_getinfo(h.get(), CURLINFO_HTTP_VERSION, &a.http_version);
    long request_size = 0;
    curl_easy_getinfo(h.get(), CURLINFO_REQUEST_SIZE, &request_size);
    a.sent = request_size > 0 || a.status > 0;
    if ((a.curl == CURLE_WRITE_ERROR || a.curl == CURLE_ABORTED_BY_CALLBACK) && a.stopped)
      a.curl = CURLE_OK;
    if (a.curl != CURLE_OK) a.curl_error = error_text(a, errbuf);
    curl_easy_setopt(h.get(), CURLOPT_ERRORBUFFER, nullptr);
    debug_line(req, a, start);
    give_back(std::move(h));
    if (a.thrown) std::rethrow_exception(a.thrown);
    return a;
  }

  std::string error_text(const Attempt& a, const char* errbuf) const {
    if (!a.tls_error.empty()) return a.tls_error;
    // curl says "Operation timed out after 999 milliseconds with 0 bytes received": the limit
    // the user set is the clearer figure.
    if (a.curl == CURLE_OPERATION_TIMEDOUT && opts.request_timeout.count() > 0)
      return std::string(a.sent ? "no whole answer" : "no connection") + " within the " +
             std::to_string(opts.request_timeout.count()) + " ms request timeout";
    return errbuf[0] ? errbuf : curl_easy_strerror(a.curl);
  }

  /// Transport::connect: curl stops after TCP, the proxy tunnel and TLS (CONNECT_ONLY).
  std::unique_ptr<RawConnection> connect(const std::string& target,
                                         std::chrono::milliseconds timeout) {
    const AuthMaterial auth = this->auth();
    ready();
    auto raw = std::make_unique<RawConnection::Impl>();
    raw->easy.reset(curl_easy_init());
    CURL* h = raw->easy.get();
    if (!h) throw Error(ErrorCode::Internal, "curl_easy_init failed");
    Attempt a;
    CallbackState st{h, &a, nullptr, tls.get(), &auth, nullptr};
    configure_connection(h, base_url, auth, st, timeout);
    curl_easy_setopt(h, CURLOPT_CONNECT_ONLY, 1L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
    curl_easy_setopt(h, CURLOPT_TCP_NODELAY, 1L);
    if (!cfg.proxy_url.empty()) curl_easy_setopt(h, CURLOPT_HTTPPROXYTUNNEL, 1L);
    char errbuf[CURL_ERROR_SIZE] = {0};
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
    ++sent;
    a.curl = curl_easy_perform(h);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
    curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, nullptr);  // st ends here
    if (a.curl != CURLE_OK) {
      a.curl_error = error_text(a, errbuf);
      Request req;
      req.target = target;
      throw_transport(req, a, 1, Clock::now());
    }
    curl_socket_t sock = CURL_SOCKET_BAD;
    curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &sock);
    if (sock == CURL_SOCKET_BAD)
      throw Error(ErrorCode::Internal, "curl has no socket for " + cfg.server);
    raw->sock = static_cast<int>(sock);
    raw->server = cfg.server;
    raw->host_header = host_header;
    raw->path_prefix = path_prefix;
    raw->authorization = auth.authorization;
    return std::unique_ptr<RawConnection>(new RawConnection(std::move(raw)));
  }

  void debug_line(const Request& req, const Attempt& a, Clock::time_point start) {
    if (!opts.debug) return;
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    std::string line = std::string(method_name(req.method)) + " " + cfg.server + req.target + " ";
    line += a.curl == CURLE_OK ? std::to_string(a.status) : "failed (" + a.curl_error + ")";
    opts.debug(line + " in " + std::to_string(ms) + " ms");
  }

  std::chrono::milliseconds backoff(int attempt, long retry_after) {
    std::lock_guard lock(rng_mutex);
    const double base =
        static_cast<double>(opts.backoff_base.count()) * (1 << std::min(attempt - 1, 10));
    const double capped = std::min(base, static_cast<double>(opts.backoff_cap.count()));
    std::uniform_real_distribution<double> jitter(0.5, 1.5);
    auto wait = std::chrono::milliseconds(static_cast<long>(capped * jitter(rng)));
    if (retry_after >= 0) {
      auto server = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::seconds(std::min<long>(retry_after, opts.retry_after_cap.count())));
      wait = std::max(wait, server);
    }
    return wait;
  }

  /// What to check after a failed TLS handshake: the client pair, the server's name (the
  /// certificate is trusted but names other hosts), or the CA the server is checked against.
  std::string tls_hint(const Attempt& a) const {
    if (a.curl == CURLE_SSL_CERTPROBLEM) return "the client certificate and key of the credentials";
    const bool name_mismatch = a.curl_error.find("subject name") != std::string::npos &&
                               a.curl_error.find("target host") != std::string::npos;
    if (!name_mismatch) return "certificate-authority in the kubeconfig";
    return "the server name: the certificate names other hosts; use the name it was issued for "
           "in the server URL, or set tls-server-name in the kubeconfig";
  }

  [[noreturn]] void throw_transport(const Request& req, const Attempt& a, int attempts,
                                    Clock::time_point start) {
    const std::string where = std::string(method_name(req.method)) + " " + cfg.server + req.target;
    if (is_tls_failure(a.curl))
      throw TransportError("TLS handshake with " + cfg.server + " failed: " + a.curl_error +
                               " (check " + tls_hint(a) + ")",
                           false);
    if (is_tls_alert(a.curl, a.curl_error))
      throw TransportError(cfg.server +
                               " refused the TLS session: " + tls_alert_text(a.curl_error) +
                               " (check the client certificate and key of the credentials)",
                           false);
    std::string tries;
    if (attempts > 1) {
      const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
      tries =
          " (" + std::to_string(attempts) + " attempts in " + std::to_string(ms.count()) + " ms)";
    }
    throw TransportError(where + ": " + a.curl_error + tries, a.sent);
  }

  /// The attempts of one request. Retries (with backoff) fit in one deadline, the request
  /// timeout, that bounds the whole request rather than each attempt; a stream has none. A
  /// connection refused, or not made within the connect timeout, is not retried: nothing
  /// answers there, as kubectl concludes at once. A request that was not sent may be sent
  /// again whatever its method.
  Attempt run(const Request& req, const Sink* sink) {
    const auto start = Clock::now();
    const bool bounded = sink == nullptr && opts.request_timeout.count() > 0;
    auto left = [&]() -> std::optional<std::chrono::milliseconds> {  // at least 1 ms
      if (!bounded) return std::nullopt;
      return std::max(std::chrono::milliseconds(1),
                      std::chrono::duration_cast<std::chrono::milliseconds>(
                          start + opts.request_timeout - Clock::now()));
    };
    bool refreshed = false;
    for (int attempt = 1;; ++attempt) {
      Attempt a = perform(req, sink, left());
      if (a.stopped) return a;
      if (a.curl == CURLE_OK && a.status == 401 && !refreshed && creds.refresh()) {
        refreshed = true;
        --attempt;  // a credential refresh is not a failed attempt
        continue;
      }
      const bool failed = a.curl != CURLE_OK;
      if (!(failed ? may_retry_failure(req, a) : retryable_answer(req, a))) {
        if (failed) throw_transport(req, a, attempt, start);
        return a;
      }
      const auto wait = backoff(attempt, a.retry_after);  // drawn only when a retry may follow
      if (attempt >= opts.max_attempts || a.delivered || (bounded && *left() <= wait)) {
        if (failed) throw_transport(req, a, attempt, start);
        return a;
      }
      say_retry(req, a, wait, attempt);
      std::this_thread::sleep_for(wait);
    }
  }

  /// A failed attempt worth repeating: not TLS, a connection that was made, and a request
  /// that is idempotent or was not sent.
  static bool may_retry_failure(const Request& req, const Attempt& a) {
    const bool no_connection =
        a.curl == CURLE_COULDNT_CONNECT || (a.curl == CURLE_OPERATION_TIMEDOUT && !a.sent);
    return !is_tls_failure(a.curl) && !is_tls_alert(a.curl, a.curl_error) && !no_connection &&
           (req.retry == Retry::Idempotent || !a.sent);
  }

  /// An answer worth asking again for: 429, or a 5xx to an idempotent request.
  static bool retryable_answer(const Request& req, const Attempt& a) {
    return a.status == 429 || (req.retry == Retry::Idempotent && retryable_status(a.status));
  }

  void say_retry(const Request& req, const Attempt& a, std::chrono::milliseconds wait,
                 int attempt) const {
    if (!opts.on_retry) return;
    const std::string what =
        a.curl != CURLE_OK ? a.curl_error : "the server answered HTTP " + std::to_string(a.status);
    const auto tenths = (wait.count() + 50) / 100;
    opts.on_retry(std::string(method_name(req.method)) + " " + cfg.server + req.target + ": " +
                  what + "; retrying in " + std::to_string(tenths / 10) + "." +
                  std::to_string(tenths % 10) + " s (attempt " + std::to_string(attempt + 1) +
                  " of " + std::to_string(opts.max_attempts) + ")");
  }
};

Transport::Transport(RestConfig cfg, TransportOptions options, Terminal terminal)
    : m_impl(std::make_unique<Impl>(std::move(cfg), std::move(options), terminal)) {}

Transport::~Transport() = default;

Response Transport::send(const Request& request) {
  Attempt a = m_impl->run(request, nullptr);
  return Response{a.status, std::move(a.body), version_of(a.http_version)};
}

long Transport::stream(const Request& request, const Sink& sink, std::string& error_body) {
  Attempt a = m_impl->run(request, &sink);
  error_body = std::move(a.body);
  return a.status;
}

std::unique_ptr<RawConnection> Transport::connect(const std::string& target,
                                                  std::chrono::milliseconds timeout) {
  return m_impl->connect(target, timeout);
}

const RestConfig& Transport::config() const { return m_impl->cfg; }

std::chrono::milliseconds Transport::request_timeout() const {
  return m_impl->opts.request_timeout;
}

long Transport::requests_sent() const { return m_impl->sent.load(); }

Credentials& Transport::credentials() { return m_impl->creds; }

RawConnection::RawConnection(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

RawConnection::~RawConnection() = default;

std::string RawConnection::request_head(std::string_view method, std::string_view target) const {
  std::string head = std::string(method) + " " + m_impl->path_prefix + std::string(target) +
                     " HTTP/1.1\r\nHost: " + m_impl->host_header +
                     "\r\nUser-Agent: " + k_user_agent + "\r\n";
  if (!m_impl->authorization.empty()) head += "Authorization: " + m_impl->authorization + "\r\n";
  return head;
}

std::size_t RawConnection::send(std::string_view bytes) {
  std::size_t n = 0;
  const CURLcode rc = curl_easy_send(m_impl->easy.get(), bytes.data(), bytes.size(), &n);
  if (rc == CURLE_AGAIN) return 0;
  if (rc != CURLE_OK)
    throw Error(ErrorCode::Transport,
                "writing to " + m_impl->server + ": " + curl_easy_strerror(rc));
  return n;
}

long RawConnection::receive(char* buffer, std::size_t size) {
  std::size_t n = 0;
  const CURLcode rc = curl_easy_recv(m_impl->easy.get(), buffer, size, &n);
  if (rc == CURLE_AGAIN) return -1;
  if (rc != CURLE_OK)
    throw Error(ErrorCode::Transport,
                "reading from " + m_impl->server + ": " + curl_easy_strerror(rc));
  return static_cast<long>(n);
}

int RawConnection::socket() const { return m_impl->sock; }

}  // namespace ejob::kubeapi
