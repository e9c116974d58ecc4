#include "src/agent/etcd/etcd_client.hpp"

#include <limits>
#include <nlohmann/json.hpp>

#include "src/util/error.hpp"

namespace ejob::agent {

namespace {

/// Keys go into the URL path as python-etcd sends them: '/' kept, unsafe bytes escaped.
std::string path_encode(const std::string& key) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : key) {
    if (std::isalnum(c) ||
        std::string_view("/-_.~=+:@,").find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

std::string with_slash(const std::string& key) {
  return key.empty() || key[0] != '/' ? "/" + key : key;
}

void add_param(std::string& out, const std::string& name, const std::string& value) {
  out += (out.empty() ? "" : "&") + name + "=" + form_encode(value);
}

/// A field of an answer whose JSON type is not the one etcd sends there: the answer is not
/// etcd's (a proxy's, or something else listening on the port), and is refused as a whole.
struct WrongField {
  std::string what;  ///< `node.ttl is not an integer`
};

std::string string_at(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return "";
  if (!it->is_string()) throw WrongField{std::string(name) + " is not a string"};
  return it->get<std::string>();
}

bool bool_at(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return false;
  if (!it->is_boolean()) throw WrongField{std::string(name) + " is not a boolean"};
  return it->get<bool>();
}

/// An integer field; a float is refused rather than converted (1e300 fits no integer).
std::optional<std::int64_t> integer_at(const nlohmann::json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end() || it->is_null()) return std::nullopt;
  if (!it->is_number_integer()) throw WrongField{std::string(name) + " is not an integer"};
  return it->get<std::int64_t>();
}

EtcdNode parse_node(const nlohmann::json& j) {
  if (!j.is_object()) throw WrongField{"a node is not an object"};
  EtcdNode n;
  n.key = string_at(j, "key");
  n.value = string_at(j, "value");
  n.dir = bool_at(j, "dir");
  n.modified_index = integer_at(j, "modifiedIndex").value_or(0);
  n.ttl = integer_at(j, "ttl");
  if (auto it = j.find("nodes"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) throw WrongField{"nodes is not a list"};
    for (const auto& c : *it) n.nodes.push_back(parse_node(c));
  }
  return n;
}

HttpEndpoint http_endpoint(const EtcdClientOptions& o) {
  HttpEndpoint at;
  at.host = o.host;
  at.port = o.port;
  at.tls = o.protocol == "https";
  at.cacert = o.cacert;
  at.cert = o.cert;
  at.key = o.key;
  at.connect_timeout_ms = o.connect_timeout_ms;
  return at;
}

/// X-Etcd-Index: its digits (etcd sends nothing else there); 0 for a number past int64 (no
/// etcd reaches it), rather than an overflow.
std::int64_t parse_index(const std::string& value) {
  std::int64_t index = 0;
  for (char c : value) {
    if (c < '0' || c > '9') continue;
    if (index > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10) return 0;
    index = index * 10 + (c - '0');
  }
  return index;
}

}  // namespace

std::string form_encode(const std::string& text) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (std::isalnum(c) || c == '_' || c == '.' || c == '-' || c == '~') {
      out += static_cast<char>(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

void parse_etcd_body(const std::string& body, EtcdResult& result) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(body);
  } catch (const nlohmann::json::exception&) {
    j = nullptr;
  }
  const std::string not_etcd = "etcd answered HTTP " + std::to_string(result.http_status) +
                               " with a body that is not etcd v2 JSON";
  if (!j.is_object()) throw Error(ErrorCode::Transport, not_etcd + ": " + body.substr(0, 200));
  try {
    if (j.contains("errorCode")) {
      result.outcome = EtcdOutcome::EtcdError;
      result.error_code = static_cast<int>(integer_at(j, "errorCode").value_or(0));
      result.message = string_at(j, "message");
      result.cause = string_at(j, "cause");
      return;
    }
    result.action = string_at(j, "action");
    if (auto it = j.find("node"); it != j.end() && it->is_object()) result.node = parse_node(*it);
  } catch (const WrongField& e) {
    throw Error(ErrorCode::Transport, not_etcd + " (" + e.what + "): " + body.substr(0, 200));
  }
}

EtcdClient::EtcdClient(EtcdClientOptions options)
    : m_options(std::move(options)), m_http(http_endpoint(m_options)) {
  std::string host =
      m_options.host.find(':') != std::string::npos ? "[" + m_options.host + "]" : m_options.host;
  m_base_url = m_options.protocol + "://" + host + ":" + std::to_string(m_options.port);
}

EtcdClient::~EtcdClient() = default;

void EtcdClient::cancel() { m_http.cancel(); }

void EtcdClient::reset_cancel() { m_http.reset_cancel(); }

EtcdResult EtcdClient::perform(const std::string& method, const std::string& path_and_query,
                               const std::string& body, long timeout_ms, RequestKind kind) {
  EtcdResult result;
  HttpResponse response;
  HttpRequest request{method, path_and_query, "application/x-www-form-urlencoded", body};
  HttpEnd end = send(request, timeout_ms, response);
  if (end == HttpEnd::Cancelled) {
    result.outcome = EtcdOutcome::Cancelled;
    return result;
  }
  if (end == HttpEnd::TimedOut && kind == RequestKind::Watch) {
    result.outcome = EtcdOutcome::TimedOut;
    return result;
  }
  if (end == HttpEnd::TimedOut)
    throw failure(method + " " + path_and_query.substr(0, 200),
                  "no answer within " + std::to_string(timeout_ms) + " ms");
  result.http_status = response.status;
  if (const std::string* index = response.header("x-etcd-index"))
    result.etcd_index = parse_index(*index);
  parse_etcd_body(response.body, result);
  return result;
}

/// One request; transport failures name the endpoint and the request.
HttpEnd EtcdClient::send(const HttpRequest& request, long timeout_ms, HttpResponse& response) {
  try {
    return m_http.request(request, timeout_ms, response);
  } catch (const Error& e) {
    throw failure(std::string(request.method) + " " + std::string(request.target.substr(0, 200)),
                  e.message());
  }
}

Error EtcdClient::failure(const std::string& request, const std::string& why) const {
  return Error(ErrorCode::Transport, "etcd at " + m_base_url + ": " + request + ": " + why);
}

std::vector<std::string> EtcdClient::machines() {
  HttpResponse response;
  HttpEnd end =
      send(HttpRequest{"GET", "/v2/machines", {}, {}}, m_options.read_timeout_ms, response);
  if (end != HttpEnd::Complete)
    throw failure("GET /v2/machines", end == HttpEnd::Cancelled ? "cancelled" : "timed out");
  if (response.status != 200)
    throw failure("GET /v2/machines", "HTTP " + std::to_string(response.status) +
                                          " (is etcd running with --enable-v2?)");
  std::vector<std::string> out;
  size_t start = 0;
  const std::string& listed = response.body;
  while (start < listed.size()) {
    size_t comma = listed.find(',', start);
    std::string part =
        listed.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front())))
      part.erase(0, 1);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) part.pop_back();
    if (!part.empty()) out.push_back(part);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

EtcdResult EtcdClient::get(const std::string& key, bool recursive) {
  std::string query;
  if (recursive) add_param(query, "recursive", "true");
  return perform("GET",
                 "/v2/keys" + path_encode(with_slash(key)) + (query.empty() ? "" : "?" + query), "",
                 m_options.read_timeout_ms, RequestKind::Plain);
}

EtcdResult EtcdClient::write(const std::string& key, const EtcdWrite& w) {
  std::string body;
  if (w.value) add_param(body, "value", *w.value);
  if (w.ttl) add_param(body, "ttl", std::to_string(*w.ttl));
  if (w.dir) add_param(body, "dir", "true");
  if (w.prev_exist) add_param(body, "prevExist", *w.prev_exist ? "true" : "false");
  if (w.prev_value) add_param(body, "prevValue", *w.prev_value);
  if (w.prev_index) add_param(body, "prevIndex", std::to_string(*w.prev_index));
  if (w.refresh) add_param(body, "refresh", "true");
  return perform("PUT", "/v2/keys" + path_encode(with_slash(key)), body, m_options.read_timeout_ms,
                 RequestKind::Plain);
}

EtcdResult EtcdClient::remove(const std::string& key, const std::optional<std::string>& prev_value,
                              bool recursive) {
  std::string query;
  if (prev_value) add_param(query, "prevValue", *prev_value);
  if (recursive) add_param(query, "recursive", "true");
  return perform("DELETE",
                 "/v2/keys" + path_encode(with_slash(key)) + (query.empty() ? "" : "?" + query), "",
                 m_options.read_timeout_ms, RequestKind::Plain);
}

EtcdResult EtcdClient::watch(const std::string& key, std::int64_t wait_index, bool recursive,
                             long timeout_ms) {
  std::string query;
  add_param(query, "wait", "true");
  add_param(query, "waitIndex", std::to_string(wait_index));
  if (recursive) add_param(query, "recursive", "true");
  return perform("GET", "/v2/keys" + path_encode(with_slash(key)) + "?" + query, "", timeout_ms,
                 RequestKind::Watch);
}

}  // namespace ejob::agent
