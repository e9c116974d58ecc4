// time.ParseInLocation (Go 1.19 format.go parse), on the layout tokenizer of time_layout.hpp.
#include <array>

#include "ejob/go/strconv.hpp"
#include "ejob/go/time.hpp"
#include "ejob/go/time_layout.hpp"

namespace ejob::render::gotime {

namespace {

using namespace layout;

constexpr std::array<std::string_view, 12> k_long_months = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> k_long_days = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

struct Bad {};

/// getnum: one or two digits (exactly two when fixed).
int getnum(std::string_view& s, bool fixed) {
  if (!digit_at(s, 0)) throw Bad{};
  if (!digit_at(s, 1)) {
    if (fixed) throw Bad{};
    int v = s[0] - '0';
    s.remove_prefix(1);
    return v;
  }
  int v = (s[0] - '0') * 10 + (s[1] - '0');
  s.remove_prefix(2);
  return v;
}

int getnum3(std::string_view& s, bool fixed) {
  int x = 0;
  size_t n = 0;
  for (; n < 3 && digit_at(s, n); ++n) x = x * 10 + (s[n] - '0');
  if (n == 0 || (fixed && n != 3)) throw Bad{};
  s.remove_prefix(n);
  return x;
}

/// time.atoi: optional sign, then digits only.
int64_t go_atoi(std::string_view s) {
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty()) throw Bad{};
  int64_t x = 0;
  for (char c : s) {
    if (c < '0' || c > '9' || x > (INT64_MAX - 9) / 10) throw Bad{};
    x = x * 10 + (c - '0');
  }
  return neg ? -x : x;
}

template <size_t N>
int lookup(const std::array<std::string_view, N>& tab, std::string_view& s, size_t len) {
  for (size_t i = 0; i < N; ++i) {
    std::string_view name = len ? tab[i].substr(0, len) : tab[i];
    if (s.size() >= name.size() && go::equal_fold_ascii(s.substr(0, name.size()), name)) {
      s.remove_prefix(name.size());
      return static_cast<int>(i);
    }
  }
  throw Bad{};
}

bool skip(std::string_view& value, std::string_view prefix) {
  auto cutspace = [](std::string_view& x) {
    while (!x.empty() && x[0] == ' ') x.remove_prefix(1);
  };
  while (!prefix.empty()) {
    if (prefix[0] == ' ') {
      if (!value.empty() && value[0] != ' ') return false;
      cutspace(prefix);
      cutspace(value);
      continue;
    }
    if (value.empty() || value[0] != prefix[0]) return false;
    prefix.remove_prefix(1);
    value.remove_prefix(1);
  }
  return true;
}

/// parseNanoseconds: value[0] is the separator, then nbytes-1 digits.
int32_t nanoseconds(std::string_view value, size_t nbytes) {
  if (value[0] != '.' && value[0] != ',') throw Bad{};
  if (nbytes > 10) nbytes = 10;
  int64_t ns = go_atoi(value.substr(1, nbytes - 1));
  for (size_t i = 0; i < 10 - nbytes; ++i) ns *= 10;
  return static_cast<int32_t>(ns);
}

/// parseTimeZone: the length of a zone abbreviation at the start of value (0 if none).
size_t zone_length(std::string_view v) {
  if (v.size() < 3) return 0;
  if (v.size() >= 4 && (v.substr(0, 4) == "ChST" || v.substr(0, 4) == "MeST")) return 4;
  if (v.substr(0, 3) == "GMT") {
    size_t n = 3;
    if (n < v.size() && (v[n] == '+' || v[n] == '-')) {
      size_t k = n + 1;
      while (k < v.size() && v[k] >= '0' && v[k] <= '9') ++k;
      if (k > n + 1) n = k;
    }
    return n;
  }
  size_t upper = 0;
  while (upper < 6 && upper < v.size() && v[upper] >= 'A' && v[upper] <= 'Z') ++upper;
  if (upper == 5 && v[4] == 'T') return 5;
  if (upper == 4 && (v[3] == 'T' || v.substr(0, 4) == "WITA")) return 4;
  return upper == 3 ? 3 : 0;
}

}  // namespace

std::optional<Time> parse(std::string_view layout_text, std::string_view value_text,
                          const std::shared_ptr<const Location>& loc, std::string& error) {
  std::string_view layout = layout_text;
  std::string_view value = value_text;
  std::string range_err;
  bool am = false, pm = false;
  int64_t year = 0;
  int month = -1, day = -1, yday = -1, hour = 0, min = 0, sec = 0;
  int32_t nsec = 0;
  std::shared_ptr<const Location> z;
  int zone_offset = -1;
  bool have_offset = false;
  std::string zone_name;
  auto fail_elem = [&](std::string_view layout_elem, std::string_view value_elem) {
    error = "parsing time " + quote(value_text) + " as " + quote(layout_text) + ": cannot parse " +
            quote(value_elem) + " as " + quote(layout_elem);
    return std::nullopt;
  };
  auto fail_msg = [&](const std::string& msg) {
    error = "parsing time " + quote(value_text) + msg;
    return std::nullopt;
  };
  while (true) {
    Chunk c = next_chunk(layout);
    std::string_view stdstr =
        layout.substr(c.prefix.size(), layout.size() - c.prefix.size() - c.suffix.size());
    if (!skip(value, c.prefix)) return fail_elem(c.prefix, value);
    if (c.std == kNone) {
      if (!value.empty()) return fail_msg(": extra text: " + quote(value));
      break;
    }
    layout = c.suffix;
    // The value Go's ParseError shows: where the failing element started, or past the
    // characters Go consumed before checking them.
    std::string_view hold = value;
    try {
      switch (c.std) {
        case kYear: {
          if (value.size() < 2) throw Bad{};
          year = go_atoi(value.substr(0, 2));
          value.remove_prefix(2);
          year += year >= 69 ? 1900 : 2000;
          break;
        }
        case kLongYear:
          if (value.size() < 4 || !digit_at(value, 0)) throw Bad{};
          hold = value.substr(4);  // Go reports the value after the four digits
          year = go_atoi(value.substr(0, 4));
          value.remove_prefix(4);
          break;
        case kMonth: month = lookup(k_long_months, value, 3) + 1; break;
        case kLongMonth: month = lookup(k_long_months, value, 0) + 1; break;
        case kNumMonth:
        case kZeroMonth:
          month = getnum(value, c.std == kZeroMonth);
          if (month <= 0 || month > 12) range_err = "month";
          break;
        case kWeekDay: lookup(k_long_days, value, 3); break;
        case kLongWeekDay: lookup(k_long_days, value, 0); break;
        case kDay:
        case kUnderDay:
        case kZeroDay:
          if (c.std == kUnderDay && !value.empty() && value[0] == ' ') value.remove_prefix(1);
          day = getnum(value, c.std == kZeroDay);
          break;
        case kUnderYearDay:
        case kZeroYearDay:
          for (int i = 0; i < 2; ++i) {
            if (c.std == kUnderYearDay && !value.empty() && value[0] == ' ') value.remove_prefix(1);
          }
          yday = getnum3(value, c.std == kZeroYearDay);
          break;
        case kHour:
          hour = getnum(value, false);
          if (hour < 0 || hour >= 24) range_err = "hour";
          break;
        case kHour12:
        case kZeroHour12:
          hour = getnum(value, c.std == kZeroHour12);
          if (hour < 0 || hour > 12) range_err = "hour";
          break;
        case kMinute:
        case kZeroMinute:
          min = getnum(value, c.std == kZeroMinute);
          if (min < 0 || min >= 60) range_err = "minute";
          break;
        case kSecond:
        case kZeroSecond: {
          sec = getnum(value, c.std == kZeroSecond);
          if (sec < 0 || sec >= 60) {
            range_err = "second";
            break;
          }
          // A fractional second in the value but not in the layout is still consumed.
          if (value.size() >= 2 && (value[0] == '.' || value[0] == ',') && digit_at(value, 1)) {
            Std next = next_chunk(layout).std;
            if (next == kFracSecond0 || next == kFracSecond9) break;
            size_t n = 2;
            while (digit_at(value, n)) ++n;
            hold = value.substr(n);
            nsec = nanoseconds(value, n);
            value.remove_prefix(n);
          }
          break;
        }
        case kPM:
        case kpm: {
          if (value.size() < 2) throw Bad{};
          std::string_view p = value.substr(0, 2);
          value.remove_prefix(2);
          hold = value;
          bool upper = c.std == kPM;
          if (p == (upper ? "PM" : "pm")) {
            pm = true;
          } else if (p == (upper ? "AM" : "am")) {
            am = true;
          } else {
            throw Bad{};
          }
          break;
        }
        case kTZ: {
          if (value.size() >= 3 && value.substr(0, 3) == "UTC") {
            z = Location::utc();
            value.remove_prefix(3);
            break;
          }
          size_t n = zone_length(value);
          if (n == 0) throw Bad{};
          zone_name = std::string(value.substr(0, n));
          value.remove_prefix(n);
          break;
        }
        case kFracSecond0: {
          size_t ndigit = 1 + static_cast<size_t>(c.frac_digits);
          if (value.size() < ndigit) throw Bad{};
          hold = value.substr(ndigit);
          nsec = nanoseconds(value, ndigit);
          value.remove_prefix(ndigit);
          break;
        }
        case kFracSecond9: {
          if (value.size() < 2 || (value[0] != '.' && value[0] != ',') || !digit_at(value, 1))
            break;
          size_t i = 0;
          while (digit_at(value, i + 1)) ++i;
          hold = value.substr(1 + i);
          nsec = nanoseconds(value, 1 + i);
          value.remove_prefix(1 + i);
          break;
        }
        default: {  // numeric zone offsets
          bool iso = c.std >= kISO8601TZ && c.std <= kISO8601ColonSecondsTZ;
          if (iso && !value.empty() && value[0] == 'Z') {
            value.remove_prefix(1);
            z = Location::utc();
            break;
          }
          std::string_view sign, hh, mm, ss = "00";
          auto need = [&](size_t n) {
            if (value.size() < n) throw Bad{};
          };
          if (c.std == kISO8601ColonTZ || c.std == kNumColonTZ) {
            need(6);
            if (value[3] != ':') throw Bad{};
            sign = value.substr(0, 1), hh = value.substr(1, 2), mm = value.substr(4, 2);
            value.remove_prefix(6);
          } else if (c.std == kNumShortTZ || c.std == kISO8601ShortTZ) {
            need(3);
            sign = value.substr(0, 1), hh = value.substr(1, 2), mm = "00";
            value.remove_prefix(3);
          } else if (c.std == kISO8601ColonSecondsTZ || c.std == kNumColonSecondsTZ) {
            need(9);
            if (value[3] != ':' || value[6] != ':') throw Bad{};
            sign = value.substr(0, 1), hh = value.substr(1, 2), mm = value.substr(4, 2);
            ss = value.substr(7, 2);
            value.remove_prefix(9);
          } else if (c.std == kISO8601SecondsTZ || c.std == kNumSecondsTz) {
            need(7);
            sign = value.substr(0, 1), hh = value.substr(1, 2), mm = value.substr(3, 2);
            ss = value.substr(5, 2);
            value.remove_prefix(7);
          } else {
            need(5);
            sign = value.substr(0, 1), hh = value.substr(1, 2), mm = value.substr(3, 2);
            value.remove_prefix(5);
          }
          hold = value;  // the offset's characters are consumed before they are checked
          int h = getnum(hh, true), m = getnum(mm, true), s = getnum(ss, true);
          zone_offset = (h * 60 + m) * 60 + s;
          have_offset = true;
          if (sign[0] == '-') {
            zone_offset = -zone_offset;
          } else if (sign[0] != '+') {
            throw Bad{};
          }
          break;
        }
      }
    } catch (const Bad&) {
      return fail_elem(stdstr, hold);
    }
    if (!range_err.empty()) return fail_msg(": " + range_err + " out of range");
  }
  if (pm && hour < 12) {
    hour += 12;
  } else if (am && hour == 12) {
    hour = 0;
  }
  if (yday >= 0) {
    int64_t y = year;
    bool leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
    if (yday < 1 || yday > 365 + (leap ? 1 : 0)) return fail_msg(": day-of-year out of range");
    int m = 1;
    int d = yday;
    static constexpr std::array<int, 12> k_len = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    while (d > k_len[static_cast<size_t>(m - 1)] + (m == 2 && leap ? 1 : 0)) {
      d -= k_len[static_cast<size_t>(m - 1)] + (m == 2 && leap ? 1 : 0);
      ++m;
    }
    if (month >= 0 && month != m) return fail_msg(": day-of-year does not match month");
    if (day >= 0 && day != d) return fail_msg(": day-of-year does not match day");
    month = m;
    day = d;
  } else {
    if (month < 0) month = 1;
    if (day < 0) day = 1;
  }
  bool leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
  static constexpr std::array<int, 12> k_len = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int dim = k_len[static_cast<size_t>(month - 1)] + (month == 2 && leap ? 1 : 0);
  if (day < 1 || day > dim) return fail_msg(": day out of range");
  // Wall-clock seconds as if in UTC, then shifted by the zone's offset.
  Time t;
  t.loc = Location::utc();
  t.unix_sec = 0;
  {
    int64_t y = year - (month <= 2);
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    t.unix_sec = days * 86400 + hour * 3600 + min * 60 + sec;
  }
  t.nsec = nsec;
  if (z) {
    t.loc = z;
    return t;
  }
  if (have_offset) {
    t.unix_sec -= zone_offset;
    Zone local = loc->lookup(t.unix_sec);
    if (local.offset == zone_offset && (zone_name.empty() || local.name == zone_name)) {
      t.loc = loc;
    } else {
      t.loc = Location::fixed(zone_name, zone_offset);
    }
    return t;
  }
  if (!zone_name.empty()) {
    if (std::optional<int> off = loc->offset_of(zone_name, t.unix_sec)) {
      t.unix_sec -= *off;
      t.loc = loc;
      return t;
    }
    int off = 0;
    if (zone_name.size() > 3 && zone_name.substr(0, 3) == "GMT") {
      off = static_cast<int>(go_atoi(zone_name.substr(3))) * 3600;
    }
    t.loc = Location::fixed(zone_name, off);
    return t;
  }
  // No zone in the value: the wall clock is in the default location.
  Zone guess = loc->lookup(t.unix_sec);
  Zone actual = loc->lookup(t.unix_sec - guess.offset);
  t.unix_sec -= actual.offset;
  t.loc = loc;
  return t;
}

}  // namespace ejob::render::gotime
