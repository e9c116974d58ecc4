#include "src/local/metadata_service.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <nlohmann/json.hpp>
#include <set>

#include "src/util/error.hpp"

namespace ejob::local {

using Clock = std::chrono::steady_clock;

struct HttpRequest {
  std::string method;
  std::string path;  ///< without the node prefix and the query
  std::map<std::string, std::string> query;
  std::map<std::string, std::string> headers;  ///< names lower-cased
  std::string body;
};

struct HttpAnswer {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

struct MetadataService::Connection {
  int fd = -1;
  std::string in;
  std::optional<HttpRequest> request;
  int node = -1;
  std::optional<Clock::time_point> parked_until;  ///< GCE wait_for_change
  ~Connection() {
    if (fd >= 0) ::close(fd);
  }
};

namespace {

constexpr size_t k_max_request = 64 * 1024;  // the agents' requests are a few hundred bytes
constexpr int k_default_wait_s = 300;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::map<std::string, std::string> parse_query(const std::string& query) {
  std::map<std::string, std::string> out;
  size_t at = 0;
  while (at <= query.size() && !query.empty()) {
    size_t amp = query.find('&', at);
    std::string pair = query.substr(at, amp == std::string::npos ? std::string::npos : amp - at);
    size_t eq = pair.find('=');
    out[pair.substr(0, eq)] = eq == std::string::npos ? "" : pair.substr(eq + 1);
    if (amp == std::string::npos) break;
    at = amp + 1;
  }
  return out;
}

/// The request in `raw` once it is whole (headers and Content-Length bytes of body).
std::optional<HttpRequest> parse_request(const std::string& raw) {
  const size_t end = raw.find("\r\n\r\n");
  if (end == std::string::npos) return std::nullopt;
  HttpRequest r;
  size_t line_end = raw.find("\r\n");
  std::string line = raw.substr(0, line_end);
  size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
  r.method = line.substr(0, sp1);
  std::string target = sp1 == sp2 ? "" : line.substr(sp1 + 1, sp2 - sp1 - 1);
  size_t q = target.find('?');
  r.path = target.substr(0, q);
  if (q != std::string::npos) r.query = parse_query(target.substr(q + 1));
  for (size_t at = line_end + 2; at < end;) {
    size_t next = raw.find("\r\n", at);
    std::string header = raw.substr(at, next - at);
    size_t colon = header.find(':');
    if (colon != std::string::npos) {
      size_t v = header.find_first_not_of(' ', colon + 1);
      r.headers[lower(header.substr(0, colon))] = v == std::string::npos ? "" : header.substr(v);
    }
    at = next + 2;
  }
  const size_t length = r.headers.count("content-length")
                            ? std::strtoul(r.headers["content-length"].c_str(), nullptr, 10)
                            : 0;
  if (raw.size() < end + 4 + length) return std::nullopt;
  r.body = raw.substr(end + 4, length);
  return r;
}

/// `/worker-I/rest` → I, with `path` set to `/rest`; -1 for another path.
int take_node_prefix(std::string& path) {
  constexpr std::string_view prefix = "/worker-";
  if (path.rfind(prefix, 0) != 0) return -1;
  size_t digits_end = path.find('/', prefix.size());
  const std::string digits = path.substr(prefix.size(), digits_end - prefix.size());
  if (digits.empty() || digits.size() > 6 ||
      !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  path = digits_end == std::string::npos ? "/" : path.substr(digits_end);
  return std::stoi(digits);
}

std::string format_time(MetadataService::SysTime t, const char* format) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  ::gmtime_r(&seconds, &tm);
  char out[64];
  std::strftime(out, sizeof out, format, &tm);
  return out;
}

std::string http_date(MetadataService::SysTime t) {
  return format_time(t, "%a, %d %b %Y %H:%M:%S GMT");
}
std::string rfc3339(MetadataService::SysTime t) { return format_time(t, "%Y-%m-%dT%H:%M:%SZ"); }

std::string vm_name(int node) { return "ejob-local-worker-" + std::to_string(node); }

std::string event_id(int event, int node) {
  char out[40];
  std::snprintf(out, sizeof out, "%08X-0000-4000-8000-%012X", event, node);
  return out;
}

HttpAnswer text(int status, std::string body) { return {status, std::move(body), {}}; }

/// Azure's Instance Metadata Service, as the Scheduled Events documentation shows it.
class AzureAnswers {
 public:
  static HttpAnswer answer(const HttpRequest& r, int node,
                           std::optional<MetadataService::Notice>& notice, int incarnation) {
    if (r.headers.count("metadata") == 0 || lower(r.headers.at("metadata")) != "true")
      return text(400, R"({"error":"Bad request. Required metadata header not specified"})");
    if (r.path == "/metadata/instance/compute/name" && r.method == "GET")
      return text(200, vm_name(node));
    if (r.path != "/metadata/scheduledevents") return text(404, R"({"error":"Not found"})");
    if (r.method == "POST") return start_requests(r, node, notice);
    return text(200, document(node, notice, incarnation).dump());
  }

 private:
  static nlohmann::json document(int node, const std::optional<MetadataService::Notice>& notice,
                                 int incarnation) {
    nlohmann::json events = nlohmann::json::array();
    if (notice)
      events.push_back({{"EventId", event_id(notice->event, node)},
                        {"EventType", "Preempt"},
                        {"ResourceType", "VirtualMachine"},
                        {"Resources", {vm_name(node)}},
                        {"EventStatus", notice->started ? "Started" : "Scheduled"},
                        {"NotBefore", notice->started ? "" : http_date(notice->deadline)},
                        {"Description", "The Spot VM is being evicted (ejob evict --notice)"},
                        {"EventSource", "Platform"},
                        {"DurationInSeconds", -1}});
    return {{"DocumentIncarnation", incarnation}, {"Events", events}};
  }

  static HttpAnswer start_requests(const HttpRequest& r, int node,
                                   std::optional<MetadataService::Notice>& notice) {
    const nlohmann::json body = nlohmann::json::parse(r.body, nullptr, false);
    if (!body.is_object() || !body.contains("StartRequests") || !body["StartRequests"].is_array())
      return text(400, R"({"error":"Bad request. StartRequests expected"})");
    for (const nlohmann::json& s : body["StartRequests"])
      if (notice && s.is_object() && s.value("EventId", "") == event_id(notice->event, node))
        notice->started = true;
    return text(200, "");
  }
};

/// AWS's IMDSv2: a session token first, then GETs that carry it.
class AwsAnswers {
 public:
  explicit AwsAnswers(std::set<std::string>& tokens) : m_tokens(tokens) {}
  HttpAnswer answer(const HttpRequest& r, int node,
                    const std::optional<MetadataService::Notice>& notice) {
    if (r.path == "/latest/api/token" && r.method == "PUT") return token(r);
    auto given = r.headers.find("x-aws-ec2-metadata-token");
    if (given == r.headers.end() || m_tokens.count(given->second) == 0) return text(401, "");
    if (r.path == "/latest/meta-data/instance-id") return text(200, instance_id(node));
    const bool action = r.path == "/latest/meta-data/spot/instance-action";
    const bool rebalance = r.path == "/latest/meta-data/events/recommendations/rebalance";
    if ((!action && !rebalance) || !notice) return text(404, not_found());
    const nlohmann::json doc =
        action ? nlohmann::json{{"action", "terminate"}, {"time", rfc3339(notice->deadline)}}
               : nlohmann::json{{"noticeTime", rfc3339(std::chrono::system_clock::now())}};
    return text(200, doc.dump());
  }

 private:
  HttpAnswer token(const HttpRequest& r) {
    auto ttl = r.headers.find("x-aws-ec2-metadata-token-ttl-seconds");
    const long seconds = ttl == r.headers.end() ? 0 : std::strtol(ttl->second.c_str(), nullptr, 10);
    if (seconds < 1 || seconds > 21600) return text(400, "");
    std::string t = "ejob-local-imds-token-" + std::to_string(m_tokens.size() + 1);
    m_tokens.insert(t);
    return {200, t, {{"X-aws-ec2-metadata-token-ttl-seconds", std::to_string(seconds)}}};
  }
  static std::string instance_id(int node) {
    char out[32];
    std::snprintf(out, sizeof out, "i-0e0b%013x", node);
    return out;
  }
  static std::string not_found() {
    return "<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n<html><body><h1>404 - Not "
           "Found</h1></body></html>";
  }
  std::set<std::string>& m_tokens;  ///< the service's: a token outlives its connection
};

/// GCE's metadata server: the flavor header both ways, an ETag per value, long-polls.
struct GceValue {
  std::string value;
  std::string etag;
};

std::optional<GceValue> gce_value(const std::string& path, int node,
                                  const std::optional<MetadataService::Notice>& notice) {
  if (path == "/computeMetadata/v1/instance/preempted")
    return GceValue{notice ? "TRUE" : "FALSE",
                    "e" + std::to_string(node) + "p" + std::to_string(notice ? notice->event : 0)};
  if (path == "/computeMetadata/v1/instance/maintenance-event") return GceValue{"NONE", "e0m0"};
  return std::nullopt;
}

HttpAnswer gce_answer(int status, std::string body, const std::string& etag) {
  HttpAnswer a{status, std::move(body), {{"Metadata-Flavor", "Google"}}};
  if (!etag.empty()) a.headers.emplace_back("ETag", etag);
  return a;
}

void send_answer(int fd, const HttpAnswer& a) {
  std::string out = "HTTP/1.1 " + std::to_string(a.status) + (a.status == 200 ? " OK" : " Error") +
                    "\r\nContent-Length: " + std::to_string(a.body.size()) +
                    "\r\nConnection: close\r\n";
  for (const auto& [name, value] : a.headers) out += name + ": " + value + "\r\n";
  out += "\r\n" + a.body;
  for (size_t sent = 0; sent < out.size();) {
    const ssize_t n = ::send(fd, out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
    if (n <= 0 && errno != EINTR) return;  // the agent went away; nothing to tell it
    if (n > 0) sent += static_cast<size_t>(n);
  }
}

}  // namespace

std::optional<Cloud> cloud_named(std::string_view word) {
  if (word == "azure") return Cloud::Azure;
  if (word == "aws") return Cloud::Aws;
  if (word == "gce") return Cloud::Gce;
  return std::nullopt;
}

std::string cloud_name(Cloud cloud) {
  switch (cloud) {
    case Cloud::Azure: return "azure";
    case Cloud::Aws: return "aws";
    case Cloud::Gce: return "gce";
  }
  return "";
}

std::chrono::seconds cloud_notice_period(Cloud cloud) {
  return std::chrono::seconds(cloud == Cloud::Aws ? 120 : 30);
}

MetadataService::MetadataService(Cloud cloud) : m_cloud(cloud) {
  m_listen_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (m_listen_fd < 0 || ::bind(m_listen_fd, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
      ::listen(m_listen_fd, 64) != 0 ||
      ::getsockname(m_listen_fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string why = std::strerror(errno);
    if (m_listen_fd >= 0) ::close(m_listen_fd);
    throw Error(ErrorCode::Io, "the local metadata service cannot listen on 127.0.0.1: " + why);
  }
  m_port = ntohs(addr.sin_port);
}

MetadataService::~MetadataService() {
  m_connections.clear();
  if (m_listen_fd >= 0) ::close(m_listen_fd);
}

std::string MetadataService::url_for(int index) const {
  return "http://127.0.0.1:" + std::to_string(m_port) + "/worker-" + std::to_string(index);
}

std::vector<pollfd> MetadataService::fds() const {
  std::vector<pollfd> out{{m_listen_fd, POLLIN, 0}};
  for (const auto& c : m_connections) out.push_back({c->fd, POLLIN, 0});
  return out;
}

void MetadataService::serve(const std::vector<pollfd>& polled) {
  for (const pollfd& p : polled) {
    if (p.revents == 0) continue;
    if (p.fd == m_listen_fd) {
      accept_all();
      continue;
    }
    for (auto& c : m_connections)
      if (c->fd == p.fd && !read_from(*c)) c->fd = (::close(c->fd), -1);
  }
  answer_ready();
  m_connections.erase(std::remove_if(m_connections.begin(), m_connections.end(),
                                     [](const auto& c) { return c->fd < 0; }),
                      m_connections.end());
}

void MetadataService::accept_all() {
  for (int fd;
       (fd = ::accept4(m_listen_fd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0;) {
    auto c = std::make_unique<Connection>();
    c->fd = fd;
    m_connections.push_back(std::move(c));
  }
}

/// Reads what came; false when the peer closed or sent more than any request of ours is.
bool MetadataService::read_from(Connection& c) {
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
    if (n > 0) {
      c.in.append(buffer, static_cast<size_t>(n));
      if (c.in.size() > k_max_request) return false;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (n < 0 && errno == EINTR) continue;
    return false;
  }
  if (!c.request) c.request = parse_request(c.in);
  return true;
}

void MetadataService::answer_ready() {
  for (auto& c : m_connections)
    if (c->fd >= 0 && c->request) answer(*c);
}

namespace {

/// GCE's answer to `r`; nullopt while a wait_for_change long-poll waits (until the value's
/// ETag differs from last_etag, or timeout_sec passed).
std::optional<HttpAnswer> gce_answer_to(HttpRequest& r, int node,
                                        const std::optional<MetadataService::Notice>& notice,
                                        std::optional<Clock::time_point>& parked_until) {
  auto flavor = r.headers.find("metadata-flavor");
  if (flavor == r.headers.end() || flavor->second != "Google")
    return gce_answer(403, "Missing required header: Metadata-Flavor", "");
  std::optional<GceValue> v = gce_value(r.path, node, notice);
  if (!v) return gce_answer(404, "", "");
  if (r.query["wait_for_change"] == "true" && r.query["last_etag"] == v->etag) {
    if (!parked_until) {
      const long s = r.query.count("timeout_sec")
                         ? std::strtol(r.query["timeout_sec"].c_str(), nullptr, 10)
                         : k_default_wait_s;
      parked_until = Clock::now() + std::chrono::seconds(std::clamp<long>(s, 1, 3600));
    }
    if (Clock::now() < *parked_until) return std::nullopt;
  }
  return gce_answer(200, v->value, v->etag);
}

}  // namespace

void MetadataService::answer(Connection& c) {
  HttpRequest& r = *c.request;
  if (c.node < 0) c.node = take_node_prefix(r.path);
  std::optional<Notice> notice;
  if (auto it = m_notices.find(c.node); it != m_notices.end()) notice = it->second;
  HttpAnswer a = text(404, "");
  if (c.node >= 0 && m_cloud == Cloud::Azure) {
    a = AzureAnswers::answer(r, c.node, notice, m_generation + 1);
    if (notice && notice->started) m_notices[c.node].started = true;
  } else if (c.node >= 0 && m_cloud == Cloud::Aws) {
    a = AwsAnswers(m_aws_tokens).answer(r, c.node, notice);
  } else if (c.node >= 0 && m_cloud == Cloud::Gce) {
    std::optional<HttpAnswer> gce = gce_answer_to(r, c.node, notice, c.parked_until);
    if (!gce) return;  // serve() asks again until then
    a = *gce;
  }
  send_answer(c.fd, a);
  ::close(c.fd);
  c.fd = -1;
}

void MetadataService::publish(int index, SysTime deadline) {
  m_notices[index] = Notice{deadline, ++m_generation, false};
}

void MetadataService::withdraw(int index) {
  if (m_notices.erase(index) > 0) ++m_generation;
}

bool MetadataService::acknowledged(int index) const {
  auto it = m_notices.find(index);
  return it != m_notices.end() && it->second.started;
}

}  // namespace ejob::local
