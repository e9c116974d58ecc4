/// strconv.FormatFloat, byte for byte. Decimal digits come from std::to_chars, which gives
/// the same shortest round-trip digits as Go's Ryū (closest, ties to even) and exactly rounded
/// fixed-precision digits (round half to even on the exact binary value, like Go's ftoa);
/// Go's layout rules (fmtE, fmtF, %g's exponent choice, fmtB, fmtX) are applied on top.
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "src/render/go/fmt.hpp"

namespace ejob::render::go {
namespace {

// Decimal digits d (no leading/trailing zeros for shortest) with value 0.d × 10^dp.
struct Digits {
  std::string d;
  int dp = 0;
};

// Parses to_chars' scientific output "d.ddde±XX" (sign already removed) into Digits.
Digits parse_scientific(const char* first, const char* last) {
  Digits out;
  const char* e = std::find(first, last, 'e');
  for (const char* p = first; p < e; ++p)
    if (*p != '.') out.d += *p;
  int exp = 0;
  std::from_chars(e + 1 + (e[1] == '+' ? 1 : 0), last, exp);
  out.dp = exp + 1;
  return out;
}

Digits shortest_digits(double f, int bit_size) {
  char buf[64];
  auto r = bit_size == 32 ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(f),
                                          std::chars_format::scientific)
                          : std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  Digits d = parse_scientific(buf, r.ptr);
  if (d.d == "0") return {};  // Go represents zero with no digits and dp 0
  return d;
}

// n significant digits, exactly rounded; trailing zeros removed as Go's fixed ftoa does.
Digits fixed_digits(double f, int n, int bit_size) {
  std::string buf(static_cast<size_t>(n) + 32, '\0');
  auto r = bit_size == 32
               ? std::to_chars(buf.data(), buf.data() + buf.size(), static_cast<float>(f),
                               std::chars_format::scientific, n - 1)
               : std::to_chars(buf.data(), buf.data() + buf.size(), f,
                               std::chars_format::scientific, n - 1);
  Digits d = parse_scientific(buf.data(), r.ptr);
  while (!d.d.empty() && d.d.back() == '0') d.d.pop_back();
  if (d.d.empty()) d.dp = 0;
  return d;
}

// %e: -d.ddddde±dd
std::string fmt_e(bool neg, const Digits& d, int prec, char fmt) {
  std::string out = neg ? "-" : "";
  int nd = static_cast<int>(d.d.size());
  out += nd ? d.d[0] : '0';
  if (prec > 0) {
    out += '.';
    int i = 1;
    int m = std::min(nd, prec + 1);
    if (i < m) {
      out.append(d.d, 1, static_cast<size_t>(m - 1));
      i = m;
    }
    for (; i <= prec; ++i) out += '0';
  }
  out += fmt;
  int exp = nd == 0 ? 0 : d.dp - 1;
  out += exp < 0 ? '-' : '+';
  exp = std::abs(exp);
  if (exp < 10) out += '0';
  out += std::to_string(exp);
  return out;
}

// %f: -ddddddd.ddddd
std::string fmt_f(bool neg, const Digits& d, int prec) {
  std::string out = neg ? "-" : "";
  int nd = static_cast<int>(d.d.size());
  if (d.dp > 0) {
    int m = std::min(nd, d.dp);
    out.append(d.d, 0, static_cast<size_t>(m));
    for (; m < d.dp; ++m) out += '0';
  } else {
    out += '0';
  }
  if (prec > 0) {
    out += '.';
    for (int i = 0; i < prec; ++i) {
      int j = d.dp + i;
      out += (j >= 0 && j < nd) ? d.d[static_cast<size_t>(j)] : '0';
    }
  }
  return out;
}

// Mantissa (with implicit bit) and binary exponent such that |f| = mant × 2^(exp - mantbits).
struct Binary {
  uint64_t mant;
  int exp;
  int mantbits;
};

Binary binary_parts(double f, int bit_size) {
  if (bit_size == 32) {
    auto bits = std::bit_cast<uint32_t>(static_cast<float>(f));
    int exp = static_cast<int>((bits >> 23) & 0xFF);
    uint64_t mant = bits & ((1u << 23) - 1);
    if (exp == 0)
      ++exp;
    else
      mant |= uint64_t{1} << 23;
    return {mant, exp - 127, 23};
  }
  auto bits = std::bit_cast<uint64_t>(f);
  int exp = static_cast<int>((bits >> 52) & 0x7FF);
  uint64_t mant = bits & ((uint64_t{1} << 52) - 1);
  if (exp == 0)
    ++exp;
  else
    mant |= uint64_t{1} << 52;
  return {mant, exp - 1023, 52};
}

// %b: -ddddp±ddd
std::string fmt_b(bool neg, Binary b) {
  std::string out = neg ? "-" : "";
  out += std::to_string(b.mant);
  out += 'p';
  int exp = b.exp - b.mantbits;
  if (exp >= 0) out += '+';
  out += std::to_string(exp);
  return out;
}

// %x: -0x1.yyyyyyyyp±ddd or -0x0p+00
std::string fmt_x(bool neg, Binary b, int prec, char fmt) {
  uint64_t mant = b.mant;
  int exp = mant == 0 ? 0 : b.exp;
  mant <<= 60 - b.mantbits;
  while (mant != 0 && (mant & (uint64_t{1} << 60)) == 0) {
    mant <<= 1;
    --exp;
  }
  if (prec >= 0 && prec < 15) {
    auto shift = static_cast<unsigned>(prec * 4);
    uint64_t extra = (mant << shift) & ((uint64_t{1} << 60) - 1);
    mant >>= 60 - shift;
    if ((extra | (mant & 1)) > (uint64_t{1} << 59)) ++mant;
    mant <<= 60 - shift;
    if (mant & (uint64_t{1} << 61)) {
      mant >>= 1;
      ++exp;
    }
  }
  const char* hex = fmt == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string out = neg ? "-" : "";
  out += '0';
  out += fmt;
  out += static_cast<char>('0' + ((mant >> 60) & 1));
  mant <<= 4;
  if (prec < 0 && mant != 0) {
    out += '.';
    for (; mant != 0; mant <<= 4) out += hex[(mant >> 60) & 15];
  } else if (prec > 0) {
    out += '.';
    for (int i = 0; i < prec; ++i, mant <<= 4) out += hex[(mant >> 60) & 15];
  }
  out += fmt == 'X' ? 'P' : 'p';
  out += exp < 0 ? '-' : '+';
  exp = std::abs(exp);
  if (exp < 10) out += '0';
  out += std::to_string(exp);
  return out;
}

// %g / %G once the digits are known (strconv's formatDigits for 'g').
std::string fmt_g(bool neg, const Digits& d, int prec, bool shortest, char fmt) {
  int nd = static_cast<int>(d.d.size());
  int eprec = prec;
  if (eprec > nd && nd >= d.dp) eprec = nd;
  // %e is used if the exponent from the conversion is less than -4 or greater than or equal
  // to the precision; shortest formatting decides with precision 6.
  if (shortest) eprec = 6;
  int exp = d.dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec > nd) prec = nd;
    return fmt_e(neg, d, prec - 1, fmt == 'G' ? 'E' : 'e');
  }
  if (prec > d.dp) prec = nd;
  return fmt_f(neg, d, std::max(prec - d.dp, 0));
}

}  // namespace

std::string format_float(double f, char fmt, int prec, int bit_size) {
  if (bit_size == 32) f = static_cast<float>(f);
  if (std::isnan(f)) return "NaN";
  if (std::isinf(f)) return f > 0 ? "+Inf" : "-Inf";
  bool neg = std::signbit(f);
  double a = std::fabs(f);
  if (fmt == 'b') return fmt_b(neg, binary_parts(a, bit_size));
  if (fmt == 'x' || fmt == 'X') return fmt_x(neg, binary_parts(a, bit_size), prec, fmt);
  bool shortest = prec < 0;
  Digits d;
  if (shortest) {
    d = shortest_digits(a, bit_size);
    switch (fmt) {
      case 'e':
      case 'E': prec = std::max(static_cast<int>(d.d.size()) - 1, 0); break;
      case 'f': prec = std::max(static_cast<int>(d.d.size()) - d.dp, 0); break;
      case 'g':
      case 'G': prec = static_cast<int>(d.d.size()); break;
      default: break;
    }
  } else if (fmt == 'f') {
    // Fixed notation rounds at a position, not a digit count: to_chars does exactly that.
    std::string buf(static_cast<size_t>(prec) + 400, '\0');
    auto r = bit_size == 32 ? std::to_chars(buf.data(), buf.data() + buf.size(),
                                            static_cast<float>(a), std::chars_format::fixed, prec)
                            : std::to_chars(buf.data(), buf.data() + buf.size(), a,
                                            std::chars_format::fixed, prec);
    return (neg ? "-" : "") + std::string(buf.data(), r.ptr);
  } else {
    if ((fmt == 'g' || fmt == 'G') && prec == 0) prec = 1;
    int n = (fmt == 'e' || fmt == 'E') ? prec + 1 : prec;
    d = a == 0 ? Digits{} : fixed_digits(a, n, bit_size);
  }
  switch (fmt) {
    case 'e':
    case 'E': return fmt_e(neg, d, prec, fmt);
    case 'f': return fmt_f(neg, d, prec);
    case 'g':
    case 'G': return fmt_g(neg, d, prec, shortest, fmt);
    default: break;
  }
  return std::string("%") + fmt;
}

}  // namespace ejob::render::go
