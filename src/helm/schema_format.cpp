#include "ejob/helm/schema_format.hpp"

#include <re2/re2.h>

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "ejob/go/ip.hpp"
#include "ejob/go/mail.hpp"
#include "ejob/go/time.hpp"
#include "ejob/go/url.hpp"

namespace ejob::render {
namespace {

bool parses_as(std::string_view layout, std::string_view text) {
  std::string error;
  return gotime::parse(layout, text, gotime::Location::utc(), error).has_value();
}

bool is_time(std::string_view text) {
  if (parses_as("15:04:05Z07:00", text)) return true;
  std::string error;
  const auto t = gotime::parse("15:04:05", text, gotime::Location::utc(), error);
  return t && t->format("15:04:05") == text;
}

bool is_date_time(std::string_view text) {
  for (std::string_view layout :
       {"15:04:05", "15:04:05Z07:00", "2006-01-02", "2006-01-02T15:04:05Z07:00",
        "2006-01-02T15:04:05.999999999Z07:00"})
    if (parses_as(layout, text)) return true;
  return false;
}

/// Go's regexp.MatchString (RE2 syntax) for gojsonschema's fixed expressions.
bool matches(const RE2& re, std::string_view text) { return RE2::PartialMatch(text, re); }

bool is_uri(std::string_view text, bool need_scheme) {
  const auto u = go::parse_url(text);
  return u && (!need_scheme || !u->scheme.empty()) && text.find('\\') == std::string_view::npos;
}

bool is_uri_template(std::string_view text) {
  static const RE2 k_template("^([^{]*({[^}]*})?)*$");
  const auto u = go::parse_url(text);
  return u && text.find('\\') == std::string_view::npos && matches(k_template, u->path);
}

bool is_hostname(std::string_view text) {
  static const RE2 k_hostname(
      "^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9])"
      "(\\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9\\-]{0,61}[a-zA-Z0-9]))*$");
  return matches(k_hostname, text) && text.size() < 256;
}

/// regexp.Compile succeeds: RE2's syntax, less RE2's \C (any byte), which Go refuses.
bool is_regex(std::string_view text) {
  if (text.empty()) return true;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] != '\\') continue;
    if (text[i + 1] == 'C') return false;
    ++i;  // the escaped character
  }
  RE2::Options opts;
  opts.set_log_errors(false);
  return RE2(text, opts).ok();
}

bool is_uuid(std::string_view text) {
  static const RE2 k_uuid("^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$");
  return matches(k_uuid, text);
}

bool is_json_pointer(std::string_view text) {
  static const RE2 k_pointer("^(?:/(?:[^~/]|~0|~1)*)*$");
  return matches(k_pointer, text);
}

bool is_relative_json_pointer(std::string_view text) {
  static const RE2 k_relative("^(?:0|[1-9][0-9]*)(?:#|(?:/(?:[^~/]|~0|~1)*)*)$");
  return matches(k_relative, text);
}

using Check = bool (*)(std::string_view);

/// gojsonschema's FormatCheckers: every name it knows and the check behind it.
constexpr std::array<std::pair<std::string_view, Check>, 17> k_checkers = {{
    {"date", [](std::string_view t) { return parses_as("2006-01-02", t); }},
    {"time", is_time},
    {"date-time", is_date_time},
    {"hostname", is_hostname},
    {"email", go::parses_as_address},
    {"idn-email", go::parses_as_address},
    {"ipv4", [](std::string_view t) { return go::parses_as_ip(t) && t.find('.') != t.npos; }},
    {"ipv6", [](std::string_view t) { return go::parses_as_ip(t) && t.find(':') != t.npos; }},
    {"uri", [](std::string_view t) { return is_uri(t, true); }},
    {"uri-reference", [](std::string_view t) { return is_uri(t, false); }},
    {"iri", [](std::string_view t) { return is_uri(t, true); }},
    {"iri-reference", [](std::string_view t) { return is_uri(t, false); }},
    {"uri-template", is_uri_template},
    {"uuid", is_uuid},
    {"regex", is_regex},
    {"json-pointer", is_json_pointer},
    {"relative-json-pointer", is_relative_json_pointer},
}};

/// The check of a format; nullptr for one gojsonschema does not know.
Check checker(std::string_view format) {
  for (const auto& [name, check] : k_checkers)
    if (name == format) return check;
  return nullptr;
}

}  // namespace

bool string_has_format(std::string_view format, std::string_view text) {
  const Check check = checker(format);
  return check == nullptr || check(text);
}

}  // namespace ejob::render
