// Sprig's byte-oriented string functions (strings.go and the string entries of functions.go):
// trunc, substr, repeat, trim*, contains, has*, quote, squote, cat, indent, nindent, replace,
// plural, toString, join, split*, toStrings, abbrev*, wrap*.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <string>
#include <string_view>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/go/unicode.hpp"
#include "src/render/go/utf8.hpp"
#include "src/render/sprig/limits.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

using go::go_quote;
using go::Rune;

namespace {

using P = Param;

[[noreturn]] void slice_panic(const std::string& what) {
  throw FuncError{"runtime error: slice bounds out of range " + what};
}

/// Go's s[lo:hi] on a string, with Go's runtime panics as errors.
std::string go_slice(const std::string& s, int64_t lo, int64_t hi) {
  auto len = static_cast<int64_t>(s.size());
  if (hi < 0) slice_panic("[:" + std::to_string(hi) + "]");
  if (hi > len) {
    slice_panic("[:" + std::to_string(hi) + "] with length " + std::to_string(len));
  }
  if (lo < 0) slice_panic("[" + std::to_string(lo) + ":]");
  if (lo > hi) slice_panic("[" + std::to_string(lo) + ":" + std::to_string(hi) + "]");
  return s.substr(static_cast<size_t>(lo), static_cast<size_t>(hi - lo));
}

std::atomic<std::int64_t> g_max_string_bytes{0};  // 0: not asked yet

/// Refuses a string of `bytes` over max_string_bytes(), where Helm's Go would die.
void refuse_larger_than_memory(int64_t bytes) {
  if (bytes > max_string_bytes())
    throw FuncError{"runtime: out of memory: a string of " + std::to_string(bytes) +
                    " bytes is more than this machine's memory"};
}

/// Refuses `s` grown by `growth` bytes `count` times (a sum past int64 is over any limit).
void refuse_grown_larger_than_memory(std::string_view s, int64_t count, int64_t growth) {
  const auto size = static_cast<int64_t>(s.size());
  refuse_larger_than_memory(
      growth > 0 && count > (INT64_MAX - size) / growth ? INT64_MAX : size + count * growth);
}

/// How many times strings.Replace(s, from, …, -1) replaces: after each rune and at the start
/// for an empty `from`.
int64_t replacements(std::string_view s, std::string_view from) {
  int64_t n = 0;
  if (from.empty()) {
    for (; !s.empty(); ++n) s.remove_prefix(decode_rune(s).width);
    return n + 1;
  }
  for (size_t hit = s.find(from); hit != std::string_view::npos; hit = s.find(from, hit))
    ++n, hit += from.size();
  return n;
}

std::string go_repeat(std::string_view s, int64_t count) {
  if (count < 0) throw FuncError{"strings: negative Repeat count"};
  if (count == 0 || s.empty()) return "";
  // Go 1.24's wording (1.19 said "Repeat count causes overflow").
  if (static_cast<int64_t>(s.size()) > INT64_MAX / count)
    throw FuncError{"strings: Repeat output length overflow"};
  // strings.Builder.Grow(n) allocates with bytealg.MakeNoZero(n) in Go 1.24, whose limit is
  // the runtime's maxAlloc (2^48 on amd64) and whose panic names the length, not the capacity.
  if (static_cast<int64_t>(s.size()) * count > (int64_t{1} << 48))
    throw FuncError{"runtime error: makeslice: len out of range"};
  refuse_larger_than_memory(static_cast<int64_t>(s.size()) * count);
  std::string out;
  out.reserve(s.size() * static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) out += s;
  return out;
}

/// strings.Replace(s, old, new, -1).
std::string replace_all(std::string_view s, std::string_view from, std::string_view to) {
  std::string out;
  if (from.empty()) {
    // An empty old string matches at the start and after each rune.
    out += to;
    while (!s.empty()) {
      size_t w = decode_rune(s).width;
      out += s.substr(0, w);
      out += to;
      s.remove_prefix(w);
    }
    return out;
  }
  size_t pos = 0;
  while (true) {
    size_t hit = s.find(from, pos);
    if (hit == std::string_view::npos) break;
    out += s.substr(pos, hit - pos);
    out += to;
    pos = hit + from.size();
  }
  out += s.substr(pos);
  return out;
}

bool rune_in(std::string_view set, char32_t r) {
  while (!set.empty()) {
    Rune d = decode_rune(set);
    if (d.r == r) return true;
    set.remove_prefix(d.width);
  }
  return false;
}

/// strings.Trim(s, cutset).
std::string trim_cutset(std::string_view s, std::string_view cutset) {
  if (s.empty() || cutset.empty()) return std::string(s);
  while (!s.empty()) {
    Rune d = decode_rune(s);
    if (!rune_in(cutset, d.r)) break;
    s.remove_prefix(d.width);
  }
  while (!s.empty()) {
    Rune d = decode_last_rune(s);
    if (!rune_in(cutset, d.r)) break;
    s.remove_suffix(d.width);
  }
  return std::string(s);
}

/// strings.SplitN(s, sep, n) (n < 0: all).
std::vector<std::string> split_n(std::string_view s, std::string_view sep, int64_t n) {
  std::vector<std::string> out;
  if (n == 0) return out;
  if (sep.empty()) {
    while (!s.empty()) {
      if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) {
        out.emplace_back(s);
        return out;
      }
      size_t w = decode_rune(s).width;
      out.emplace_back(s.substr(0, w));
      s.remove_prefix(w);
    }
    return out;
  }
  while (n < 0 || static_cast<int64_t>(out.size()) < n - 1) {
    size_t hit = s.find(sep);
    if (hit == std::string_view::npos) break;
    out.emplace_back(s.substr(0, hit));
    s.remove_prefix(hit + sep.size());
  }
  out.emplace_back(s);
  return out;
}

Value split_map(const std::vector<std::string>& parts) {
  Map m;
  for (size_t i = 0; i < parts.size(); ++i) {
    m.emplace("_" + std::to_string(i), Value::string(parts[i]));
  }
  return Value::map(std::move(m), GoType::MapString);
}

/// goutils.AbbreviateFull; nullopt for its error cases.
std::optional<std::string> abbreviate_full(const std::string& str, int64_t offset, int64_t width) {
  if (str.empty()) return std::string();
  if (width < 4) return std::nullopt;
  auto len = static_cast<int64_t>(str.size());
  if (len <= width) return str;
  if (offset > len) offset = len;
  if (len - offset < width - 3) offset = len - (width - 3);
  if (offset <= 4) return str.substr(0, static_cast<size_t>(width - 3)) + "...";
  if (width < 7) return std::nullopt;
  if (offset + width - 3 < len) {
    return "..." +
           abbreviate_full(str.substr(static_cast<size_t>(offset)), 0, width - 3).value_or("");
  }
  return "..." + str.substr(static_cast<size_t>(len - (width - 3)));
}

/// goutils.WrapCustom.
std::string wrap_custom(const std::string& str, int64_t width, std::string nl, bool long_words) {
  if (str.empty()) return "";
  if (nl.empty()) nl = "\n";
  if (width < 1) width = 1;
  auto w = static_cast<size_t>(width);
  size_t len = str.size();
  size_t offset = 0;
  std::string out;
  while (len - offset > w) {
    if (str[offset] == ' ') {
      ++offset;
      continue;
    }
    size_t space = str.substr(offset, w + 1).rfind(' ');
    if (space != std::string::npos) {
      out += str.substr(offset, space) + nl;
      offset += space + 1;
    } else if (long_words) {
      out += str.substr(offset, w) + nl;
      offset += w;
    } else {
      size_t next = str.find(' ', offset + w);
      if (next == std::string::npos) {
        out += str.substr(offset);
        offset = len;
      } else {
        out += str.substr(offset, next - offset) + nl;
        offset = next + 1;
      }
    }
  }
  out += str.substr(offset);
  return out;
}

/// Sprig's replace: replace_all, refused before it is built when its result is over the limit.
std::string replace_checked(std::string_view s, std::string_view from, std::string_view to) {
  if (to.size() > from.size())
    refuse_grown_larger_than_memory(s, replacements(s, from),
                                    static_cast<int64_t>(to.size() - from.size()));
  return replace_all(s, from, to);
}

std::string indent(int64_t spaces, const std::string& s) {
  std::string pad = go_repeat(" ", spaces);
  // The pad at the start and after every newline, checked before building any of it.
  refuse_grown_larger_than_memory(s, std::count(s.begin(), s.end(), '\n') + 1, spaces);
  return pad + replace_all(s, "\n", "\n" + pad);
}

/// Argument i, a string.
const std::string& string_arg(const FuncArgs& a, size_t i) { return a[i].as_string(); }

Value string_value(std::string x) { return Value::string(std::move(x)); }

/// trunc, substr, repeat and the trims: they cut the string's bytes, as Go's slices do.
void add_cutting(FuncMap& map) {
  map.add("trunc", fn({P::Int, P::String}, [](const FuncArgs& a) {
            int64_t c = a[0].as_int();
            const std::string& x = string_arg(a, 1);
            auto len = static_cast<int64_t>(x.size());
            if (c < 0 && len + c > 0) return string_value(x.substr(static_cast<size_t>(len + c)));
            if (c >= 0 && len > c) return string_value(x.substr(0, static_cast<size_t>(c)));
            return string_value(x);
          }));
  map.add("substr", fn({P::Int, P::Int, P::String}, [](const FuncArgs& a) {
            int64_t start = a[0].as_int();
            int64_t end = a[1].as_int();
            const std::string& x = string_arg(a, 2);
            auto len = static_cast<int64_t>(x.size());
            if (start < 0) return string_value(go_slice(x, 0, end));
            if (end < 0 || end > len) return string_value(go_slice(x, start, len));
            return string_value(go_slice(x, start, end));
          }));
  map.add("repeat", fn({P::Int, P::String}, [](const FuncArgs& a) {
            return string_value(go_repeat(string_arg(a, 1), a[0].as_int()));
          }));
  auto trim_all = fn({P::String, P::String}, [](const FuncArgs& a) {
    return string_value(trim_cutset(string_arg(a, 1), string_arg(a, 0)));
  });
  map.add("trimall", trim_all);
  map.add("trimAll", trim_all);
  map.add("trimSuffix", fn({P::String, P::String}, [](const FuncArgs& a) {
            std::string_view x = string_arg(a, 1);
            if (x.ends_with(string_arg(a, 0))) x.remove_suffix(string_arg(a, 0).size());
            return string_value(std::string(x));
          }));
  map.add("trimPrefix", fn({P::String, P::String}, [](const FuncArgs& a) {
            std::string_view x = string_arg(a, 1);
            if (x.starts_with(string_arg(a, 0))) x.remove_prefix(string_arg(a, 0).size());
            return string_value(std::string(x));
          }));
}

/// contains, hasPrefix, hasSuffix.
void add_tests(FuncMap& map) {
  map.add("contains", fn({P::String, P::String}, [](const FuncArgs& a) {
            return Value::boolean(string_arg(a, 1).find(string_arg(a, 0)) != std::string::npos);
          }));
  map.add("hasPrefix", fn({P::String, P::String}, [](const FuncArgs& a) {
            return Value::boolean(string_arg(a, 1).starts_with(string_arg(a, 0)));
          }));
  map.add("hasSuffix", fn({P::String, P::String}, [](const FuncArgs& a) {
            return Value::boolean(string_arg(a, 1).ends_with(string_arg(a, 0)));
          }));
}

/// quote, squote and cat: the non-nil operands, joined by spaces.
void add_joining(FuncMap& map) {
  map.add("quote", fn_variadic({P::Any}, [](const FuncArgs& a) {
            std::string out;
            for (const Value& v : a.args) {
              if (v.is_nil()) continue;
              if (!out.empty()) out += ' ';
              out += go_quote(strval(v));
            }
            return string_value(out);
          }));
  map.add("squote", fn_variadic({P::Any}, [](const FuncArgs& a) {
            std::string out;
            for (const Value& v : a.args) {
              if (v.is_nil()) continue;
              if (!out.empty()) out += ' ';
              out += "'" + format_v(v) + "'";
            }
            return string_value(out);
          }));
  map.add("cat", fn_variadic({P::Any}, [](const FuncArgs& a) {
            // fmt.Sprintf("%v %v …", non-nil args...): a space between every two, even when
            // one of them prints as nothing (`cat "" "x"` is " x")
            std::string out;
            bool first = true;
            for (const Value& v : a.args) {
              if (v.is_nil()) continue;
              if (!first) out += ' ';
              first = false;
              out += format_v(v);
            }
            return string_value(out);
          }));
}

/// indent, nindent, replace, plural.
void add_layout(FuncMap& map) {
  map.add("indent", fn({P::Int, P::String}, [](const FuncArgs& a) {
            return string_value(indent(a[0].as_int(), string_arg(a, 1)));
          }));
  map.add("nindent", fn({P::Int, P::String}, [](const FuncArgs& a) {
            return string_value("\n" + indent(a[0].as_int(), string_arg(a, 1)));
          }));
  map.add(
      "replace", fn({P::String, P::String, P::String}, [](const FuncArgs& a) {
        return string_value(replace_checked(string_arg(a, 2), string_arg(a, 0), string_arg(a, 1)));
      }));
  map.add("plural", fn({P::String, P::String, P::Int}, [](const FuncArgs& a) {
            return string_value(a[2].as_int() == 1 ? string_arg(a, 0) : string_arg(a, 1));
          }));
}

/// toString, toStrings, join and the splits: strings to and from lists.
void add_conversions(FuncMap& map) {
  map.add("toString", fn({P::Any}, [](const FuncArgs& a) { return string_value(strval(a[0])); }));
  map.add("toStrings",
          fn({P::Any}, [](const FuncArgs& a) { return string_list(to_string_slice(a[0])); }));
  map.add("join", fn({P::String, P::Any}, [](const FuncArgs& a) {
            std::string out;
            bool first = true;
            for (const std::string& part : to_string_slice(a[1])) {
              if (!first) out += string_arg(a, 0);
              out += part;
              first = false;
            }
            return string_value(out);
          }));
  map.add("split", fn({P::String, P::String}, [](const FuncArgs& a) {
            return split_map(split_n(string_arg(a, 1), string_arg(a, 0), -1));
          }));
  map.add("splitn", fn({P::String, P::Int, P::String}, [](const FuncArgs& a) {
            return split_map(split_n(string_arg(a, 2), string_arg(a, 0), a[1].as_int()));
          }));
  map.add("splitList", fn({P::String, P::String}, [](const FuncArgs& a) {
            return string_list(split_n(string_arg(a, 1), string_arg(a, 0), -1));
          }));
}

/// abbrev, abbrevboth, wrap, wrapWith: shortened and wrapped text.
void add_abbreviations(FuncMap& map) {
  map.add("abbrev", fn({P::Int, P::String}, [](const FuncArgs& a) {
            if (a[0].as_int() < 4) return a[1];
            return string_value(abbreviate_full(string_arg(a, 1), 0, a[0].as_int()).value_or(""));
          }));
  map.add("abbrevboth", fn({P::Int, P::Int, P::String}, [](const FuncArgs& a) {
            int64_t left = a[0].as_int();
            int64_t right = a[1].as_int();
            if (right < 4 || (left > 0 && right < 7)) return a[2];
            return string_value(abbreviate_full(string_arg(a, 2), left, right).value_or(""));
          }));
  map.add("wrap", fn({P::Int, P::String}, [](const FuncArgs& a) {
            return string_value(wrap_custom(string_arg(a, 1), a[0].as_int(), "", false));
          }));
  map.add(
      "wrapWith", fn({P::Int, P::String, P::String}, [](const FuncArgs& a) {
        return string_value(wrap_custom(string_arg(a, 2), a[0].as_int(), string_arg(a, 1), true));
      }));
}

}  // namespace

std::int64_t max_string_bytes() {
  std::int64_t limit = g_max_string_bytes.load(std::memory_order_relaxed);
  if (limit == 0) {
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page = ::sysconf(_SC_PAGESIZE);
    limit = pages > 0 && page > 0 ? std::int64_t{pages} * page : std::int64_t{1} << 48;
    g_max_string_bytes.store(limit, std::memory_order_relaxed);
  }
  return limit;
}

void set_max_string_bytes(std::int64_t bytes) {
  g_max_string_bytes.store(bytes, std::memory_order_relaxed);
}

std::vector<std::string> to_string_slice(const Value& v) {
  std::vector<std::string> out;
  if (std::optional<List> items = slice_elements(v)) {
    for (const Value& e : *items) {
      if (!e.is_nil()) out.push_back(strval(e));
    }
    return out;
  }
  if (!v.is_nil()) out.push_back(strval(v));
  return out;
}

void register_sprig_strings(FuncMap& map, const std::shared_ptr<const Env>& /*env*/) {
  map.add("hello", fn({}, [](const FuncArgs&) { return string_value("Hello!"); }));
  add_cutting(map);
  add_tests(map);
  add_joining(map);
  add_layout(map);
  add_conversions(map);
  add_abbreviations(map);
}

}  // namespace ejob::render::sprig
