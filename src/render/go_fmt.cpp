/// Go's fmt package (print.go, format.go of Go 1.19) over render::Value. The structure follows
/// Go's pp/fmt split so that the corner cases (flags, padding, error forms) come out the same:
/// Printer::print_arg is pp.printArg (top-level operands), print_value is pp.printValue
/// (elements of lists and maps), and the fmt_* members are fmt.fmt's formatting primitives.
#include "ejob/render/go_fmt.hpp"

#include <cstdint>
#include <string>

#include "ejob/render/go_strconv.hpp"

namespace ejob::render {
namespace {

constexpr std::string_view k_ldigits = "0123456789abcdefx";
constexpr std::string_view k_udigits = "0123456789ABCDEFX";

struct Flags {
  bool plus = false;
  bool minus = false;
  bool sharp = false;
  bool space = false;
  bool zero = false;
  bool plus_v = false;
  bool sharp_v = false;
  bool wid_present = false;
  bool prec_present = false;
  int wid = 0;
  int prec = 0;
};

bool too_large(int64_t x) { return x > 1000000 || x < -1000000; }

class Printer {
 public:
  std::string buf;

  void print_arg(const Value& arg, char32_t verb);
  void do_printf(std::string_view format, std::span<const Value> args);
  void clear_flags() { m_f = Flags{}; }

 private:
  Flags m_f;
  const Value* m_arg = nullptr;  // operand being printed, for badVerb
  bool m_reordered = false;      // an explicit argument index was used

  void write_rune(char32_t r) { go::append_rune(buf, r); }
  void write_padding(int n);
  void pad(std::string_view s);
  void fmt_boolean(bool v) { pad(v ? "true" : "false"); }
  void fmt_integer(uint64_t u, int base, bool is_signed, char32_t verb, std::string_view digits);
  void fmt_unicode(uint64_t u);
  void fmt_c(uint64_t c);
  void fmt_qc(uint64_t c);
  void fmt_float(double v, int size, char32_t verb, int prec);
  std::string truncate(std::string_view s) const;
  void fmt_s(std::string_view s) { pad(truncate(s)); }
  void fmt_sx(std::string_view s, std::string_view digits);
  void fmt_q(std::string_view s);
  void fmt_0x64(uint64_t v, bool leading0x);

  void print_value(const Value& v, char32_t verb, int depth);
  void print_int(const Value& v, char32_t verb);
  void print_float(double v, char32_t verb);
  void print_string(std::string_view s, char32_t verb);
  void print_bytes(const Value& v, char32_t verb);
  void print_list(const Value& v, char32_t verb, int depth);
  void print_map(const Value& v, char32_t verb, int depth);
  void print_object(const Value& v, char32_t verb);
  void bad_verb(char32_t verb);
  void print_verb(const Value& arg, char32_t verb);
  size_t arg_number(size_t arg_num, std::string_view format, size_t& i, size_t num_args,
                    bool& found, bool& good);
};

void Printer::write_padding(int n) {
  if (n <= 0) return;
  buf.append(static_cast<size_t>(n), m_f.zero ? '0' : ' ');
}

void Printer::pad(std::string_view s) {
  if (!m_f.wid_present || m_f.wid == 0) {
    buf += s;
    return;
  }
  int width = m_f.wid - static_cast<int>(go::rune_count(s));
  if (!m_f.minus) {
    write_padding(width);
    buf += s;
  } else {
    buf += s;
    write_padding(width);
  }
}

void Printer::fmt_integer(uint64_t u, int base, bool is_signed, char32_t verb,
                          std::string_view digits) {
  bool negative = is_signed && static_cast<int64_t>(u) < 0;
  if (negative) u = -u;
  int prec = 0;
  if (m_f.prec_present) {
    prec = m_f.prec;
    // Precision 0 and value 0 means "print nothing" but padding.
    if (prec == 0 && u == 0) {
      bool old_zero = m_f.zero;
      m_f.zero = false;
      write_padding(m_f.wid);
      m_f.zero = old_zero;
      return;
    }
  } else if (m_f.zero && m_f.wid_present) {
    prec = m_f.wid;
    if (negative || m_f.plus || m_f.space) --prec;  // leave room for the sign
  }
  std::string rev;  // digits, least significant first
  auto b = static_cast<uint64_t>(base);
  do {
    rev += digits[u % b];
    u /= b;
  } while (u != 0);
  while (static_cast<int>(rev.size()) < prec) rev += '0';
  if (m_f.sharp) {
    if (base == 2)
      rev += "b0";
    else if (base == 8 && rev.back() != '0')
      rev += '0';
    else if (base == 16)
      (rev += digits[16]) += '0';
  }
  if (verb == 'O') rev += "o0";
  if (negative)
    rev += '-';
  else if (m_f.plus)
    rev += '+';
  else if (m_f.space)
    rev += ' ';
  std::string s(rev.rbegin(), rev.rend());
  // Zero padding was handled as precision above (or is ignored because of a precision).
  bool old_zero = m_f.zero;
  m_f.zero = false;
  pad(s);
  m_f.zero = old_zero;
}

void Printer::fmt_unicode(uint64_t u) {
  int prec = 4;
  if (m_f.prec_present && m_f.prec > 4) prec = m_f.prec;
  std::string tail;
  if (m_f.sharp && u <= 0x10FFFF && go::is_print(static_cast<char32_t>(u))) {
    tail = " '";
    go::append_rune(tail, static_cast<char32_t>(u));
    tail += '\'';
  }
  std::string rev;
  do {
    rev += k_udigits[u & 0xF];
    u >>= 4;
    --prec;
  } while (u != 0);
  for (; prec > 0; --prec) rev += '0';
  std::string s = "U+" + std::string(rev.rbegin(), rev.rend()) + tail;
  bool old_zero = m_f.zero;
  m_f.zero = false;
  pad(s);
  m_f.zero = old_zero;
}

void Printer::fmt_c(uint64_t c) {
  // Go converts to rune (int32) first; out-of-range values become U+FFFD.
  auto r = c > 0x10FFFF ? go::k_rune_error : static_cast<char32_t>(c);
  std::string s;
  go::append_rune(s, r);
  pad(s);
}

void Printer::fmt_qc(uint64_t c) {
  auto r = c > 0x10FFFF ? go::k_rune_error : static_cast<char32_t>(c);
  pad(go::quote_rune(r, m_f.plus));
}

std::string Printer::truncate(std::string_view s) const {
  if (!m_f.prec_present) return std::string(s);
  int n = m_f.prec;
  for (size_t i = 0; i < s.size(); i += go::decode_rune(s.substr(i)).width) {
    if (--n < 0) return std::string(s.substr(0, i));
  }
  return std::string(s);
}

void Printer::fmt_sx(std::string_view s, std::string_view digits) {
  int length = static_cast<int>(s.size());
  if (m_f.prec_present && m_f.prec < length) length = m_f.prec;
  int width = 2 * length;
  if (width > 0) {
    if (m_f.space) {
      if (m_f.sharp) width *= 2;
      width += length - 1;
    } else if (m_f.sharp) {
      width += 2;
    }
  } else {
    if (m_f.wid_present) write_padding(m_f.wid);
    return;
  }
  if (m_f.wid_present && m_f.wid > width && !m_f.minus) write_padding(m_f.wid - width);
  if (m_f.sharp) (buf += '0') += digits[16];
  for (int i = 0; i < length; ++i) {
    if (m_f.space && i > 0) {
      buf += ' ';
      if (m_f.sharp) (buf += '0') += digits[16];
    }
    auto c = static_cast<unsigned char>(s[static_cast<size_t>(i)]);
    (buf += digits[c >> 4]) += digits[c & 0xF];
  }
  if (m_f.wid_present && m_f.wid > width && m_f.minus) write_padding(m_f.wid - width);
}

void Printer::fmt_q(std::string_view s) {
  std::string t = truncate(s);
  if (m_f.sharp && go::can_backquote(t)) {
    pad("`" + t + "`");
    return;
  }
  pad(go::quote(t, m_f.plus));
}

void Printer::fmt_0x64(uint64_t v, bool leading0x) {
  bool sharp = m_f.sharp;
  m_f.sharp = leading0x;
  fmt_integer(v, 16, false, 'v', k_ldigits);
  m_f.sharp = sharp;
}

void Printer::fmt_float(double v, int size, char32_t verb, int prec) {
  if (m_f.prec_present) prec = m_f.prec;
  std::string num = format_float(v, static_cast<char>(verb), prec, size);
  if (num[0] != '-' && num[0] != '+') num.insert(num.begin(), '+');
  if (m_f.space && num[0] == '+' && !m_f.plus) num[0] = ' ';
  // Infinities and NaN don't look like numbers: never zero-padded.
  if (num[1] == 'I' || num[1] == 'N') {
    bool old_zero = m_f.zero;
    m_f.zero = false;
    if (num[1] == 'N' && !m_f.space && !m_f.plus) num.erase(0, 1);
    pad(num);
    m_f.zero = old_zero;
    return;
  }
  // The sharp flag forces a decimal point and keeps trailing zeros for %g (%#g).
  if (m_f.sharp && verb != 'b') {
    int digits = 0;
    if (verb == 'v' || verb == 'g' || verb == 'G' || verb == 'x') digits = prec == -1 ? 6 : prec;
    std::string tail;
    bool has_point = false;
    bool saw_nonzero = false;
    for (size_t i = 1; i < num.size(); ++i) {
      char c = num[i];
      if (c == '.') {
        has_point = true;
      } else if (c == 'p' || c == 'P' || ((c == 'e' || c == 'E') && verb != 'x' && verb != 'X')) {
        tail = num.substr(i);
        num.resize(i);
        break;
      } else {
        if (c != '0') saw_nonzero = true;
        if (saw_nonzero) --digits;
      }
    }
    if (!has_point) {
      if (num.size() == 2 && num[1] == '0') --digits;
      num += '.';
    }
    for (; digits > 0; --digits) num += '0';
    num += tail;
  }
  if (m_f.plus || num[0] != '+') {
    // Zero padding goes between the sign and the digits.
    if (m_f.zero && m_f.wid_present && m_f.wid > static_cast<int>(num.size())) {
      buf += num[0];
      write_padding(m_f.wid - static_cast<int>(num.size()));
      buf.append(num, 1);
      return;
    }
    pad(num);
    return;
  }
  pad(std::string_view(num).substr(1));
}

void Printer::bad_verb(char32_t verb) {
  buf += "%!";
  write_rune(verb);
  buf += '(';
  if (m_arg != nullptr && !m_arg->is_nil()) {
    const Value arg = *m_arg;  // print_arg below resets m_arg
    buf += arg.type_name();
    buf += '=';
    print_arg(arg, 'v');
  } else {
    buf += "<nil>";
  }
  buf += ')';
}

void Printer::print_int(const Value& v, char32_t verb) {
  bool is_signed = v.is_int();
  // Uint64 holds a uint64_t; every other integer type (Uint8 included) an int64_t.
  uint64_t u = v.type() == GoType::Uint64 ? v.as_uint() : static_cast<uint64_t>(v.as_int());
  switch (verb) {
    case 'v':
      if (m_f.sharp_v && !is_signed)
        fmt_0x64(u, true);
      else
        fmt_integer(u, 10, is_signed, verb, k_ldigits);
      return;
    case 'd': fmt_integer(u, 10, is_signed, verb, k_ldigits); return;
    case 'b': fmt_integer(u, 2, is_signed, verb, k_ldigits); return;
    case 'o':
    case 'O': fmt_integer(u, 8, is_signed, verb, k_ldigits); return;
    case 'x': fmt_integer(u, 16, is_signed, verb, k_ldigits); return;
    case 'X': fmt_integer(u, 16, is_signed, verb, k_udigits); return;
    case 'c': fmt_c(u); return;
    case 'q': fmt_qc(u); return;
    case 'U': fmt_unicode(u); return;
    default: bad_verb(verb);
  }
}

void Printer::print_float(double v, char32_t verb) {
  switch (verb) {
    case 'v': fmt_float(v, 64, 'g', -1); return;
    case 'b':
    case 'g':
    case 'G':
    case 'x':
    case 'X': fmt_float(v, 64, verb, -1); return;
    case 'f':
    case 'e':
    case 'E': fmt_float(v, 64, verb, 6); return;
    case 'F': fmt_float(v, 64, 'f', 6); return;
    default: bad_verb(verb);
  }
}

void Printer::print_string(std::string_view s, char32_t verb) {
  switch (verb) {
    case 'v':
      if (m_f.sharp_v)
        fmt_q(s);
      else
        fmt_s(s);
      return;
    case 's': fmt_s(s); return;
    case 'x': fmt_sx(s, k_ldigits); return;
    case 'X': fmt_sx(s, k_udigits); return;
    case 'q': fmt_q(s); return;
    default: bad_verb(verb);
  }
}

void Printer::print_bytes(const Value& v, char32_t verb) {
  const std::string& b = v.as_string();
  switch (verb) {
    case 'v':
    case 'd':
      if (m_f.sharp_v) {
        buf += "[]byte{";
        for (size_t i = 0; i < b.size(); ++i) {
          if (i > 0) buf += ", ";
          fmt_0x64(static_cast<unsigned char>(b[i]), true);
        }
        buf += '}';
      } else {
        buf += '[';
        for (size_t i = 0; i < b.size(); ++i) {
          if (i > 0) buf += ' ';
          fmt_integer(static_cast<unsigned char>(b[i]), 10, false, verb, k_ldigits);
        }
        buf += ']';
      }
      return;
    case 's': fmt_s(b); return;
    case 'x': fmt_sx(b, k_ldigits); return;
    case 'X': fmt_sx(b, k_udigits); return;
    case 'q': fmt_q(b); return;
    default: {
      // Other verbs print the slice element by element, as printValue does.
      buf += '[';
      for (size_t i = 0; i < b.size(); ++i) {
        if (i > 0) buf += ' ';
        print_value(Value::integer(static_cast<unsigned char>(b[i]), GoType::Uint8), verb, 1);
      }
      buf += ']';
    }
  }
}

void Printer::print_list(const Value& v, char32_t verb, int depth) {
  const List& items = v.as_list();
  if (m_f.sharp_v) {
    buf += v.type_name();
    buf += '{';
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) buf += ", ";
      print_value(items[i], verb, depth + 1);
    }
    buf += '}';
    return;
  }
  buf += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) buf += ' ';
    print_value(items[i], verb, depth + 1);
  }
  buf += ']';
}

void Printer::print_map(const Value& v, char32_t verb, int depth) {
  if (m_f.sharp_v) {
    buf += v.type_name();
    buf += '{';
  } else {
    buf += "map[";
  }
  bool first = true;
  for (const auto& [key, val] : v.as_map()) {
    if (!first) buf += m_f.sharp_v ? ", " : " ";
    first = false;
    print_value(Value::string(key), verb, depth + 1);
    buf += ':';
    print_value(val, verb, depth + 1);
  }
  buf += m_f.sharp_v ? '}' : ']';
}

void Printer::print_object(const Value& v, char32_t verb) {
  // Objects are Stringers to fmt: the string verbs print their text, others are bad verbs.
  switch (verb) {
    case 'v':
    case 's':
    case 'x':
    case 'X':
    case 'q': print_string(v.as_object().format_v(), verb); return;
    default: bad_verb(verb);
  }
}

void Printer::print_value(const Value& v, char32_t verb, int depth) {
  m_arg = &v;
  switch (v.type()) {
    case GoType::Nil:
      // A nil interface{} element: printValue of an invalid Elem.
      if (m_f.sharp_v)
        buf += "interface {}(nil)";
      else
        buf += "<nil>";
      return;
    case GoType::Bool:
      if (verb == 't' || verb == 'v')
        fmt_boolean(v.as_bool());
      else
        bad_verb(verb);
      return;
    case GoType::Int:
    case GoType::Int64:
    case GoType::Int32:
    case GoType::Uint8:
    case GoType::Uint64: print_int(v, verb); return;
    case GoType::Float64: print_float(v.as_float(), verb); return;
    case GoType::String: print_string(v.as_string(), verb); return;
    case GoType::Bytes: print_bytes(v, verb); return;
    case GoType::ListAny:
    case GoType::ListString:
    case GoType::ListInt: print_list(v, verb, depth); return;
    case GoType::MapAny:
    case GoType::MapString:
    case GoType::Values: print_map(v, verb, depth); return;
    case GoType::Object: print_object(v, verb); return;
  }
}

void Printer::print_arg(const Value& arg, char32_t verb) {
  m_arg = &arg;
  if (arg.is_nil()) {
    if (verb == 'T' || verb == 'v')
      pad("<nil>");
    else
      bad_verb(verb);
    return;
  }
  if (verb == 'T') {
    fmt_s(arg.type_name());
    return;
  }
  if (verb == 'p') {
    if (arg.is_list() || arg.is_map() || arg.type() == GoType::Bytes || arg.is_object()) {
      // Addresses are not reproducible in Go either; print ours in Go's form.
      const void* p = arg.is_list()     ? static_cast<const void*>(arg.list_ptr().get())
                      : arg.is_map()    ? static_cast<const void*>(arg.map_ptr().get())
                      : arg.is_object() ? static_cast<const void*>(arg.object_ptr().get())
                                        : static_cast<const void*>(arg.as_string().data());
      fmt_0x64(reinterpret_cast<uintptr_t>(p), !m_f.sharp);
    } else {
      bad_verb(verb);
    }
    return;
  }
  print_value(arg, verb, 0);
}

void Printer::print_verb(const Value& arg, char32_t verb) {
  if (verb == 'v') {
    m_f.sharp_v = m_f.sharp;
    m_f.sharp = false;
    m_f.plus_v = m_f.plus;
    m_f.plus = false;
  }
  print_arg(arg, verb);
}

}  // namespace
namespace {

// parsenum: a decimal number at s[start:end]; isnum false when there is none or it overflows.
bool parse_num(std::string_view s, size_t& i, size_t end, int& num) {
  num = 0;
  bool isnum = false;
  for (; i < end && s[i] >= '0' && s[i] <= '9'; ++i) {
    if (too_large(num)) {
      i = end;
      num = 0;
      return false;
    }
    num = num * 10 + (s[i] - '0');
    isnum = true;
  }
  return isnum;
}

// intFromArg: the operand for a `*` width or precision.
bool int_from_arg(std::span<const Value> args, size_t& arg_num, int& num) {
  num = 0;
  if (arg_num >= args.size()) return false;
  const Value& a = args[arg_num++];
  bool is_int = false;
  if (a.is_int()) {
    num = static_cast<int>(a.as_int());
    is_int = static_cast<int64_t>(num) == a.as_int();
  } else if (a.type() == GoType::Uint64) {
    is_int = a.as_uint() <= static_cast<uint64_t>(INT32_MAX);
    if (is_int) num = static_cast<int>(a.as_uint());
  } else if (a.type() == GoType::Uint8) {
    num = static_cast<int>(a.as_int());
    is_int = true;
  }
  if (!is_int || too_large(num)) {
    num = 0;
    return false;
  }
  return true;
}

}  // namespace

namespace {

size_t Printer::arg_number(size_t arg_num, std::string_view format, size_t& i, size_t num_args,
                           bool& found, bool& good) {
  found = false;
  if (i >= format.size() || format[i] != '[') return arg_num;
  m_reordered = true;
  // parseArgNumber: "[n]" with n one-based.
  std::string_view rest = format.substr(i);
  size_t wid = 1;
  bool ok = false;
  int index = 0;
  if (rest.size() >= 3) {
    for (size_t j = 1; j < rest.size(); ++j) {
      if (rest[j] == ']') {
        size_t k = 1;
        int n = 0;
        ok = parse_num(rest, k, j, n) && k == j;
        index = n - 1;
        wid = j + 1;
        break;
      }
    }
  }
  i += wid;
  if (ok && index >= 0 && static_cast<size_t>(index) < num_args) {
    found = true;
    return static_cast<size_t>(index);
  }
  good = false;
  found = ok;
  return arg_num;
}

}  // namespace

namespace {

void Printer::do_printf(std::string_view format, std::span<const Value> args) {
  const size_t end = format.size();
  size_t arg_num = 0;
  bool after_index = false;  // the previous item was an index like [3]
  m_reordered = false;
  for (size_t i = 0; i < end;) {
    bool good = true;
    size_t lasti = i;
    while (i < end && format[i] != '%') ++i;
    buf.append(format.substr(lasti, i - lasti));
    if (i >= end) break;
    ++i;  // skip %
    clear_flags();
    bool simple_done = false;
    for (; i < end; ++i) {
      char c = format[i];
      if (c == '#')
        m_f.sharp = true;
      else if (c == '0')
        m_f.zero = !m_f.minus;  // only allow zero padding to the left
      else if (c == '+')
        m_f.plus = true;
      else if (c == '-') {
        m_f.minus = true;
        m_f.zero = false;  // do not pad with zeros to the right
      } else if (c == ' ')
        m_f.space = true;
      else {
        // Fast path: a lower-case ASCII verb right after the flags.
        if (c >= 'a' && c <= 'z' && arg_num < args.size()) {
          print_verb(args[arg_num++], static_cast<char32_t>(c));
          ++i;
          simple_done = true;
        }
        break;
      }
    }
    if (simple_done) continue;

    arg_num = arg_number(arg_num, format, i, args.size(), after_index, good);
    if (i < end && format[i] == '*') {
      ++i;
      m_f.wid_present = int_from_arg(args, arg_num, m_f.wid);
      if (!m_f.wid_present) buf += "%!(BADWIDTH)";
      if (m_f.wid < 0) {
        m_f.wid = -m_f.wid;
        m_f.minus = true;
        m_f.zero = false;
      }
      after_index = false;
    } else {
      m_f.wid_present = parse_num(format, i, end, m_f.wid);
      if (after_index && m_f.wid_present) good = false;  // "%[3]2d"
    }

    if (i + 1 < end && format[i] == '.') {
      ++i;
      if (after_index) good = false;  // "%[3].2d"
      arg_num = arg_number(arg_num, format, i, args.size(), after_index, good);
      if (i < end && format[i] == '*') {
        ++i;
        m_f.prec_present = int_from_arg(args, arg_num, m_f.prec);
        if (m_f.prec < 0) {
          m_f.prec = 0;
          m_f.prec_present = false;
        }
        if (!m_f.prec_present) buf += "%!(BADPREC)";
        after_index = false;
      } else {
        m_f.prec_present = parse_num(format, i, end, m_f.prec);
        if (!m_f.prec_present) {
          m_f.prec = 0;
          m_f.prec_present = true;
        }
      }
    }

    if (!after_index) arg_num = arg_number(arg_num, format, i, args.size(), after_index, good);

    if (i >= end) {
      buf += "%!(NOVERB)";
      break;
    }
    go::Rune verb{static_cast<unsigned char>(format[i]), 1};
    if (verb.r >= 0x80) verb = go::decode_rune(format.substr(i));
    i += verb.width;

    if (verb.r == '%') {
      buf += '%';  // a literal percent takes no operand and ignores width and precision
    } else if (!good) {
      buf += "%!";
      write_rune(verb.r);
      buf += "(BADINDEX)";
    } else if (arg_num >= args.size()) {
      buf += "%!";
      write_rune(verb.r);
      buf += "(MISSING)";
    } else if (verb.r == 'w') {
      // %w is only for fmt.Errorf; Sprintf reports it as a bad verb.
      m_arg = &args[arg_num++];
      bad_verb('w');
    } else {
      print_verb(args[arg_num++], verb.r);
    }
  }

  // Extra operands, unless the format used explicit indexes.
  if (!m_reordered && arg_num < args.size()) {
    clear_flags();
    buf += "%!(EXTRA ";
    for (size_t k = arg_num; k < args.size(); ++k) {
      if (k > arg_num) buf += ", ";
      if (args[k].is_nil()) {
        buf += "<nil>";
      } else {
        buf += args[k].type_name();
        buf += '=';
        print_arg(args[k], 'v');
      }
    }
    buf += ')';
  }
}

}  // namespace

std::string format_v(const Value& v) {
  Printer p;
  p.print_arg(v, 'v');
  return std::move(p.buf);
}

std::string sprint(std::span<const Value> args) {
  Printer p;
  bool prev_string = false;
  for (size_t i = 0; i < args.size(); ++i) {
    bool is_string = args[i].kind() == GoKind::String;
    // A space between two operands when neither is a string.
    if (i > 0 && !is_string && !prev_string) p.buf += ' ';
    p.clear_flags();
    p.print_arg(args[i], 'v');
    prev_string = is_string;
  }
  return std::move(p.buf);
}

std::string sprintln(std::span<const Value> args) {
  Printer p;
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) p.buf += ' ';
    p.clear_flags();
    p.print_arg(args[i], 'v');
  }
  p.buf += '\n';
  return std::move(p.buf);
}

std::string sprintf(std::string_view format, std::span<const Value> args) {
  Printer p;
  p.do_printf(format, args);
  return std::move(p.buf);
}

std::string go_quote(std::string_view s) { return go::quote(s); }

}  // namespace ejob::render
