// time.ParseInLocation (Go 1.19 format.go parse), on the layout tokenizer of time_layout.hpp.
#include <array>
#include <memory>
#include <string>

#include "src/render/go/strconv.hpp"
#include "src/render/go/time.hpp"
#include "src/render/go/time_layout.hpp"

namespace ejob::render::go::gotime {

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

/// The elements parse has read so far (the locals of Go's parse).
struct Fields {
  bool am = false;
  bool pm = false;
  int64_t year = 0;
  int month = -1;
  int day = -1;
  int yday = -1;
  int hour = 0;
  int min = 0;
  int sec = 0;
  int32_t nsec = 0;
  std::shared_ptr<const Location> zone;  ///< set by `UTC` or `Z` in the value
  int zone_offset = -1;
  bool have_offset = false;
  std::string zone_name;
  std::string range_err;  ///< the element out of range ("month", "hour", …), if one is
};

// Each read_* consumes one layout element's text from `value`, throws Bad when it does not
// match, and moves `hold` (the text Go's ParseError shows) where Go would.

/// A date element: year, month, weekday, day or day of the year; false for any other.
bool read_date(Std std, std::string_view& value, std::string_view& hold, Fields& f) {
  switch (std) {
    case kYear:
      if (value.size() < 2) throw Bad{};
      f.year = go_atoi(value.substr(0, 2));
      value.remove_prefix(2);
      f.year += f.year >= 69 ? 1900 : 2000;
      return true;
    case kLongYear:
      if (value.size() < 4 || !digit_at(value, 0)) throw Bad{};
      hold = value.substr(4);  // Go reports the value after the four digits
      f.year = go_atoi(value.substr(0, 4));
      value.remove_prefix(4);
      return true;
    case kMonth: f.month = lookup(k_long_months, value, 3) + 1; return true;
    case kLongMonth: f.month = lookup(k_long_months, value, 0) + 1; return true;
    case kNumMonth:
    case kZeroMonth:
      f.month = getnum(value, std == kZeroMonth);
      if (f.month <= 0 || f.month > 12) f.range_err = "month";
      return true;
    case kWeekDay: lookup(k_long_days, value, 3); return true;
    case kLongWeekDay: lookup(k_long_days, value, 0); return true;
    case kDay:
    case kUnderDay:
    case kZeroDay:
      if (std == kUnderDay && !value.empty() && value[0] == ' ') value.remove_prefix(1);
      f.day = getnum(value, std == kZeroDay);
      return true;
    case kUnderYearDay:
    case kZeroYearDay:
      for (int i = 0; i < 2; ++i) {
        if (std == kUnderYearDay && !value.empty() && value[0] == ' ') value.remove_prefix(1);
      }
      f.yday = getnum3(value, std == kZeroYearDay);
      return true;
    default: return false;
  }
}

/// Seconds, and a fraction after them that the layout (`rest`) does not ask for itself.
void read_seconds(Std std, std::string_view rest, std::string_view& value, std::string_view& hold,
                  Fields& f) {
  f.sec = getnum(value, std == kZeroSecond);
  if (f.sec < 0 || f.sec >= 60) {
    f.range_err = "second";
    return;
  }
  // A fractional second in the value but not in the layout is still consumed.
  if (value.size() >= 2 && (value[0] == '.' || value[0] == ',') && digit_at(value, 1)) {
    Std next = next_chunk(rest).std;
    if (next == kFracSecond0 || next == kFracSecond9) return;
    size_t n = 2;
    while (digit_at(value, n)) ++n;
    hold = value.substr(n);
    f.nsec = nanoseconds(value, n);
    value.remove_prefix(n);
  }
}

/// A fraction of a second: exactly frac_digits digits (kFracSecond0), or as many as there are.
void read_fraction(const Chunk& c, std::string_view& value, std::string_view& hold, Fields& f) {
  size_t n = 1 + static_cast<size_t>(c.frac_digits);  // with the separator
  if (c.std == kFracSecond0) {
    if (value.size() < n) throw Bad{};
  } else {
    if (value.size() < 2 || (value[0] != '.' && value[0] != ',') || !digit_at(value, 1)) return;
    n = 1;
    while (digit_at(value, n)) ++n;
  }
  hold = value.substr(n);
  f.nsec = nanoseconds(value, n);
  value.remove_prefix(n);
}

/// AM/PM in the case the layout gives.
void read_meridiem(Std std, std::string_view& value, std::string_view& hold, Fields& f) {
  if (value.size() < 2) throw Bad{};
  std::string_view p = value.substr(0, 2);
  value.remove_prefix(2);
  hold = value;
  bool upper = std == kPM;
  if (p == (upper ? "PM" : "pm")) {
    f.pm = true;
  } else if (p == (upper ? "AM" : "am")) {
    f.am = true;
  } else {
    throw Bad{};
  }
}

/// A clock element: hour, minute, second, fraction or AM/PM; false for any other.
bool read_clock(const Chunk& c, std::string_view& value, std::string_view& hold, Fields& f) {
  switch (c.std) {
    case kHour:
      f.hour = getnum(value, false);
      if (f.hour < 0 || f.hour >= 24) f.range_err = "hour";
      return true;
    case kHour12:
    case kZeroHour12:
      f.hour = getnum(value, c.std == kZeroHour12);
      if (f.hour < 0 || f.hour > 12) f.range_err = "hour";
      return true;
    case kMinute:
    case kZeroMinute:
      f.min = getnum(value, c.std == kZeroMinute);
      if (f.min < 0 || f.min >= 60) f.range_err = "minute";
      return true;
    case kSecond:
    case kZeroSecond: read_seconds(c.std, c.suffix, value, hold, f); return true;
    case kFracSecond0:
    case kFracSecond9: read_fraction(c, value, hold, f); return true;
    case kPM:
    case kpm: read_meridiem(c.std, value, hold, f); return true;
    default: return false;
  }
}

/// A zone abbreviation (`MST`, `GMT+3`) or UTC.
void read_zone_name(std::string_view& value, Fields& f) {
  if (value.size() >= 3 && value.substr(0, 3) == "UTC") {
    f.zone = Location::utc();
    value.remove_prefix(3);
    return;
  }
  size_t n = zone_length(value);
  if (n == 0) throw Bad{};
  f.zone_name = std::string(value.substr(0, n));
  value.remove_prefix(n);
}

/// A numeric zone offset (`-0700`, `-07:00`, `-07`, `-07:00:00`, ISO 8601's `Z`).
void read_offset(Std std, std::string_view& value, std::string_view& hold, Fields& f) {
  bool iso = std >= kISO8601TZ && std <= kISO8601ColonSecondsTZ;
  if (iso && !value.empty() && value[0] == 'Z') {
    value.remove_prefix(1);
    f.zone = Location::utc();
    return;
  }
  std::string_view sign, hh, mm, ss = "00";
  auto need = [&](size_t n) {
    if (value.size() < n) throw Bad{};
  };
  if (std == kISO8601ColonTZ || std == kNumColonTZ) {
    need(6);
    if (value[3] != ':') throw Bad{};
    sign = value.substr(0, 1), hh = value.substr(1, 2), mm = value.substr(4, 2);
    value.remove_prefix(6);
  } else if (std == kNumShortTZ || std == kISO8601ShortTZ) {
    need(3);
    sign = value.substr(0, 1), hh = value.substr(1, 2), mm = "00";
    value.remove_prefix(3);
  } else if (std == kISO8601ColonSecondsTZ || std == kNumColonSecondsTZ) {
    need(9);
    if (value[3] != ':' || value[6] != ':') throw Bad{};
    sign = value.substr(0, 1), hh = value.substr(1, 2), mm = value.substr(4, 2);
    ss = value.substr(7, 2);
    value.remove_prefix(9);
  } else if (std == kISO8601SecondsTZ || std == kNumSecondsTz) {
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
  f.zone_offset = (h * 60 + m) * 60 + s;
  f.have_offset = true;
  if (sign[0] == '-') {
    f.zone_offset = -f.zone_offset;
  } else if (sign[0] != '+') {
    throw Bad{};
  }
}

/// One layout element's text (the switch of Go's parse).
void read_element(const Chunk& c, std::string_view& value, std::string_view& hold, Fields& f) {
  if (read_date(c.std, value, hold, f) || read_clock(c, value, hold, f)) return;
  if (c.std == kTZ) {
    read_zone_name(value, f);
  } else {
    read_offset(c.std, value, hold, f);
  }
}

bool is_leap(int64_t year) { return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0); }

int days_in_month(int month, int64_t year) {
  static constexpr std::array<int, 12> k_len = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return k_len[static_cast<size_t>(month - 1)] + (month == 2 && is_leap(year) ? 1 : 0);
}

/// Month and day from the day of the year, checked against a month or day also given; Go's
/// error text, or empty.
std::string resolve_year_day(Fields& f) {
  if (f.yday < 1 || f.yday > 365 + (is_leap(f.year) ? 1 : 0)) return ": day-of-year out of range";
  int m = 1;
  int d = f.yday;
  while (d > days_in_month(m, f.year)) {
    d -= days_in_month(m, f.year);
    ++m;
  }
  if (f.month >= 0 && f.month != m) return ": day-of-year does not match month";
  if (f.day >= 0 && f.day != d) return ": day-of-year does not match day";
  f.month = m;
  f.day = d;
  return "";
}

/// The hour with AM/PM applied, the date's missing parts defaulted (January, the 1st) and
/// its day checked; Go's error text, or empty.
std::string resolve_date(Fields& f) {
  if (f.pm && f.hour < 12) {
    f.hour += 12;
  } else if (f.am && f.hour == 12) {
    f.hour = 0;
  }
  if (f.yday >= 0) {
    if (std::string err = resolve_year_day(f); !err.empty()) return err;
  } else {
    if (f.month < 0) f.month = 1;
    if (f.day < 0) f.day = 1;
  }
  if (f.day < 1 || f.day > days_in_month(f.month, f.year)) return ": day out of range";
  return "";
}

/// Seconds since the epoch of the wall clock read as UTC (days_from_civil).
int64_t wall_seconds(const Fields& f) {
  int64_t y = f.year - (f.month <= 2);
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (f.month + (f.month > 2 ? -3 : 9)) + 2) / 5 + f.day - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  int64_t days = era * 146097 + doe - 719468;
  return days * 86400 + f.hour * 3600 + f.min * 60 + f.sec;
}

/// The instant of the wall clock `t` holds (as UTC): in the value's own zone or offset, else
/// in `loc`.
Time place_in_zone(Time t, const Fields& f, const std::shared_ptr<const Location>& loc) {
  if (f.zone) {
    t.loc = f.zone;
    return t;
  }
  if (f.have_offset) {
    t.unix_sec -= f.zone_offset;
    Zone local = loc->lookup(t.unix_sec);
    if (local.offset == f.zone_offset && (f.zone_name.empty() || local.name == f.zone_name)) {
      t.loc = loc;
    } else {
      t.loc = Location::fixed(f.zone_name, f.zone_offset);
    }
    return t;
  }
  if (!f.zone_name.empty()) {
    if (std::optional<int> off = loc->offset_of(f.zone_name, t.unix_sec)) {
      t.unix_sec -= *off;
      t.loc = loc;
      return t;
    }
    int off = 0;
    if (f.zone_name.size() > 3 && f.zone_name.substr(0, 3) == "GMT") {
      off = static_cast<int>(go_atoi(f.zone_name.substr(3))) * 3600;
    }
    t.loc = Location::fixed(f.zone_name, off);
    return t;
  }
  // No zone in the value: the wall clock is in the default location.
  Zone guess = loc->lookup(t.unix_sec);
  Zone actual = loc->lookup(t.unix_sec - guess.offset);
  t.unix_sec -= actual.offset;
  t.loc = loc;
  return t;
}

}  // namespace

std::optional<Time> parse(std::string_view layout_text, std::string_view value_text,
                          const std::shared_ptr<const Location>& loc, std::string& error) {
  std::string_view layout = layout_text;
  std::string_view value = value_text;
  Fields f;
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
      read_element(c, value, hold, f);
    } catch (const Bad&) {
      return fail_elem(stdstr, hold);
    }
    if (!f.range_err.empty()) return fail_msg(": " + f.range_err + " out of range");
  }
  if (std::string err = resolve_date(f); !err.empty()) return fail_msg(err);
  Time t;
  t.unix_sec = wall_seconds(f);
  t.nsec = f.nsec;
  t.loc = Location::utc();
  return place_in_zone(t, f, loc);
}

}  // namespace ejob::render::go::gotime
