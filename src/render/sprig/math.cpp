// Sprig's math (numeric.go and the arithmetic entries of functions.go). Integer functions go
// through spf13/cast's ToInt64 (floats truncate, strings parse, errors give 0) and wrap on
// overflow like Go's int64; the *f functions go through shopspring/decimal (sprig_decimal).
#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "src/render/go/fmt.hpp"
#include "src/render/sprig/decimal.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

int64_t wrap_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

int64_t wrap_mul(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

void check_divisor(int64_t b) {
  if (b == 0) throw FuncError{"runtime error: integer divide by zero"};
}

int64_t go_div(int64_t a, int64_t b) {
  check_divisor(b);
  if (b == -1) return wrap_mul(a, -1);  // MinInt64 / -1 wraps in Go
  return a / b;
}

int64_t go_mod(int64_t a, int64_t b) {
  check_divisor(b);
  if (b == -1) return 0;
  return a % b;
}

/// Go's math.Max / math.Min (NaN wins, signed zeros ordered).
double go_max(double x, double y) {
  if (std::isinf(x) && x > 0) return x;
  if (std::isinf(y) && y > 0) return y;
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0 && x == y) return std::signbit(x) ? y : x;
  return x > y ? x : y;
}

double go_min(double x, double y) {
  if (std::isinf(x) && x < 0) return x;
  if (std::isinf(y) && y < 0) return y;
  if (std::isnan(x) || std::isnan(y)) return std::numeric_limits<double>::quiet_NaN();
  if (x == 0 && x == y) return std::signbit(x) ? x : y;
  return x < y ? x : y;
}

std::vector<int64_t> until_step(int64_t start, int64_t stop, int64_t step) {
  std::vector<int64_t> v;
  if (stop < start) {
    if (step >= 0) return v;
    for (int64_t i = start; i > stop; i += step) v.push_back(i);
    return v;
  }
  if (step <= 0) return v;
  for (int64_t i = start; i < stop; i += step) v.push_back(i);
  return v;
}

Value int_list(const std::vector<int64_t>& items) {
  List out;
  out.reserve(items.size());
  for (int64_t i : items) out.push_back(Value::integer(i));
  return Value::list(std::move(out), GoType::ListInt);
}

std::string join_ints(const std::vector<int64_t>& items) {
  std::string out;
  for (int64_t i : items) {
    if (!out.empty()) out += ' ';
    out += std::to_string(i);
  }
  return out;
}

std::string seq(const FuncArgs& a) {
  auto p = [&](size_t i) { return a[i].as_int(); };
  switch (a.size()) {
    case 1: {
      int64_t inc = p(0) < 1 ? -1 : 1;
      return join_ints(until_step(1, p(0) + inc, inc));
    }
    case 2: {
      int64_t step = p(1) < p(0) ? -1 : 1;
      return join_ints(until_step(p(0), p(1) + step, step));
    }
    case 3: {
      int64_t inc = 1;
      if (p(2) < p(0)) {
        inc = -1;
        if (p(1) > 0) return "";
      }
      return join_ints(until_step(p(0), p(2) + inc, p(1)));
    }
    default: return "";
  }
}

// Go's math.Frexp, Ldexp, Modf and Pow for what `round` needs, ported bit for bit: Go's Pow
// multiplies out an integral exponent by repeated squaring, so math.Pow(10, 300) is not the
// correctly rounded 1e300 that C's pow gives. (Ported rather than taken from libm: the lean
// executable links no libm.so, cmake/EjobLean.cmake.)
constexpr int k_shift = 52;
constexpr int k_bias = 1023;
constexpr uint64_t k_exp_mask = 0x7ff;

/// Go's normalize: subnormals scaled into the normal range, with the exponent taken away.
std::pair<double, int> go_normalize(double x) {
  if (std::fabs(x) < 2.2250738585072014e-308) return {x * static_cast<double>(1LL << 52), -52};
  return {x, 0};
}

/// Go's math.Frexp: frac in [0.5, 1) and exp with f == frac × 2^exp.
std::pair<double, int> go_frexp(double f) {
  if (f == 0 || std::isinf(f) || std::isnan(f)) return {f, 0};
  auto [y, exp] = go_normalize(f);
  auto x = std::bit_cast<uint64_t>(y);
  exp += static_cast<int>((x >> k_shift) & k_exp_mask) - k_bias + 1;
  x &= ~(k_exp_mask << k_shift);
  x |= static_cast<uint64_t>(-1 + k_bias) << k_shift;
  return {std::bit_cast<double>(x), exp};
}

/// Go's math.Ldexp: frac × 2^exp (underflow below 2^-1075 gives a signed zero).
double go_ldexp(double frac, int64_t exp) {
  if (frac == 0 || std::isinf(frac) || std::isnan(frac)) return frac;
  auto [y, e] = go_normalize(frac);
  exp += e;
  auto x = std::bit_cast<uint64_t>(y);
  exp += static_cast<int64_t>((x >> k_shift) & k_exp_mask) - k_bias;
  if (exp < -1075) return std::copysign(0.0, y);
  if (exp > 1023) return y < 0 ? -HUGE_VAL : HUGE_VAL;
  double m = 1;
  if (exp < -1022) {  // subnormal
    exp += 53;
    m = 1.0 / static_cast<double>(1LL << 53);
  }
  x &= ~(k_exp_mask << k_shift);
  x |= static_cast<uint64_t>(exp + k_bias) << k_shift;
  return m * std::bit_cast<double>(x);
}

/// The fractional part of Go's math.Modf (NaN for infinities, as Go's f - int gives).
double go_modf_frac(double f) {
  if (f < 1) {
    if (f < 0) return -go_modf_frac(-f);
    return f;  // 0, -0 and (0, 1) are all fraction
  }
  auto x = std::bit_cast<uint64_t>(f);
  auto e = static_cast<unsigned>((x >> k_shift) & k_exp_mask) - k_bias;
  if (e < 64 - 12) x &= ~((uint64_t{1} << (64 - 12 - e)) - 1);
  return f - std::bit_cast<double>(x);
}

/// Go's math.Pow(10, n) for an integer n (Sprig's round passes float64(places)).
double go_pow10(int64_t n) {
  const auto y = static_cast<double>(n);
  if (y == 0) return 1;
  if (y == 1) return 10;
  if (std::fabs(y) >= 0x1p63) return y > 0 ? HUGE_VAL : 0;  // Go: a large even exponent
  const auto yi = static_cast<int64_t>(std::fabs(y));
  double a1 = 1;
  int64_t ae = 0;
  auto [x1, xe64] = go_frexp(10.0);
  int64_t xe = xe64;
  for (int64_t i = yi; i != 0; i >>= 1) {
    if (xe < -(1 << 12) || (1 << 12) < xe) {  // catastrophic overflow: Ldexp handles it
      ae += xe;
      break;
    }
    if ((i & 1) == 1) {
      a1 *= x1;
      ae += xe;
    }
    x1 *= x1;
    xe <<= 1;
    if (x1 < .5) {
      x1 += x1;
      xe--;
    }
  }
  if (y < 0) {
    a1 = 1 / a1;
    ae = -ae;
  }
  return go_ldexp(a1, ae);
}

double round(const FuncArgs& a) {
  double round_on = a.size() > 2 ? a[2].as_float() : 0.5;
  double val = to_float64(a[0]);
  double pow = go_pow10(a[1].as_int());
  double digit = pow * val;
  return (go_modf_frac(digit) >= round_on ? std::ceil(digit) : std::floor(digit)) / pow;
}

/// strconv.Atoi with its error dropped: syntax errors give 0, out-of-range values the clamped
/// bound (ParseInt returns it alongside the range error).
int64_t atoi(std::string_view s) {
  if (std::optional<int64_t> v = parse_go_int(s, 10)) return *v;
  std::string_view digits = s;
  if (!digits.empty() && (digits[0] == '+' || digits[0] == '-')) digits.remove_prefix(1);
  bool syntax_ok =
      !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
  if (!syntax_ok) return 0;
  return s[0] == '-' ? std::numeric_limits<int64_t>::min() : std::numeric_limits<int64_t>::max();
}

using DecimalOp = Decimal (*)(const Decimal&, const Decimal&);

/// Sprig's execDecimalOp: every operand through float64 and decimal.NewFromFloat.
double decimal_op(const Value& first, std::span<const Value> rest, DecimalOp op) {
  Decimal acc = Decimal::from_float(to_float64(first));
  for (const Value& v : rest) acc = op(acc, Decimal::from_float(to_float64(v)));
  return acc.to_float();
}

}  // namespace

void register_sprig_math(FuncMap& map, const std::shared_ptr<const Env>& /*env*/) {
  auto i64 = [](int64_t v) { return Value::int64(v); };
  auto f64 = [](double v) { return Value::float64(v); };
  map.add("add1",
          fn({P::Any}, [=](const FuncArgs& a) { return i64(wrap_add(to_int64(a[0]), 1)); }));
  map.add("add", fn_variadic({P::Any}, [=](const FuncArgs& a) {
            int64_t sum = 0;
            for (const Value& v : a.args) sum = wrap_add(sum, to_int64(v));
            return i64(sum);
          }));
  map.add("sub", fn({P::Any, P::Any}, [=](const FuncArgs& a) {
            return i64(wrap_add(to_int64(a[0]), wrap_mul(to_int64(a[1]), -1)));
          }));
  map.add("div", fn({P::Any, P::Any}, [=](const FuncArgs& a) {
            return i64(go_div(to_int64(a[0]), to_int64(a[1])));
          }));
  map.add("mod", fn({P::Any, P::Any}, [=](const FuncArgs& a) {
            return i64(go_mod(to_int64(a[0]), to_int64(a[1])));
          }));
  map.add("mul", fn_variadic({P::Any, P::Any}, [=](const FuncArgs& a) {
            int64_t v = to_int64(a[0]);
            for (size_t i = 1; i < a.size(); ++i) v = wrap_mul(v, to_int64(a[i]));
            return i64(v);
          }));
  auto minmax = [=](bool is_max) {
    return fn_variadic({P::Any, P::Any}, [=](const FuncArgs& a) {
      int64_t v = to_int64(a[0]);
      for (size_t i = 1; i < a.size(); ++i) {
        int64_t b = to_int64(a[i]);
        if (is_max ? b > v : b < v) v = b;
      }
      return i64(v);
    });
  };
  map.add("max", minmax(true));
  map.add("biggest", minmax(true));
  map.add("min", minmax(false));
  auto minmaxf = [=](bool is_max) {
    return fn_variadic({P::Any, P::Any}, [=](const FuncArgs& a) {
      double v = to_float64(a[0]);
      for (size_t i = 1; i < a.size(); ++i) {
        v = is_max ? go_max(v, to_float64(a[i])) : go_min(v, to_float64(a[i]));
      }
      return f64(v);
    });
  };
  map.add("maxf", minmaxf(true));
  map.add("minf", minmaxf(false));
  map.add("add1f", fn({P::Any}, [=](const FuncArgs& a) {
            Value one = Value::integer(1);
            return f64(decimal_op(a[0], std::span<const Value>(&one, 1), Decimal::add));
          }));
  map.add("addf", fn_variadic({P::Any}, [=](const FuncArgs& a) {
            return f64(decimal_op(Value::float64(0), a.args, Decimal::add));
          }));
  auto dec = [=](DecimalOp op) {
    return fn_variadic({P::Any, P::Any}, [=](const FuncArgs& a) {
      return f64(decimal_op(a[0], a.args.subspan(1), op));
    });
  };
  map.add("subf", dec(Decimal::sub));
  map.add("mulf", dec(Decimal::mul));
  map.add("divf", dec(Decimal::div));
  map.add("ceil",
          fn({P::Any}, [=](const FuncArgs& a) { return f64(std::ceil(to_float64(a[0]))); }));
  map.add("floor",
          fn({P::Any}, [=](const FuncArgs& a) { return f64(std::floor(to_float64(a[0]))); }));
  map.add("round", fn_variadic({P::Any, P::Int, P::Float64},
                               [=](const FuncArgs& a) { return f64(round(a)); }));
  map.add("until", fn({P::Int}, [](const FuncArgs& a) {
            int64_t n = a[0].as_int();
            return int_list(until_step(0, n, n < 0 ? -1 : 1));
          }));
  map.add("untilStep", fn({P::Int, P::Int, P::Int}, [](const FuncArgs& a) {
            return int_list(until_step(a[0].as_int(), a[1].as_int(), a[2].as_int()));
          }));
  map.add("seq", fn_variadic({P::Int}, [](const FuncArgs& a) { return Value::string(seq(a)); }));
  map.add("atoi", fn({P::String},
                     [](const FuncArgs& a) { return Value::integer(atoi(a[0].as_string())); }));
  map.add("int64", fn({P::Any}, [=](const FuncArgs& a) { return i64(to_int64(a[0])); }));
  map.add("int", fn({P::Any}, [](const FuncArgs& a) { return Value::integer(to_int64(a[0])); }));
  map.add("float64", fn({P::Any}, [=](const FuncArgs& a) { return f64(to_float64(a[0])); }));
  map.add("toDecimal", fn({P::Any}, [=](const FuncArgs& a) {
            return i64(parse_go_int(format_v(a[0]), 8).value_or(0));
          }));
}

}  // namespace ejob::render::sprig
