#include "src/agent/rendezvous/rdzv_state.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

[[noreturn]] void malformed(const std::string& why, const std::string& text) {
  throw Error(ErrorCode::Input, "malformed rendezvous state (" + why + "): " + text.substr(0, 400));
}

/// Decodes one UTF-8 code point starting at s[i]; invalid bytes decode as themselves.
unsigned decode_utf8(std::string_view s, size_t& i) {
  auto b = static_cast<unsigned char>(s[i]);
  int extra = b >= 0xF0 ? 3 : b >= 0xE0 ? 2 : b >= 0xC0 ? 1 : 0;
  unsigned cp = extra == 3 ? b & 0x07 : extra == 2 ? b & 0x0F : extra == 1 ? b & 0x1F : b;
  if (i + static_cast<size_t>(extra) >= s.size()) return b;
  for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += static_cast<size_t>(extra);
  return cp;
}

void append_u16(std::string& out, unsigned unit) {
  static const char* hex = "0123456789abcdef";
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += hex[(unit >> shift) & 15];
}

}  // namespace

std::string py_json_string(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      default: break;
    }
    auto b = static_cast<unsigned char>(c);
    if (b < 0x20) {
      append_u16(out, b);
    } else if (b < 0x80) {
      out += c;
    } else {
      unsigned cp = decode_utf8(s, i);
      if (cp >= 0x10000) {
        cp -= 0x10000;
        append_u16(out, 0xD800 + (cp >> 10));
        append_u16(out, 0xDC00 + (cp & 0x3FF));
      } else {
        append_u16(out, cp);
      }
    }
  }
  return out + "\"";
}

std::string to_json(const RdzvState& s) {
  std::string out = "{\"status\": " + py_json_string(s.status);
  if (s.version) out += ", \"version\": " + py_json_string(*s.version);
  if (s.participants) {
    out += ", \"participants\": [";
    for (size_t i = 0; i < s.participants->size(); ++i)
      out += (i ? ", " : "") + std::to_string((*s.participants)[i]);
    out += "]";
  }
  if (s.keep_alives) {
    out += ", \"keep_alives\": [";
    for (size_t i = 0; i < s.keep_alives->size(); ++i)
      out += (i ? ", " : "") + py_json_string((*s.keep_alives)[i]);
    out += "]";
  }
  if (s.num_workers_waiting)
    out += ", \"num_workers_waiting\": " + std::to_string(*s.num_workers_waiting);
  return out + "}";
}

RdzvState parse_rdzv_state(const std::string& text) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    malformed("not JSON", text);
  }
  if (!j.is_object()) malformed("not a JSON object", text);
  RdzvState s;
  auto status = j.find("status");
  if (status == j.end() || !status->is_string()) malformed("status must be a string", text);
  s.status = status->get<std::string>();
  static const std::vector<std::string> known = {"setup", "joinable", "frozen", "final", "closed"};
  if (std::find(known.begin(), known.end(), s.status) == known.end())
    malformed("unknown status '" + s.status + "'", text);
  if (auto v = j.find("version"); v != j.end()) {
    if (!v->is_string()) malformed("version must be a string", text);
    s.version = v->get<std::string>();
  } else if (s.status != "setup" && s.status != "closed") {
    malformed("version is missing", text);
  }
  if (auto p = j.find("participants"); p != j.end()) {
    if (!p->is_array()) malformed("participants must be a list of integers", text);
    s.participants.emplace();
    for (const auto& x : *p) {
      if (!x.is_number_integer()) malformed("participants must be a list of integers", text);
      s.participants->push_back(x.get<int>());
    }
  } else if (s.status != "setup" && s.status != "closed") {
    malformed("participants is missing", text);
  }
  if (auto k = j.find("keep_alives"); k != j.end()) {
    if (!k->is_array()) malformed("keep_alives must be a list of strings", text);
    s.keep_alives.emplace();
    for (const auto& x : *k) {
      if (!x.is_string()) malformed("keep_alives must be a list of strings", text);
      s.keep_alives->push_back(x.get<std::string>());
    }
  } else if (s.status == "frozen" || s.status == "final") {
    malformed("keep_alives is missing", text);
  }
  if (auto n = j.find("num_workers_waiting"); n != j.end()) {
    if (!n->is_number_integer()) malformed("num_workers_waiting must be an integer", text);
    s.num_workers_waiting = n->get<int>();
  } else if (s.status == "final") {
    malformed("num_workers_waiting is missing", text);
  }
  return s;
}

}  // namespace ejob::agent
