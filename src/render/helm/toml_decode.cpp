// fromToml's decoding with toml++ as the parser (toml.hpp says what differs from BurntSushi).
// toml++ 3.3 states as an assumption (TOML_ASSERT_ASSUME) that a table header's key starts with
// a key character, which only its own check after it reports: `[@t]` (found by the template
// fuzzer) then aborts a build without NDEBUG, and is undefined behaviour in a clang build with
// it. Its error path is what every build must take, so the assumption checks nothing here.
#include <toml++/impl/preprocessor.h>
#undef TOML_ASSERT_ASSUME
#define TOML_ASSERT_ASSUME(expr) static_cast<void>(0)
#include <toml++/toml.h>

#include <cstdio>

#include "src/render/helm/toml.hpp"

using ejob::render::go::List;
using ejob::render::go::Map;
using ejob::render::go::Value;

namespace ejob::render::helm::toml {
namespace {

std::string two(int v) {
  char buf[12];
  std::snprintf(buf, sizeof buf, "%02d", v);
  return buf;
}

std::string date_text(const ::toml::date& d) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", d.year, d.month, d.day);
  return buf;
}

// Go's time.Time.String() layout "2006-01-02 15:04:05.999999999 -0700 MST".
std::string time_text(const ::toml::time& t) {
  std::string s = two(t.hour) + ":" + two(t.minute) + ":" + two(t.second);
  if (t.nanosecond != 0) {
    char buf[16];
    std::snprintf(buf, sizeof buf, ".%09u", t.nanosecond);
    std::string frac = buf;
    while (frac.back() == '0') frac.pop_back();
    s += frac;
  }
  return s;
}

std::string offset_text(int minutes) {
  char sign = minutes < 0 ? '-' : '+';
  int m = minutes < 0 ? -minutes : minutes;
  return std::string(1, sign) + two(m / 60) + two(m % 60);
}

// BurntSushi's locations: UTC for `Z`, a nameless fixed zone (printed as its offset) for other
// offsets, and its own "datetime-local"/"date-local"/"time-local" zones otherwise.
std::string date_time_text(const ::toml::date_time& dt) {
  std::string s = date_text(dt.date) + " " + time_text(dt.time) + " ";
  if (!dt.offset) return s + "+0000 datetime-local";
  int minutes = dt.offset->minutes;
  if (minutes == 0) return s + "+0000 UTC";
  return s + offset_text(minutes) + " " + offset_text(minutes);
}

Value convert(const ::toml::node& n);

Value convert_table(const ::toml::table& t) {
  Map m;
  for (const auto& [k, v] : t) m.insert_or_assign(std::string(k.str()), convert(v));
  return Value::map(std::move(m));
}

Value convert(const ::toml::node& n) {
  if (const auto* t = n.as_table()) return convert_table(*t);
  if (const auto* a = n.as_array()) {
    List items;
    for (const auto& item : *a) items.push_back(convert(item));
    return Value::list(std::move(items));
  }
  if (const auto* s = n.as_string()) return Value::string(s->get());
  if (const auto* i = n.as_integer()) return Value::int64(i->get());
  if (const auto* f = n.as_floating_point()) return Value::float64(f->get());
  if (const auto* b = n.as_boolean()) return Value::boolean(b->get());
  if (const auto* d = n.as_date())
    return Value::string(date_text(d->get()) + " 00:00:00 +0000 date-local");
  if (const auto* t = n.as_time())
    return Value::string("0000-01-01 " + time_text(t->get()) + " +0000 time-local");
  if (const auto* dt = n.as_date_time()) return Value::string(date_time_text(dt->get()));
  return {};
}

}  // namespace

Decoded decode(const std::string& text) {
  Decoded out;
  try {
    ::toml::table t = ::toml::parse(text);
    out.value = convert_table(t);
  } catch (const ::toml::parse_error& e) {
    out.value = Value::map();
    out.error =
        "toml: line " + std::to_string(e.source().begin.line) + ": " + std::string(e.description());
  }
  return out;
}

}  // namespace ejob::render::helm::toml
