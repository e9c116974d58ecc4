#include "src/agent/rendezvous/rdzv_conf.hpp"

#include <cctype>
#include <string_view>

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

std::string strip(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

bool all_digits(const std::string& s, size_t max_len) {
  if (s.empty() || s.size() > max_len) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

int conf_int(const std::map<std::string, std::string>& conf, const std::string& key, int def) {
  auto it = conf.find(key);
  if (it == conf.end()) return def;
  std::string v = it->second;
  bool negative = !v.empty() && v[0] == '-';
  if (!all_digits(negative ? v.substr(1) : v, 9))
    throw Error(ErrorCode::Usage, "The rendezvous configuration option '" + key +
                                      "' does not represent a valid integer value.");
  return std::stoi(v);
}

/// RendezvousParameters.get_as_bool: 1/true/t/yes/y and 0/false/f/no/n, any case.
std::optional<bool> conf_bool(const std::map<std::string, std::string>& conf,
                              const std::string& key) {
  auto it = conf.find(key);
  if (it == conf.end()) return std::nullopt;
  std::string v;
  for (char c : it->second) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "1" || v == "true" || v == "t" || v == "yes" || v == "y") return true;
  if (v == "0" || v == "false" || v == "f" || v == "no" || v == "n") return false;
  throw Error(ErrorCode::Usage, "The rendezvous configuration option '" + key +
                                    "' does not represent a valid boolean value.");
}
}  // namespace

std::map<std::string, std::string> parse_rdzv_conf(const std::string& text) {
  std::map<std::string, std::string> conf;
  std::string s = strip(text);
  if (s.empty()) return conf;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string kv =
        s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t eq = kv.find('=');
    std::string key = strip(kv.substr(0, eq));
    if (key.empty())
      throw Error(ErrorCode::Usage,
                  "The rendezvous configuration string must be in format "
                  "<key1>=<value1>,...,<keyN>=<valueN>.");
    std::string value = eq == std::string::npos ? "" : strip(kv.substr(eq + 1));
    if (value.empty())
      throw Error(ErrorCode::Usage,
                  "The rendezvous configuration option '" + key + "' must have a value specified.");
    conf[key] = value;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return conf;
}

Endpoint parse_endpoint(const std::string& text, int default_port) {
  std::string ep = strip(text);
  if (ep.empty()) return {"localhost", default_port};
  std::string host = ep;
  std::string port_text;
  bool has_port = false;
  if (!(ep.front() == '[' && ep.back() == ']')) {
    size_t colon = ep.rfind(':');
    if (colon != std::string::npos) {
      host = ep.substr(0, colon);
      port_text = ep.substr(colon + 1);
      has_port = true;
    }
  }
  if (host.size() > 1 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  int port = default_port;
  if (has_port) {
    if (!all_digits(port_text, 5) || std::stoi(port_text) >= 65536)
      throw Error(ErrorCode::Usage, "The port number of the rendezvous endpoint '" + ep +
                                        "' must be an integer between 0 and 65536.");
    port = std::stoi(port_text);
  }
  bool ok = !host.empty();
  for (char c : host)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == ':' ||
                c == '-');
  if (!ok)
    throw Error(ErrorCode::Usage, "The hostname of the rendezvous endpoint '" + ep +
                                      "' must be a dot-separated list of labels, an IPv4 "
                                      "address, or an IPv6 address.");
  return {host, port};
}

EtcdSettings etcd_settings(const std::map<std::string, std::string>& conf) {
  EtcdSettings s;
  s.timeout_s = conf_int(conf, "timeout", s.timeout_s);
  s.last_call_timeout_s = conf_int(conf, "last_call_timeout", s.last_call_timeout_s);
  s.fast_reform = conf_bool(conf, "fast_reform").value_or(true);
  auto get = [&](const char* key, std::string& out) {
    if (auto it = conf.find(key); it != conf.end()) out = it->second;
  };
  get("etcd_prefix", s.prefix);
  get("protocol", s.protocol);
  get("cacert", s.cacert);
  get("cert", s.cert);
  get("key", s.key);
  if (s.protocol != "http" && s.protocol != "https")
    throw Error(ErrorCode::Usage, "The etcd protocol must be HTTP or HTTPS.");
  return s;
}

namespace {

int positive_seconds(const std::map<std::string, std::string>& conf, const std::string& key,
                     int def) {
  int v = conf_int(conf, key, def);
  if (v <= 0)
    throw Error(ErrorCode::Usage,
                "The " + key + " of the rendezvous configuration must be a positive number.");
  return v;
}

}  // namespace

EtcdSettings etcd_v2_settings(const std::map<std::string, std::string>& conf) {
  EtcdSettings s;
  auto get = [&](const char* key, std::string& out) {
    if (auto it = conf.find(key); it != conf.end()) out = it->second;
  };
  get("protocol", s.protocol);
  get("ca_cert", s.cacert);
  get("ssl_cert", s.cert);
  get("ssl_cert_key", s.key);
  if (s.protocol != "http" && s.protocol != "https")
    throw Error(ErrorCode::Usage, "The protocol must be HTTP or HTTPS.");
  return s;
}

DynamicSettings dynamic_settings(const std::map<std::string, std::string>& conf) {
  DynamicSettings s;
  s.is_host = conf_bool(conf, "is_host");
  s.read_timeout_s = positive_seconds(conf, "read_timeout", s.read_timeout_s);
  s.join_timeout_s = positive_seconds(conf, "join_timeout", s.join_timeout_s);
  s.last_call_timeout_s = positive_seconds(conf, "last_call_timeout", s.last_call_timeout_s);
  s.close_timeout_s = positive_seconds(conf, "close_timeout", s.close_timeout_s);
  s.fast_reform = conf_bool(conf, "fast_reform").value_or(true);
  return s;
}

}  // namespace ejob::agent
