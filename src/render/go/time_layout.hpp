#pragma once
/// Go's reference-layout tokenizer (time.nextStdChunk), shared by Time::format and parse.
/// Internal to time*.cpp.

#include <array>
#include <string>
#include <string_view>

namespace ejob::render::go::gotime::layout {

/// time's quote() for error texts: ASCII printable as is, `"` and `\` escaped, other bytes
/// as \xNN.
std::string quote(std::string_view s);

enum Std : int {
  kNone = 0,
  kLongMonth,
  kMonth,
  kNumMonth,
  kZeroMonth,
  kLongWeekDay,
  kWeekDay,
  kDay,
  kUnderDay,
  kZeroDay,
  kUnderYearDay,
  kZeroYearDay,
  kHour,
  kHour12,
  kZeroHour12,
  kMinute,
  kZeroMinute,
  kSecond,
  kZeroSecond,
  kLongYear,
  kYear,
  kPM,
  kpm,
  kTZ,
  kISO8601TZ,
  kISO8601SecondsTZ,
  kISO8601ShortTZ,
  kISO8601ColonTZ,
  kISO8601ColonSecondsTZ,
  kNumTZ,
  kNumSecondsTz,
  kNumShortTZ,
  kNumColonTZ,
  kNumColonSecondsTZ,
  kFracSecond0,
  kFracSecond9
};

struct Chunk {
  std::string_view prefix;
  Std std = kNone;
  int frac_digits = 0;
  char frac_sep = '.';
  std::string_view suffix;
};

inline bool starts_lower(std::string_view s) { return !s.empty() && s[0] >= 'a' && s[0] <= 'z'; }
inline bool digit_at(std::string_view s, size_t i) {
  return i < s.size() && s[i] >= '0' && s[i] <= '9';
}

/// Go's nextStdChunk.
inline Chunk next_chunk(std::string_view l) {
  auto at = [&](size_t i, Std s, size_t len) {
    return Chunk{l.substr(0, i), s, 0, '.', l.substr(i + len)};
  };
  auto has = [&](size_t i, std::string_view w) { return l.substr(i, w.size()) == w; };
  for (size_t i = 0; i < l.size(); ++i) {
    switch (l[i]) {
      case 'J':
        if (has(i, "January")) return at(i, kLongMonth, 7);
        if (has(i, "Jan") && !starts_lower(l.substr(i + 3))) return at(i, kMonth, 3);
        break;
      case 'M':
        if (has(i, "Monday")) return at(i, kLongWeekDay, 6);
        if (has(i, "Mon") && !starts_lower(l.substr(i + 3))) return at(i, kWeekDay, 3);
        if (has(i, "MST")) return at(i, kTZ, 3);
        break;
      case '0':
        if (i + 1 < l.size() && l[i + 1] >= '1' && l[i + 1] <= '6') {
          static constexpr std::array<Std, 6> k0x = {kZeroMonth,  kZeroDay,    kZeroHour12,
                                                     kZeroMinute, kZeroSecond, kYear};
          return at(i, k0x[static_cast<size_t>(l[i + 1] - '1')], 2);
        }
        if (has(i, "002")) return at(i, kZeroYearDay, 3);
        break;
      case '1': return has(i, "15") ? at(i, kHour, 2) : at(i, kNumMonth, 1);
      case '2': return has(i, "2006") ? at(i, kLongYear, 4) : at(i, kDay, 1);
      case '_':
        if (has(i, "_2")) {
          if (has(i, "_2006")) return Chunk{l.substr(0, i + 1), kLongYear, 0, '.', l.substr(i + 5)};
          return at(i, kUnderDay, 2);
        }
        if (has(i, "__2")) return at(i, kUnderYearDay, 3);
        break;
      case '3': return at(i, kHour12, 1);
      case '4': return at(i, kMinute, 1);
      case '5': return at(i, kSecond, 1);
      case 'P':
        if (has(i, "PM")) return at(i, kPM, 2);
        break;
      case 'p':
        if (has(i, "pm")) return at(i, kpm, 2);
        break;
      case '-':
        if (has(i, "-070000")) return at(i, kNumSecondsTz, 7);
        if (has(i, "-07:00:00")) return at(i, kNumColonSecondsTZ, 9);
        if (has(i, "-0700")) return at(i, kNumTZ, 5);
        if (has(i, "-07:00")) return at(i, kNumColonTZ, 6);
        if (has(i, "-07")) return at(i, kNumShortTZ, 3);
        break;
      case 'Z':
        if (has(i, "Z070000")) return at(i, kISO8601SecondsTZ, 7);
        if (has(i, "Z07:00:00")) return at(i, kISO8601ColonSecondsTZ, 9);
        if (has(i, "Z0700")) return at(i, kISO8601TZ, 5);
        if (has(i, "Z07:00")) return at(i, kISO8601ColonTZ, 6);
        if (has(i, "Z07")) return at(i, kISO8601ShortTZ, 3);
        break;
      case '.':
      case ',':
        if (i + 1 < l.size() && (l[i + 1] == '0' || l[i + 1] == '9')) {
          char ch = l[i + 1];
          size_t j = i + 1;
          while (j < l.size() && l[j] == ch) ++j;
          if (!digit_at(l, j)) {
            Chunk c = at(i, ch == '0' ? kFracSecond0 : kFracSecond9, j - i);
            c.frac_digits = static_cast<int>(j - (i + 1));
            c.frac_sep = l[i];
            return c;
          }
        }
        break;
      default: break;
    }
  }
  return Chunk{l, kNone, 0, '.', {}};
}

}  // namespace ejob::render::go::gotime::layout
