#pragma once
/// Internal to fmt*.cpp: Go's fmt printer (print.go's pp with format.go's fmt) over
/// Value. Printer::print_arg is pp.printArg (top-level operands), print_value is
/// pp.printValue (elements of lists and maps), and the fmt_* members are fmt.fmt's primitives.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "src/render/go/strconv.hpp"
#include "src/render/go/value.hpp"

namespace ejob::render::go::fmt_detail {

/// fmt's digit tables; index 16 is the hex prefix letter.
inline constexpr std::string_view k_ldigits = "0123456789abcdefx";
inline constexpr std::string_view k_udigits = "0123456789ABCDEFX";

/// fmt.fmtFlags plus width and precision of the verb being printed.
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

/// fmt's tooLarge: widths, precisions and argument numbers are capped.
inline bool too_large(int64_t x) { return x > 1000000 || x < -1000000; }

/// One fmt.Sprint*/Sprintf call: pp and its fmt; `buf` collects the output.
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
  /// Where do_printf is in its format and operands (doPrintf's locals).
  struct PrintfState {
    std::string_view format;
    std::span<const Value> args;
    size_t i = 0;              ///< next byte of format
    size_t arg_num = 0;        ///< next operand
    bool after_index = false;  ///< the previous item was an index like [3]
    bool good = true;          ///< no bad index in the current directive
  };
  /// The flags after a '%'; true when a plain verb followed them and was printed.
  bool printf_flags(PrintfState& st);
  void printf_width(PrintfState& st);
  void printf_precision(PrintfState& st);
  /// The verb ending a directive, printed with its operand (or the error Go prints instead).
  void printf_verb(PrintfState& st);
  /// `%!(EXTRA type=value, …)` for operands no verb used.
  void printf_extra(std::span<const Value> args, size_t arg_num);
};

}  // namespace ejob::render::go::fmt_detail
