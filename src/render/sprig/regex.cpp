// Sprig's regex functions (regex.go) on RE2, whose syntax is Go's regexp syntax. The match
// loops, `$1`/`${name}` expansion, Split and QuoteMeta follow Go's regexp package exactly
// (empty matches right after a match are skipped; the search always advances one rune).
// Compile errors read as Go's: `error parsing regexp: missing closing ): `(``; the plain
// functions panic through regexp.MustCompile (`regexp: Compile(`(`): error parsing …`).
#include "src/render/sprig/regex.hpp"

#include <re2/re2.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "src/render/go/strconv.hpp"
#include "src/render/go/unicode.hpp"
#include "src/render/go/utf8.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

using go::Rune;

namespace {

using P = Param;

std::string_view go_error_text(RE2::ErrorCode code) {
  switch (code) {
    case RE2::ErrorBadEscape: return "invalid escape sequence";
    case RE2::ErrorBadCharClass: return "invalid character class";
    case RE2::ErrorBadCharRange: return "invalid character class range";
    case RE2::ErrorMissingBracket: return "missing closing ]";
    case RE2::ErrorMissingParen: return "missing closing )";
    case RE2::ErrorUnexpectedParen: return "unexpected )";
    case RE2::ErrorTrailingBackslash: return "trailing backslash at end of expression";
    case RE2::ErrorRepeatArgument: return "missing argument to repetition operator";
    case RE2::ErrorRepeatSize: return "invalid repeat count";
    case RE2::ErrorRepeatOp: return "invalid nested repetition operator";
    case RE2::ErrorBadPerlOp: return "invalid or unsupported Perl syntax";
    case RE2::ErrorBadUTF8: return "invalid UTF-8";
    case RE2::ErrorBadNamedCapture: return "invalid named capture";
    case RE2::ErrorPatternTooLarge: return "expression too large";
    default: return "regexp/syntax: internal error";
  }
}

/// A compiled expression or Go's compile error text.
struct Compiled {
  std::shared_ptr<const RE2> re;
  std::string error;
};

/// The end of a character class that starts at expr[i] == '[': a ']' right after the '[' (or
/// "[^") is a literal, `[:alpha:]` names nest, escapes skip a byte. npos when unclosed.
size_t class_end(std::string_view expr, size_t i) {
  size_t j = i + 1;
  if (j < expr.size() && expr[j] == '^') ++j;
  if (j < expr.size() && expr[j] == ']') ++j;
  for (; j < expr.size(); ++j) {
    if (expr[j] == '\\') {
      ++j;
    } else if (expr.substr(j, 2) == "[:") {
      const size_t close = expr.find(":]", j + 2);
      if (close != std::string_view::npos) j = close + 1;
    } else if (expr[j] == ']') {
      return j;
    }
  }
  return std::string_view::npos;
}

}  // namespace

std::string re2_syntax(std::string_view expr) {
  std::string out;
  for (size_t i = 0; i < expr.size(); ++i) {
    if (expr[i] == '\\' && i + 1 < expr.size()) {
      out.append(expr.substr(i++, 2));
    } else if (const size_t end = expr[i] == '[' ? class_end(expr, i) : std::string_view::npos;
               end != std::string_view::npos) {
      out.append(expr.substr(i, end + 1 - i));
      i = end;
    } else if (expr.substr(i, 3) == "(?<") {
      out += "(?P<";
      i += 2;
    } else {
      out += expr[i];
    }
  }
  return out;
}

namespace {

/// RE2's error argument in Go's spelling: a named group it complains of was written `(?<`.
std::string go_error_arg(std::string_view expr, const std::string& arg) {
  if (!arg.starts_with("(?P<") || expr.find(arg) != std::string_view::npos) return arg;
  return "(?<" + arg.substr(4);
}

/// Whether expr has RE2's \C (any byte), an escape Go's parser refuses.
bool has_any_byte_escape(std::string_view expr) {
  for (size_t i = 0; i + 1 < expr.size(); ++i) {
    if (expr[i] != '\\') continue;
    if (expr[i + 1] == 'C') return true;
    ++i;  // the escaped character
  }
  return false;
}

Compiled compile(const std::string& expr) {
  static std::mutex mutex;
  static std::map<std::string, Compiled, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = cache.find(expr); it != cache.end()) return it->second;
  RE2::Options opts;
  opts.set_log_errors(false);
  opts.set_encoding(RE2::Options::EncodingUTF8);
  auto re = std::make_shared<RE2>(re2_syntax(expr), opts);
  Compiled c;
  if (has_any_byte_escape(expr)) {
    c.error = "error parsing regexp: invalid escape sequence: `\\C`";
  } else if (re->ok()) {
    c.re = std::move(re);
  } else {
    c.error = "error parsing regexp: " + std::string(go_error_text(re->error_code())) + ": `" +
              go_error_arg(expr, re->error_arg()) + "`";
  }
  if (cache.size() > 256) cache.clear();
  cache.emplace(expr, c);
  return c;
}

/// regexp.Compile (must: error return) or regexp.MustCompile (panic text).
std::shared_ptr<const RE2> compile_or_throw(const std::string& expr, bool must) {
  Compiled last = compile(expr);
  if (last.re) return last.re;
  if (must) throw FuncError{last.error};
  std::string quoted = go::can_backquote(expr) ? "`" + expr + "`" : go::quote(expr);
  throw FuncError{"regexp: Compile(" + quoted + "): " + last.error};
}

}  // namespace

std::string regexp_compile_error(const std::string& expr) { return compile(expr).error; }

namespace {

/// Match positions [start, end) of the whole match and each group (-1 when unset).
using Match = std::vector<int64_t>;

bool execute(const RE2& re, std::string_view s, size_t pos, Match& m) {
  int groups = re.NumberOfCapturingGroups() + 1;
  std::vector<re2::StringPiece> sub(static_cast<size_t>(groups));
  if (!re.Match(re2::StringPiece(s.data(), s.size()), pos, s.size(), RE2::UNANCHORED, sub.data(),
                groups)) {
    return false;
  }
  m.assign(static_cast<size_t>(groups) * 2, -1);
  for (size_t i = 0; i < sub.size(); ++i) {
    if (sub[i].data() == nullptr) continue;
    m[2 * i] = sub[i].data() - s.data();
    m[2 * i + 1] = m[2 * i] + static_cast<int64_t>(sub[i].size());
  }
  return true;
}

/// regexp's allMatches: up to n matches (n < 0: all).
std::vector<Match> all_matches(const RE2& re, std::string_view s, int64_t n) {
  std::vector<Match> out;
  if (n < 0) n = static_cast<int64_t>(s.size()) + 1;
  auto end = static_cast<int64_t>(s.size());
  int64_t prev_end = -1;
  Match m;
  for (int64_t pos = 0, i = 0; i < n && pos <= end;) {
    if (!execute(re, s, static_cast<size_t>(pos), m)) break;
    bool accept = true;
    if (m[1] == pos) {
      if (m[0] == prev_end) accept = false;  // no empty match right after a match
      pos += pos < end ? static_cast<int64_t>(decode_rune(s.substr(pos)).width) : 1;
    } else {
      pos = m[1];
    }
    prev_end = m[1];
    if (accept) {
      out.push_back(m);
      ++i;
    }
  }
  return out;
}

/// regexp's extract: a `$name`/`${name}` reference at the start of str.
bool extract(std::string_view str, std::string_view& name, int64_t& num, std::string_view& rest) {
  if (str.empty()) return false;
  bool brace = str[0] == '{';
  if (brace) str.remove_prefix(1);
  size_t i = 0;
  while (i < str.size()) {
    Rune r = decode_rune(str.substr(i));
    if (!is_letter(r.r) && !is_digit(r.r) && r.r != '_') break;
    i += r.width;
  }
  if (i == 0) return false;
  name = str.substr(0, i);
  if (brace) {
    if (i >= str.size() || str[i] != '}') return false;
    ++i;
  }
  num = 0;
  for (char c : name) {
    if (c < '0' || c > '9' || num >= 100000000) {
      num = -1;
      break;
    }
    num = num * 10 + (c - '0');
  }
  if (name[0] == '0' && name.size() > 1) num = -1;
  rest = str.substr(i);
  return true;
}

void expand(std::string& dst, std::string_view tmpl, const RE2& re, std::string_view src,
            const Match& m) {
  auto group = [&](size_t i) {
    if (2 * i + 1 < m.size() && m[2 * i] >= 0) {
      dst +=
          src.substr(static_cast<size_t>(m[2 * i]), static_cast<size_t>(m[2 * i + 1] - m[2 * i]));
    }
  };
  while (!tmpl.empty()) {
    size_t dollar = tmpl.find('$');
    if (dollar == std::string_view::npos) break;
    dst += tmpl.substr(0, dollar);
    tmpl.remove_prefix(dollar + 1);
    if (!tmpl.empty() && tmpl[0] == '$') {
      dst += '$';
      tmpl.remove_prefix(1);
      continue;
    }
    std::string_view name, rest;
    int64_t num = 0;
    if (!extract(tmpl, name, num, rest)) {
      dst += '$';
      continue;
    }
    tmpl = rest;
    if (num >= 0) {
      group(static_cast<size_t>(num));
      continue;
    }
    for (const auto& [group_name, index] : re.NamedCapturingGroups()) {
      if (group_name == name) {
        group(static_cast<size_t>(index));
        break;
      }
    }
  }
  dst += tmpl;
}

/// regexp's replaceAll with a literal or an expanded replacement.
std::string replace_all(const RE2& re, std::string_view src, std::string_view repl, bool literal) {
  std::string buf;
  int64_t last_end = 0;
  int64_t search = 0;
  auto end = static_cast<int64_t>(src.size());
  Match m;
  while (search <= end) {
    if (!execute(re, src, static_cast<size_t>(search), m)) break;
    buf += src.substr(static_cast<size_t>(last_end), static_cast<size_t>(m[0] - last_end));
    if (m[1] > last_end || m[0] == 0) {
      if (literal) {
        buf += repl;
      } else {
        expand(buf, repl, re, src, m);
      }
    }
    last_end = m[1];
    auto width = search < end ? static_cast<int64_t>(decode_rune(src.substr(search)).width) : 0;
    if (search + width > m[1]) {
      search += width;
    } else if (search + 1 > m[1]) {
      ++search;
    } else {
      search = m[1];
    }
  }
  buf += src.substr(static_cast<size_t>(last_end));
  return buf;
}

std::vector<std::string> split(const RE2& re, const std::string& expr, std::string_view s,
                               int64_t n) {
  std::vector<std::string> out;
  if (n == 0) return out;
  if (!expr.empty() && s.empty()) return {""};
  size_t beg = 0;
  size_t end = 0;
  for (const Match& m : all_matches(re, s, n)) {
    if (n > 0 && static_cast<int64_t>(out.size()) == n - 1) break;
    end = static_cast<size_t>(m[0]);
    if (m[1] != 0) out.emplace_back(s.substr(beg, end - beg));
    beg = static_cast<size_t>(m[1]);
  }
  if (end != s.size()) out.emplace_back(s.substr(beg));
  return out;
}

std::string quote_meta(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::string_view("\\.+*?()|[]{}^$").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::vector<std::string> find_all(const RE2& re, std::string_view s, int64_t n) {
  std::vector<std::string> out;
  for (const Match& m : all_matches(re, s, n)) {
    out.emplace_back(s.substr(static_cast<size_t>(m[0]), static_cast<size_t>(m[1] - m[0])));
  }
  return out;
}

}  // namespace

void register_sprig_regex(FuncMap& map) {
  auto s = [](const FuncArgs& a, size_t i) -> const std::string& { return a[i].as_string(); };
  for (bool must : {false, true}) {
    Ret ret = must ? Ret::ValueError : Ret::Value;
    auto name = [must](std::string base) {
      if (!must) return base;
      base[0] = static_cast<char>(base[0] - 'a' + 'A');
      return "must" + base;
    };
    map.add(name("regexMatch"), fn(
                                    {P::String, P::String},
                                    [=](const FuncArgs& a) {
                                      Compiled c = compile(s(a, 0));
                                      // regexp.MatchString: the plain variant drops the compile
                                      // error (false).
                                      if (!c.re) {
                                        if (must) throw FuncError{c.error};
                                        return Value::boolean(false);
                                      }
                                      return Value::boolean(RE2::PartialMatch(s(a, 1), *c.re));
                                    },
                                    ret));
    map.add(name("regexFindAll"), fn(
                                      {P::String, P::String, P::Int},
                                      [=](const FuncArgs& a) {
                                        auto re_ptr = compile_or_throw(s(a, 0), must);
                                        const RE2& re = *re_ptr;
                                        auto found = find_all(re, s(a, 1), a[2].as_int());
                                        // FindAllString: nil when nothing matched
                                        if (found.empty())
                                          return Value::nil_list(GoType::ListString);
                                        return string_list(std::move(found));
                                      },
                                      ret));
    map.add(name("regexFind"), fn(
                                   {P::String, P::String},
                                   [=](const FuncArgs& a) {
                                     auto re_ptr = compile_or_throw(s(a, 0), must);
                                     const RE2& re = *re_ptr;
                                     std::vector<std::string> found = find_all(re, s(a, 1), 1);
                                     return Value::string(found.empty() ? "" : found[0]);
                                   },
                                   ret));
    map.add(name("regexReplaceAll"),
            fn(
                {P::String, P::String, P::String},
                [=](const FuncArgs& a) {
                  auto re_ptr = compile_or_throw(s(a, 0), must);
                  const RE2& re = *re_ptr;
                  return Value::string(replace_all(re, s(a, 1), s(a, 2), false));
                },
                ret));
    map.add(name("regexReplaceAllLiteral"),
            fn(
                {P::String, P::String, P::String},
                [=](const FuncArgs& a) {
                  auto re_ptr = compile_or_throw(s(a, 0), must);
                  const RE2& re = *re_ptr;
                  return Value::string(replace_all(re, s(a, 1), s(a, 2), true));
                },
                ret));
    map.add(name("regexSplit"),
            fn(
                {P::String, P::String, P::Int},
                [=](const FuncArgs& a) {
                  auto re_ptr = compile_or_throw(s(a, 0), must);
                  const RE2& re = *re_ptr;
                  return string_list(split(re, s(a, 0), s(a, 1), a[2].as_int()));
                },
                ret));
  }
  map.add("regexQuoteMeta",
          fn({P::String}, [=](const FuncArgs& a) { return Value::string(quote_meta(s(a, 0))); }));
}

}  // namespace ejob::render::sprig
