#include "src/render/go/printer_en.hpp"

#include <array>
#include <charconv>
#include <cstdlib>
#include <string_view>

namespace ejob::render::go {
namespace {

/// Digits grouped by three from the right with ',' (English's pattern #,##0).
std::string grouped(std::string_view digits) {
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string superscript(int exp) {
  static constexpr std::array<std::string_view, 10> k_digits = {
      "\u2070", "\u00b9", "\u00b2", "\u00b3", "\u2074",
      "\u2075", "\u2076", "\u2077", "\u2078", "\u2079"};
  std::string plain = std::to_string(std::abs(exp));
  if (plain.size() < 2) plain.insert(plain.begin(), '0');
  std::string out = exp < 0 ? "\u207b" : "";
  for (char c : plain) out += k_digits[static_cast<size_t>(c - '0')];
  return out;
}

}  // namespace

std::string english_int(int64_t v) {
  const std::string plain = std::to_string(v);
  if (v < 0) return "-" + grouped(std::string_view(plain).substr(1));
  return grouped(plain);
}

std::string english_float(double v) {
  // the shortest digits that read back as v, and the exponent of the first one
  std::array<char, 40> buf{};
  auto end =
      std::to_chars(buf.data(), buf.data() + buf.size(), std::abs(v), std::chars_format::scientific)
          .ptr;
  const std::string_view text(buf.data(), static_cast<size_t>(end - buf.data()));
  const size_t e = text.find('e');
  std::string digits;
  for (char c : text.substr(0, e))
    if (c != '.') digits += c;
  const int exp = std::atoi(std::string(text.substr(e + 1)).c_str());
  const std::string sign = v < 0 ? "-" : "";
  if (exp < -4 || exp >= 6) {
    std::string mantissa = digits.substr(0, 1);
    if (digits.size() > 1) mantissa += "." + digits.substr(1);
    return sign + mantissa + "\u00d710" + superscript(exp);
  }
  if (exp < 0) return sign + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  const size_t whole = static_cast<size_t>(exp) + 1;
  if (digits.size() < whole) digits.append(whole - digits.size(), '0');
  std::string out = sign + grouped(std::string_view(digits).substr(0, whole));
  if (digits.size() > whole) out += "." + digits.substr(whole);
  return out;
}

}  // namespace ejob::render::go
