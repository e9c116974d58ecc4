#include "src/render/sprig/decimal.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "src/render/go/fmt.hpp"
#include "src/render/text_template/funcs.hpp"

namespace ejob::render::sprig {

using go::format_float;
using go::FuncError;

namespace {

constexpr int k_division_precision = 16;

struct BnCtxFree {
  void operator()(BN_CTX* c) const { BN_CTX_free(c); }
};

BN_CTX* ctx() {
  thread_local std::unique_ptr<BN_CTX, BnCtxFree> c(BN_CTX_new());
  return c.get();
}

void check(int ok) {
  if (ok != 1) throw std::runtime_error("OpenSSL BIGNUM operation failed");
}

}  // namespace

Decimal::Bn Decimal::bn_new() {
  Bn b(BN_new());
  if (!b) throw std::bad_alloc();
  return b;
}

Decimal::Bn Decimal::pow10(int n) {
  Bn ten = bn_new();
  Bn e = bn_new();
  Bn out = bn_new();
  check(BN_set_word(ten.get(), 10));
  check(BN_set_word(e.get(), static_cast<BN_ULONG>(n)));
  check(BN_exp(out.get(), ten.get(), e.get(), ctx()));
  return out;
}

Decimal Decimal::from_float(double f) {
  if (std::isnan(f) || std::isinf(f)) {
    throw FuncError{"Cannot create a Decimal from " + format_float(f, 'g', -1, 64)};
  }
  Bn coef = bn_new();
  if (f == 0) return {std::move(coef), 0};
  // Shortest round-trip digits, as Go's roundShortest gives them.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  std::string text(buf, res.ptr);
  size_t e = text.find('e');
  std::string mant = text.substr(0, e);
  int exp = std::atoi(text.c_str() + e + 1);
  std::string digits;
  int frac = 0;
  bool after_dot = false;
  for (char c : mant) {
    if (c == '.') {
      after_dot = true;
    } else {
      digits.push_back(c);  // includes a leading '-'
      if (after_dot) ++frac;
    }
  }
  BIGNUM* raw = coef.get();
  check(BN_dec2bn(&raw, digits.c_str()) > 0 ? 1 : 0);
  return {std::move(coef), exp - frac};
}

void Decimal::align(const Decimal& a, const Decimal& b, Bn& x, Bn& y, int& exp) {
  exp = std::min(a.m_exp, b.m_exp);
  x = bn_new();
  y = bn_new();
  check(BN_mul(x.get(), a.m_coef.get(), pow10(a.m_exp - exp).get(), ctx()));
  check(BN_mul(y.get(), b.m_coef.get(), pow10(b.m_exp - exp).get(), ctx()));
}

Decimal Decimal::add(const Decimal& a, const Decimal& b) {
  Bn x, y;
  int exp = 0;
  align(a, b, x, y, exp);
  Bn out = bn_new();
  check(BN_add(out.get(), x.get(), y.get()));
  return {std::move(out), exp};
}

Decimal Decimal::sub(const Decimal& a, const Decimal& b) {
  Bn x, y;
  int exp = 0;
  align(a, b, x, y, exp);
  Bn out = bn_new();
  check(BN_sub(out.get(), x.get(), y.get()));
  return {std::move(out), exp};
}

Decimal Decimal::mul(const Decimal& a, const Decimal& b) {
  Bn out = bn_new();
  check(BN_mul(out.get(), a.m_coef.get(), b.m_coef.get(), ctx()));
  return {std::move(out), a.m_exp + b.m_exp};
}

Decimal Decimal::div(const Decimal& a, const Decimal& b) {
  if (BN_is_zero(b.m_coef.get())) throw FuncError{"decimal division by 0"};
  // QuoRem(b, 16): q is a multiple of 10^-16, truncated toward zero.
  int e = a.m_exp - b.m_exp + k_division_precision;
  Bn num = bn_new();
  Bn den = bn_new();
  int rest_exp = 0;
  if (e < 0) {
    check(BN_copy(num.get(), a.m_coef.get()) != nullptr ? 1 : 0);
    check(BN_mul(den.get(), b.m_coef.get(), pow10(-e).get(), ctx()));
    rest_exp = a.m_exp;
  } else {
    check(BN_mul(num.get(), a.m_coef.get(), pow10(e).get(), ctx()));
    check(BN_copy(den.get(), b.m_coef.get()) != nullptr ? 1 : 0);
    rest_exp = -k_division_precision + b.m_exp;
  }
  Bn q = bn_new();
  Bn r = bn_new();
  check(BN_div(q.get(), r.get(), num.get(), den.get(), ctx()));
  // Round half away from zero: compare 2|r|*10^16 (at r's exponent) with |b|.
  Bn r2 = bn_new();
  check(BN_copy(r2.get(), r.get()) != nullptr ? 1 : 0);
  BN_set_negative(r2.get(), 0);
  check(BN_lshift1(r2.get(), r2.get()));
  Decimal twice_r(std::move(r2), rest_exp + k_division_precision);
  Bn abs_b = bn_new();
  check(BN_copy(abs_b.get(), b.m_coef.get()) != nullptr ? 1 : 0);
  BN_set_negative(abs_b.get(), 0);
  Decimal abs_d2(std::move(abs_b), b.m_exp);
  Bn x, y;
  int exp = 0;
  align(twice_r, abs_d2, x, y, exp);
  Decimal quotient(std::move(q), -k_division_precision);
  if (BN_cmp(x.get(), y.get()) < 0) return quotient;
  Bn unit = bn_new();
  check(BN_one(unit.get()));
  if (BN_is_negative(a.m_coef.get()) != BN_is_negative(b.m_coef.get()) &&
      !BN_is_zero(a.m_coef.get())) {
    BN_set_negative(unit.get(), 1);
  }
  return add(quotient, Decimal(std::move(unit), -k_division_precision));
}

std::string Decimal::to_string() const {
  char* dec = BN_bn2dec(m_coef.get());
  std::string digits(dec);
  OPENSSL_free(dec);
  bool neg = !digits.empty() && digits[0] == '-';
  if (neg) digits.erase(0, 1);
  if (m_exp >= 0) {
    if (digits != "0") digits.append(static_cast<size_t>(m_exp), '0');
  } else {
    auto frac = static_cast<size_t>(-m_exp);
    if (digits.size() <= frac) digits.insert(0, frac - digits.size() + 1, '0');
    digits.insert(digits.size() - frac, ".");
    while (digits.back() == '0') digits.pop_back();
    if (digits.back() == '.') digits.pop_back();
  }
  return (neg && digits != "0" ? "-" : "") + digits;
}

double Decimal::to_float() const {
  char* dec = BN_bn2dec(m_coef.get());
  std::string text = std::string(dec) + "e" + std::to_string(m_exp);
  OPENSSL_free(dec);
  return std::strtod(text.c_str(), nullptr);
}

}  // namespace ejob::render::sprig
