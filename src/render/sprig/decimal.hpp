#pragma once
/// The slice of shopspring/decimal that Sprig's addf/subf/mulf/divf use: exact decimal
/// arithmetic on the shortest decimal form of float64 operands (decimal.NewFromFloat), division
/// rounded half away from zero to 16 fractional digits (decimal.DivisionPrecision), and the
/// conversion back to the nearest float64 (Decimal.Float64). Backed by OpenSSL's BIGNUM.

#include <openssl/bn.h>

#include <memory>
#include <string>

namespace ejob::render::sprig {

/// value = coefficient * 10^exponent.
class Decimal {
 public:
  /// decimal.NewFromFloat; throws FuncError("Cannot create a Decimal from NaN") for NaN/Inf.
  static Decimal from_float(double f);
  static Decimal add(const Decimal& a, const Decimal& b);
  static Decimal sub(const Decimal& a, const Decimal& b);
  static Decimal mul(const Decimal& a, const Decimal& b);
  /// a.Div(b); throws FuncError("decimal division by 0").
  static Decimal div(const Decimal& a, const Decimal& b);
  /// The float64 nearest to the exact value.
  [[nodiscard]] double to_float() const;
  /// Plain decimal text, e.g. "-12.345" (for tests).
  [[nodiscard]] std::string to_string() const;

 private:
  struct BnFree {
    void operator()(BIGNUM* b) const { BN_free(b); }
  };
  using Bn = std::unique_ptr<BIGNUM, BnFree>;
  Decimal(Bn coef, int exp) : m_coef(std::move(coef)), m_exp(exp) {}
  static Bn bn_new();
  static Bn pow10(int n);
  /// Both coefficients scaled to the smaller exponent.
  static void align(const Decimal& a, const Decimal& b, Bn& x, Bn& y, int& exp);

  Bn m_coef;
  int m_exp = 0;
};

}  // namespace ejob::render::sprig
