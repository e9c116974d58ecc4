/// fmt.fmt's formatting primitives (format.go of Go 1.19): padding, integers, floats,
/// strings, runes; see fmt_printer.hpp.
#include "src/render/go/fmt.hpp"
#include "src/render/go/fmt_printer.hpp"
#include "src/render/go/strconv.hpp"

namespace ejob::render::go::fmt_detail {

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

}  // namespace ejob::render::go::fmt_detail
