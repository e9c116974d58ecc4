// Sprig's Unicode-aware text functions: upper, lower, title, untitle, trim, nospace, initials,
// swapcase (goutils), snakecase, kebabcase, camelcase, shuffle (huandu/xstrings v1.5.0, Sprig
// v3.3.0's camelcase being its ToPascalCase; snake/kebab/shuffle did not change since 1.3.3), and
// the random strings randAlphaNum, randAlpha, randAscii, randNumeric, randInt.
#include <string>
#include <string_view>

#include "src/render/go/unicode.hpp"
#include "src/render/go/utf8.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

using go::Rune;
using go::unicode::is_digit;
using go::unicode::is_letter;
using go::unicode::is_lower;
using go::unicode::is_space;
using go::unicode::is_title;
using go::unicode::is_upper;
using go::unicode::to_lower;
using go::unicode::to_title;
using go::unicode::to_upper;
using go::unicode::trim_space;

namespace {

using P = Param;

bool is_punct(char32_t r) {
  if (r < 0x80) {
    return r != 0 && std::string_view("!\"#%&'()*,-./:;?@[\\]_{}").find(static_cast<char>(r)) !=
                         std::string_view::npos;
  }
  return !is_letter(r) && !is_digit(r) && !is_space(r) && r >= 0xA1 && r < 0x2100 && r != 0xA2 &&
         r != 0xA3 && r != 0xA4 && r != 0xA5;
}

bool is_connector(char32_t r) { return r == '-' || r == '_' || is_space(r); }

/// xstrings isAlphabet: letters other than CJK ideographs.
bool is_alphabet(char32_t r) {
  if (!is_letter(r)) return false;
  if (r < 0x3400) return true;
  if ((r >= 0x4E00 && r <= 0x9FCC) || (r >= 0x3400 && r <= 0x4D85) ||
      (r >= 0x20000 && r <= 0x2B81D)) {
    return false;
  }
  return true;
}

/// strings.Title's separator rule.
bool is_separator(char32_t r) {
  if (r <= 0x7F) {
    return !((r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') ||
             r == '_');
  }
  if (is_letter(r) || is_digit(r)) return false;
  return is_space(r);
}

/// goutils.DeleteWhiteSpace: byte-wise; when anything is removed, every kept byte is written
/// as the rune of its value (so non-ASCII text is re-encoded as Latin-1 runes, as Go does).
std::string delete_white_space(const std::string& s) {
  std::string out;
  size_t kept = 0;
  for (unsigned char c : s) {
    if (is_space(c)) continue;
    append_rune(out, c);
    ++kept;
  }
  return kept == s.size() ? s : out;
}

/// goutils.Initials with white-space delimiters (byte-wise, like Go's code).
std::string initials(const std::string& s) {
  std::string out;
  bool gap = true;
  for (unsigned char c : s) {
    if (is_space(c)) {
      gap = true;
    } else if (gap) {
      append_rune(out, c);
      gap = false;
    }
  }
  return out;
}

std::string swap_case(const std::string& s) {
  std::u32string b = to_runes(s);
  bool ws = true;
  for (char32_t& ch : b) {
    if (is_upper(ch) || is_title(ch)) {
      ch = to_lower(ch);
      ws = false;
    } else if (is_lower(ch)) {
      ch = ws ? to_title(ch) : to_upper(ch);
      ws = false;
    } else {
      ws = is_space(ch);
    }
  }
  return from_runes(b);
}

std::string untitle(const std::string& s) {
  std::u32string b = to_runes(s);
  bool next = true;
  for (char32_t& ch : b) {
    if (is_space(ch)) {
      next = true;
    } else if (next) {
      ch = to_lower(ch);
      next = false;
    }
  }
  return from_runes(b);
}

std::string title(std::string_view s) {
  char32_t prev = ' ';
  return map_runes(s, [&](char32_t r) {
    char32_t out = is_separator(prev) ? to_title(r) : r;
    prev = r;
    return out;
  });
}

/// xstrings.ToCamelCase (1.3.3: upper camel case).
/// xstrings v1.5.0's ToPascalCase, Sprig v3.3.0's camelcase: connectors between words dropped,
/// each word's first rune upper-cased, and the rest of a word lower-cased only while it runs in
/// upper case from an upper-case start ("HTTPServer" -> "Httpserver", "fooBar" -> "FooBar";
/// xstrings 1.3.3's ToCamelCase lower-cased every non-initial rune: "Foobar").
std::string pascal_case(std::string_view str) {
  if (str.empty()) return "";
  std::string out;
  char32_t r0 = 0;
  size_t size = 0;
  bool upper_run = false;  // xstrings' isFirstRuneUpper
  while (!str.empty()) {
    Rune d = decode_rune(str);
    r0 = d.r;
    size = d.width;
    str.remove_prefix(d.width);
    if (!is_connector(r0)) {
      upper_run = is_upper(r0);
      r0 = to_upper(r0);
      break;
    }
    append_rune(out, r0);
  }
  if (str.empty()) {
    if (size != 0) append_rune(out, r0);
    return out;
  }
  while (!str.empty()) {
    char32_t r1 = r0;
    Rune d = decode_rune(str);
    r0 = d.r;
    str.remove_prefix(d.width);
    if (is_connector(r0) && is_connector(r1)) {
      append_rune(out, r1);
      continue;
    }
    if (is_connector(r1)) {
      upper_run = is_upper(r0);
      r0 = to_upper(r0);
    } else {
      if (upper_run && is_upper(r0))
        r0 = to_lower(r0);
      else
        upper_run = false;
      append_rune(out, r1);
    }
  }
  append_rune(out, r0);
  return out;
}

enum class Word : uint8_t { Invalid, Number, Upper, Alphabet, Connector, Punct, Other };

struct Next {
  Word type = Word::Invalid;
  std::string_view word;
  std::string_view rest;
};

/// xstrings nextValidRune: skips invalid encodings; at the end returns `prev`.
Rune next_valid(std::string_view s, char32_t prev) {
  size_t size = 0;
  while (!s.empty()) {
    Rune d = decode_rune(s);
    size += d.width;
    if (d.r != k_rune_error) return {d.r, size};
    s.remove_prefix(d.width);
  }
  return {prev, size};
}

/// Consumes runes while `keep` holds; returns the consumed byte count added to offset.
template <class F>
void consume(std::string_view& rem, size_t& offset, char32_t& r, F keep) {
  while (!rem.empty()) {
    Rune d = next_valid(rem, r);
    r = d.r;
    if (!keep(r, d.width)) break;
    offset += d.width;
    rem.remove_prefix(d.width);
  }
}

Next next_word(std::string_view str) {
  Next n;
  if (str.empty()) return n;
  std::string_view rem = str;
  Rune first = next_valid(rem, k_rune_error);
  char32_t r = first.r;
  size_t offset = first.width;
  if (r == k_rune_error) return {Word::Invalid, str.substr(0, offset), str.substr(offset)};
  rem.remove_prefix(first.width);
  auto lower_alpha = [](char32_t c, size_t) { return is_alphabet(c) && !is_upper(c); };
  if (is_connector(r)) {
    n.type = Word::Connector;
    consume(rem, offset, r, [](char32_t c, size_t) { return is_connector(c); });
  } else if (is_punct(r)) {
    n.type = Word::Punct;
    consume(rem, offset, r, [](char32_t c, size_t) { return is_punct(c); });
  } else if (is_upper(r)) {
    n.type = Word::Upper;
    if (!rem.empty()) {
      Rune d = next_valid(rem, r);
      r = d.r;
      if (is_upper(r)) {
        size_t prev_size = d.width;
        offset += d.width;
        rem.remove_prefix(d.width);
        consume(rem, offset, r, [&](char32_t c, size_t w) {
          if (!is_upper(c)) return false;
          prev_size = w;
          return true;
        });
        // "HTTPStatus" splits into "HTTP" and "Status".
        if (!rem.empty() && is_alphabet(r)) {
          offset -= prev_size;
          rem = str.substr(offset);
        }
      } else if (is_alphabet(r)) {
        offset += d.width;
        rem.remove_prefix(d.width);
        consume(rem, offset, r, lower_alpha);
      }
    }
  } else if (is_alphabet(r)) {
    n.type = Word::Alphabet;
    consume(rem, offset, r, lower_alpha);
  } else if (is_digit(r)) {
    n.type = Word::Number;
    consume(rem, offset, r, [](char32_t c, size_t) { return is_digit(c); });
  } else {
    n.type = Word::Other;
    consume(rem, offset, r, [](char32_t c, size_t w) {
      return !(w == 0 || is_connector(c) || is_alphabet(c) || is_digit(c) || is_punct(c));
    });
  }
  n.word = str.substr(0, offset);
  n.rest = rem;
  return n;
}

void lower_word(std::string& out, Word t, std::string_view s, char32_t connector) {
  if (t != Word::Upper && t != Word::Connector) {
    out += s;
    return;
  }
  while (!s.empty()) {
    Rune d = decode_rune(s);
    s.remove_prefix(d.width);
    if (is_connector(d.r)) {
      append_rune(out, connector);
    } else {
      append_rune(out, is_upper(d.r) ? to_lower(d.r) : d.r);
    }
  }
}

/// xstrings camelCaseToLowerCase (snakecase, kebabcase).
std::string to_lower_case(std::string_view str, char32_t conn) {
  if (str.empty()) return "";
  std::string out;
  Next w = next_word(str);
  auto more = [](Word t) { return t == Word::Alphabet || t == Word::Number; };
  auto joins = [](Word t) {
    return t != Word::Invalid && t != Word::Punct && t != Word::Connector;
  };
  while (!w.rest.empty()) {
    if (w.type != Word::Connector) lower_word(out, w.type, w.word, conn);
    Word prev = w.type;
    std::string_view last = w.word;
    w = next_word(w.rest);
    if (prev == Word::Number) {
      while (more(w.type)) {
        lower_word(out, w.type, w.word, conn);
        w = next_word(w.rest);
      }
      if (joins(w.type)) append_rune(out, conn);
    } else if (prev == Word::Connector) {
      lower_word(out, prev, last, conn);
    } else if (prev != Word::Punct) {
      if (w.type != Word::Number) {
        if (w.type != Word::Connector && w.type != Word::Punct) append_rune(out, conn);
        continue;
      }
      if (w.rest.empty()) continue;
      std::string_view num = w.word;
      w = next_word(w.rest);
      if (w.type != Word::Alphabet) {
        // A number inside a word stays with it: "Bld4Floor" -> "bld4_floor".
        lower_word(out, Word::Number, num, conn);
        if (w.type != Word::Connector && w.type != Word::Punct) append_rune(out, conn);
        continue;
      }
      // Lower-case letters after a number start a new word: "HTTP2xx" -> "http_2xx".
      append_rune(out, conn);
      lower_word(out, Word::Number, num, conn);
      while (more(w.type)) {
        lower_word(out, w.type, w.word, conn);
        w = next_word(w.rest);
      }
      if (joins(w.type)) append_rune(out, conn);
    }
  }
  lower_word(out, w.type, w.word, conn);
  return out;
}

/// A uniform integer in [0, n) from the injected random source.
uint64_t random_below(const Env& env, uint64_t n) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  while (true) {
    uint64_t x = env.random_u64();
    if (x < limit) return x % n;
  }
}

/// goutils.CryptoRandom(count, start, end, letters, numbers) for the ASCII ranges Sprig uses.
std::string random_string(const Env& env, int64_t count, char32_t start, char32_t end, bool letters,
                          bool numbers) {
  std::string out;
  if (count <= 0) return out;  // Sprig drops goutils' error for negative counts
  while (static_cast<int64_t>(out.size()) < count) {
    auto ch = static_cast<char32_t>(start + random_below(env, end - start));
    if ((letters && is_letter(ch)) || (numbers && is_digit(ch)) || (!letters && !numbers)) {
      out.push_back(static_cast<char>(ch));
    }
  }
  return out;
}

}  // namespace

void register_sprig_text(FuncMap& map, const std::shared_ptr<const Env>& env) {
  auto str = [](std::string x) { return Value::string(std::move(x)); };
  auto unary = [&](std::string name, std::string (*f)(const std::string&)) {
    map.add(std::move(name),
            fn({P::String}, [f, str](const FuncArgs& a) { return str(f(a[0].as_string())); }));
  };
  unary("upper", [](const std::string& s) { return map_runes(s, to_upper); });
  unary("lower", [](const std::string& s) { return map_runes(s, to_lower); });
  unary("title", [](const std::string& s) { return title(s); });
  unary("untitle", untitle);
  unary("trim", [](const std::string& s) { return trim_space(s); });
  unary("nospace", delete_white_space);
  unary("initials", initials);
  unary("swapcase", swap_case);
  unary("snakecase", [](const std::string& s) { return to_lower_case(s, '_'); });
  unary("kebabcase", [](const std::string& s) { return to_lower_case(s, '-'); });
  unary("camelcase", [](const std::string& s) { return pascal_case(s); });
  map.add("shuffle", fn({P::String}, [env, str](const FuncArgs& a) {
            std::u32string runes = to_runes(a[0].as_string());
            for (size_t i = runes.size(); i > 1; --i) {
              std::swap(runes[i - 1], runes[random_below(*env, i)]);
            }
            return str(a[0].as_string().empty() ? "" : from_runes(runes));
          }));
  auto rand_fn = [&](std::string name, char32_t start, char32_t end, bool letters, bool numbers) {
    map.add(std::move(name), fn({P::Int}, [=](const FuncArgs& a) {
              return str(random_string(*env, a[0].as_int(), start, end, letters, numbers));
            }));
  };
  rand_fn("randAlphaNum", ' ', 'z' + 1, true, true);
  rand_fn("randAlpha", ' ', 'z' + 1, true, false);
  rand_fn("randNumeric", ' ', 'z' + 1, false, true);
  rand_fn("randAscii", 32, 127, false, false);
  map.add("randInt", fn({P::Int, P::Int}, [env](const FuncArgs& a) {
            int64_t lo = a[0].as_int();
            int64_t n = a[1].as_int() - lo;
            if (n <= 0) throw FuncError{"invalid argument to Intn"};
            return Value::integer(
                lo + static_cast<int64_t>(random_below(*env, static_cast<uint64_t>(n))));
          }));
}

}  // namespace ejob::render::sprig
