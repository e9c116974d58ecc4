#include "ejob/agent/etcd_client.hpp"

#include <curl/curl.h>

#include <nlohmann/json.hpp>

#include "ejob/util/error.hpp"

namespace ejob::agent {

struct EtcdClient::Handles {
  std::unique_ptr<CURL, decltype(&curl_easy_cleanup)> easy{curl_easy_init(), &curl_easy_cleanup};
  std::unique_ptr<CURLM, decltype(&curl_multi_cleanup)> multi{curl_multi_init(),
                                                              &curl_multi_cleanup};
};

namespace {

size_t append_body(char* data, size_t size, size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

/// Captures X-Etcd-Index from the response headers.
size_t read_header(char* data, size_t size, size_t count, void* out) {
  std::string_view line(data, size * count);
  constexpr std::string_view name = "x-etcd-index:";
  if (line.size() > name.size()) {
    bool match = true;
    for (size_t i = 0; i < name.size() && match; ++i)
      match = std::tolower(static_cast<unsigned char>(line[i])) == name[i];
    if (match) {
      std::string digits;
      for (char c : line.substr(name.size()))
        if (c >= '0' && c <= '9') digits += c;
      if (!digits.empty()) *static_cast<std::int64_t*>(out) = std::stoll(digits);
    }
  }
  return size * count;
}

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

EtcdNode parse_node(const nlohmann::json& j) {
  EtcdNode n;
  n.key = j.value("key", "");
  if (auto it = j.find("value"); it != j.end() && it->is_string()) n.value = it->get<std::string>();
  n.dir = j.value("dir", false);
  n.modified_index = j.value("modifiedIndex", std::int64_t{0});
  if (auto it = j.find("ttl"); it != j.end() && it->is_number()) n.ttl = it->get<std::int64_t>();
  if (auto it = j.find("nodes"); it != j.end() && it->is_array())
    for (const auto& c : *it) n.nodes.push_back(parse_node(c));
  return n;
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
  if (!j.is_object())
    throw Error(ErrorCode::Transport,
                "etcd answered HTTP " + std::to_string(result.http_status) +
                    " with a body that is not etcd v2 JSON: " + body.substr(0, 200));
  if (j.contains("errorCode")) {
    result.outcome = EtcdOutcome::EtcdError;
    result.error_code = j.value("errorCode", 0);
    result.message = j.value("message", "");
    result.cause = j.value("cause", "");
    return;
  }
  result.action = j.value("action", "");
  if (auto it = j.find("node"); it != j.end() && it->is_object()) result.node = parse_node(*it);
}

EtcdClient::EtcdClient(EtcdClientOptions options)
    : m_options(std::move(options)), m_handles(std::make_unique<Handles>()) {
  std::string host =
      m_options.host.find(':') != std::string::npos ? "[" + m_options.host + "]" : m_options.host;
  m_base_url = m_options.protocol + "://" + host + ":" + std::to_string(m_options.port);
  if (!m_handles->easy || !m_handles->multi)
    throw Error(ErrorCode::Internal, "curl could not create a handle");
}

EtcdClient::~EtcdClient() = default;

void EtcdClient::cancel() {
  m_cancelled = true;
  curl_multi_wakeup(m_handles->multi.get());
}

EtcdResult EtcdClient::perform(const std::string& method, const std::string& path_and_query,
                               const std::string& body, long timeout_ms, RequestKind kind) {
  CURL* easy = m_handles->easy.get();
  curl_easy_reset(easy);  // keeps the connection cache, so keep-alive connections are reused
  std::string url = m_base_url + path_and_query;
  std::string response;
  EtcdResult result;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method.c_str());
  if (method == "PUT") {
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &append_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, &read_header);
  curl_easy_setopt(easy, CURLOPT_HEADERDATA, &result.etcd_index);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, m_options.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  if (!m_options.cacert.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, m_options.cacert.c_str());
  if (!m_options.cert.empty()) curl_easy_setopt(easy, CURLOPT_SSLCERT, m_options.cert.c_str());
  if (!m_options.key.empty()) curl_easy_setopt(easy, CURLOPT_SSLKEY, m_options.key.c_str());
  struct curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Content-Type: application/x-www-form-urlencoded");
  std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)> header_list(headers,
                                                                          &curl_slist_free_all);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);

  CURLM* multi = m_handles->multi.get();
  curl_multi_add_handle(multi, easy);
  CURLcode code = CURLE_OK;
  bool done = false;
  while (!done) {
    int running = 0;
    curl_multi_perform(multi, &running);
    int queued = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &queued))
      if (msg->msg == CURLMSG_DONE) {
        code = msg->data.result;
        done = true;
      }
    if (done) break;
    if (m_cancelled) {
      curl_multi_remove_handle(multi, easy);
      result.outcome = EtcdOutcome::Cancelled;
      return result;
    }
    curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  curl_multi_remove_handle(multi, easy);
  if (code == CURLE_OPERATION_TIMEDOUT && kind == RequestKind::Watch) {
    result.outcome = EtcdOutcome::TimedOut;
    return result;
  }
  if (code != CURLE_OK)
    throw Error(ErrorCode::Transport, "etcd at " + m_base_url + ": " + method + " " +
                                          path_and_query.substr(0, 200) + ": " +
                                          curl_easy_strerror(code));
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &result.http_status);
  parse_etcd_body(response, result);
  return result;
}

std::vector<std::string> EtcdClient::machines() {
  CURL* easy = m_handles->easy.get();
  curl_easy_reset(easy);
  std::string url = m_base_url + "/v2/machines";
  std::string response;
  curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &append_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, m_options.connect_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, m_options.read_timeout_ms);
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  if (!m_options.cacert.empty()) curl_easy_setopt(easy, CURLOPT_CAINFO, m_options.cacert.c_str());
  if (!m_options.cert.empty()) curl_easy_setopt(easy, CURLOPT_SSLCERT, m_options.cert.c_str());
  if (!m_options.key.empty()) curl_easy_setopt(easy, CURLOPT_SSLKEY, m_options.key.c_str());
  CURLcode code = curl_easy_perform(easy);
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  if (code != CURLE_OK)
    throw Error(ErrorCode::Transport,
                "etcd at " + m_base_url + ": GET /v2/machines: " + curl_easy_strerror(code));
  if (status != 200)
    throw Error(ErrorCode::Transport, "etcd at " + m_base_url + ": GET /v2/machines: HTTP " +
                                          std::to_string(status) +
                                          " (is etcd running with --enable-v2?)");
  std::vector<std::string> out;
  size_t start = 0;
  while (start < response.size()) {
    size_t comma = response.find(',', start);
    std::string part =
        response.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
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
