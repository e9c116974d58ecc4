/// Go's fmt package (print.go, format.go of Go 1.19) over Value. The structure follows
/// Go's pp/fmt split so that the corner cases (flags, padding, error forms) come out the same:
/// Printer::print_arg is pp.printArg (top-level operands), print_value is pp.printValue
/// (elements of lists and maps), and the fmt_* members are fmt.fmt's formatting primitives.
#include "src/render/go/fmt.hpp"

#include <cstdint>
#include <string>

#include "src/render/go/fmt_printer.hpp"
#include "src/render/go/strconv.hpp"

namespace ejob::render::go {
namespace fmt_detail {

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
    case GoType::ListInt:
    case GoType::ListList: print_list(v, verb, depth); return;
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

namespace {

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

bool Printer::printf_flags(PrintfState& st) {
  for (; st.i < st.format.size(); ++st.i) {
    char c = st.format[st.i];
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
      if (c >= 'a' && c <= 'z' && st.arg_num < st.args.size()) {
        print_verb(st.args[st.arg_num++], static_cast<char32_t>(c));
        ++st.i;
        return true;
      }
      return false;
    }
  }
  return false;
}

void Printer::printf_width(PrintfState& st) {
  if (st.i < st.format.size() && st.format[st.i] == '*') {
    ++st.i;
    m_f.wid_present = int_from_arg(st.args, st.arg_num, m_f.wid);
    if (!m_f.wid_present) buf += "%!(BADWIDTH)";
    if (m_f.wid < 0) {
      m_f.wid = -m_f.wid;
      m_f.minus = true;
      m_f.zero = false;
    }
    st.after_index = false;
  } else {
    m_f.wid_present = parse_num(st.format, st.i, st.format.size(), m_f.wid);
    if (st.after_index && m_f.wid_present) st.good = false;  // "%[3]2d"
  }
}

void Printer::printf_precision(PrintfState& st) {
  const size_t end = st.format.size();
  if (st.i + 1 >= end || st.format[st.i] != '.') return;
  ++st.i;
  if (st.after_index) st.good = false;  // "%[3].2d"
  st.arg_num = arg_number(st.arg_num, st.format, st.i, st.args.size(), st.after_index, st.good);
  if (st.i < end && st.format[st.i] == '*') {
    ++st.i;
    m_f.prec_present = int_from_arg(st.args, st.arg_num, m_f.prec);
    if (m_f.prec < 0) {
      m_f.prec = 0;
      m_f.prec_present = false;
    }
    if (!m_f.prec_present) buf += "%!(BADPREC)";
    st.after_index = false;
  } else {
    m_f.prec_present = parse_num(st.format, st.i, end, m_f.prec);
    if (!m_f.prec_present) {
      m_f.prec = 0;
      m_f.prec_present = true;
    }
  }
}

void Printer::printf_verb(PrintfState& st) {
  go::Rune verb{static_cast<unsigned char>(st.format[st.i]), 1};
  if (verb.r >= 0x80) verb = go::decode_rune(st.format.substr(st.i));
  st.i += verb.width;

  if (verb.r == '%') {
    buf += '%';  // a literal percent takes no operand and ignores width and precision
  } else if (!st.good) {
    buf += "%!";
    write_rune(verb.r);
    buf += "(BADINDEX)";
  } else if (st.arg_num >= st.args.size()) {
    buf += "%!";
    write_rune(verb.r);
    buf += "(MISSING)";
  } else if (verb.r == 'w') {
    // %w is only for fmt.Errorf; Sprintf reports it as a bad verb.
    m_arg = &st.args[st.arg_num++];
    bad_verb('w');
  } else {
    print_verb(st.args[st.arg_num++], verb.r);
  }
}

void Printer::printf_extra(std::span<const Value> args, size_t arg_num) {
  // Extra operands, unless the format used explicit indexes.
  if (m_reordered || arg_num >= args.size()) return;
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

void Printer::do_printf(std::string_view format, std::span<const Value> args) {
  const size_t end = format.size();
  PrintfState st{format, args};
  m_reordered = false;
  while (st.i < end) {
    st.good = true;
    size_t lasti = st.i;
    while (st.i < end && format[st.i] != '%') ++st.i;
    buf.append(format.substr(lasti, st.i - lasti));
    if (st.i >= end) break;
    ++st.i;  // skip %
    clear_flags();
    if (printf_flags(st)) continue;
    st.arg_num = arg_number(st.arg_num, format, st.i, args.size(), st.after_index, st.good);
    printf_width(st);
    printf_precision(st);
    if (!st.after_index) {
      st.arg_num = arg_number(st.arg_num, format, st.i, args.size(), st.after_index, st.good);
    }
    if (st.i >= end) {
      buf += "%!(NOVERB)";
      break;
    }
    printf_verb(st);
  }
  printf_extra(args, st.arg_num);
}

}  // namespace fmt_detail

using fmt_detail::Printer;

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

}  // namespace ejob::render::go
