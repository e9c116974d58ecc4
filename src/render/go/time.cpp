#include "src/render/go/time.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>

#include "src/render/go/time_layout.hpp"

namespace ejob::render::go::gotime {

namespace {

constexpr std::array<std::string_view, 12> k_months = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};
constexpr std::array<std::string_view, 7> k_days = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                    "Thursday", "Friday", "Saturday"};

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = floor_div(y, 400);
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

void civil_from_days(int64_t z, int64_t& y, int& m, int& d) {
  z += 719468;
  int64_t era = floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  y = yoe + era * 400 + (m <= 2);
}

uint32_t be32(const std::string& d, size_t at) {
  return static_cast<uint32_t>(static_cast<unsigned char>(d[at])) << 24 |
         static_cast<uint32_t>(static_cast<unsigned char>(d[at + 1])) << 16 |
         static_cast<uint32_t>(static_cast<unsigned char>(d[at + 2])) << 8 |
         static_cast<uint32_t>(static_cast<unsigned char>(d[at + 3]));
}

}  // namespace

/// Reads a TZif file (RFC 8536), preferring the 64-bit data block of version 2+ files.
struct TzifReader {
  static bool read(const std::string& data, Location& loc) {
    if (data.size() < 44 || data.compare(0, 4, "TZif") != 0) return false;
    size_t at = 0;
    bool v2 = data[4] >= '2';
    if (v2) {
      at = 44 + block_size(data, 0, 4);  // skip the 32-bit block
      if (data.size() < at + 44 || data.compare(at, 4, "TZif") != 0) return false;
    }
    size_t width = v2 ? 8 : 4;
    uint32_t isut = be32(data, at + 20), isstd = be32(data, at + 24), leap = be32(data, at + 28),
             timecnt = be32(data, at + 32), typecnt = be32(data, at + 36),
             charcnt = be32(data, at + 40);
    size_t p = at + 44;
    if (data.size() < p + block_size(data, at, width)) return false;
    for (uint32_t i = 0; i < timecnt; ++i, p += width) {
      int64_t t =
          width == 8
              ? static_cast<int64_t>(static_cast<uint64_t>(be32(data, p)) << 32 | be32(data, p + 4))
              : static_cast<int32_t>(be32(data, p));
      loc.m_when.push_back(t);
    }
    for (uint32_t i = 0; i < timecnt; ++i) loc.m_index.push_back(static_cast<uint8_t>(data[p++]));
    size_t abbrs = p + typecnt * 6;
    for (uint32_t i = 0; i < typecnt; ++i, p += 6) {
      Zone z;
      z.offset = static_cast<int32_t>(be32(data, p));
      z.is_dst = data[p + 4] != 0;
      size_t a = abbrs + static_cast<unsigned char>(data[p + 5]);
      size_t end = data.find('\0', a);
      z.name = data.substr(a, end - a);
      loc.m_zones.push_back(z);
    }
    (void)isut, (void)isstd, (void)leap, (void)charcnt;
    return !loc.m_zones.empty();
  }

  static size_t block_size(const std::string& d, size_t at, size_t width) {
    uint32_t isut = be32(d, at + 20), isstd = be32(d, at + 24), leap = be32(d, at + 28),
             timecnt = be32(d, at + 32), typecnt = be32(d, at + 36), charcnt = be32(d, at + 40);
    return timecnt * width + timecnt + typecnt * 6 + charcnt + leap * (width + 4) + isstd + isut;
  }
};

std::shared_ptr<const Location> Location::fixed(std::string name, int offset) {
  auto loc = std::make_shared<Location>();
  loc->m_name = name;
  loc->m_zones.push_back(Zone{std::move(name), offset, false});
  return loc;
}

std::shared_ptr<const Location> Location::utc() {
  static const std::shared_ptr<const Location> k_utc = fixed("UTC", 0);
  return k_utc;
}

std::shared_ptr<const Location> Location::load(std::string_view name, std::string_view local_zone) {
  if (name.empty() || name == "UTC") return utc();
  if (name == "Local") {
    if (local_zone.empty() || local_zone == "UTC" || local_zone == "Local") return utc();
    auto loc = load(local_zone, "UTC");
    return loc ? loc : utc();
  }
  // LoadLocation refuses names that could escape the zoneinfo directory.
  if (name.find("..") != std::string_view::npos || name[0] == '/' || name[0] == '\\') {
    return nullptr;
  }
  std::ifstream in("/usr/share/zoneinfo/" + std::string(name), std::ios::binary);
  if (!in) return nullptr;
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto loc = std::make_shared<Location>();
  loc->m_name = std::string(name);
  if (!TzifReader::read(data, *loc)) return nullptr;
  return loc;
}

Zone Location::lookup(int64_t unix_sec) const {
  if (m_when.empty() || unix_sec < m_when.front()) {
    // Before the first transition Go uses the first standard-time zone.
    for (const Zone& z : m_zones) {
      if (!z.is_dst) return z;
    }
    return m_zones.front();
  }
  auto it = std::upper_bound(m_when.begin(), m_when.end(), unix_sec);
  size_t i = static_cast<size_t>(it - m_when.begin()) - 1;
  return m_zones[m_index[i]];
}

std::optional<int> Location::offset_of(std::string_view abbr, int64_t unix_sec) const {
  // Go's lookupName: first try the zone in effect at the time, then any zone of that name.
  for (const Zone& z : m_zones) {
    if (z.name == abbr && lookup(unix_sec - z.offset).name == z.name) return z.offset;
  }
  for (const Zone& z : m_zones) {
    if (z.name == abbr) return z.offset;
  }
  return std::nullopt;
}

Time::Civil Time::civil() const {
  Civil c{};
  c.zone = loc->lookup(unix_sec);
  int64_t local = unix_sec + c.zone.offset;
  int64_t days = floor_div(local, 86400);
  int64_t secs = local - days * 86400;
  civil_from_days(days, c.year, c.month, c.day);
  c.hour = static_cast<int>(secs / 3600);
  c.minute = static_cast<int>(secs / 60 % 60);
  c.second = static_cast<int>(secs % 60);
  c.weekday = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
  c.yday = static_cast<int>(days - days_from_civil(c.year, 1, 1)) + 1;
  return c;
}

Time Time::add(int64_t ns) const {
  Time t = *this;
  int64_t total = t.nsec + ns % 1000000000;
  t.unix_sec += ns / 1000000000 + floor_div(total, 1000000000);
  t.nsec = static_cast<int32_t>(total - floor_div(total, 1000000000) * 1000000000);
  return t;
}

namespace {

using namespace layout;

void append_int(std::string& b, int64_t x, int width) {
  if (x < 0) {
    b += '-';
    x = -x;
  }
  std::string digits = std::to_string(x);
  if (static_cast<int>(digits.size()) < width)
    b.append(static_cast<size_t>(width) - digits.size(), '0');
  b += digits;
}

void format_nano(std::string& b, int32_t nsec, const Chunk& c) {
  std::string digits = std::to_string(nsec);
  digits.insert(0, 9 - digits.size(), '0');
  digits.resize(static_cast<size_t>(std::min(c.frac_digits, 9)));
  if (c.std == kFracSecond9) {
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    if (digits.empty()) return;
  }
  b += c.frac_sep;
  b += digits;
}

void format_zone(std::string& b, Std std, int offset) {
  bool iso = std >= kISO8601TZ && std <= kISO8601ColonSecondsTZ;
  if (iso && offset == 0) {
    b += 'Z';
    return;
  }
  int zone = offset / 60;
  int abs_offset = offset;
  if (zone < 0) {
    b += '-';
    zone = -zone;
    abs_offset = -abs_offset;
  } else {
    b += '+';
  }
  append_int(b, zone / 60, 2);
  bool colon = std == kISO8601ColonTZ || std == kNumColonTZ || std == kISO8601ColonSecondsTZ ||
               std == kNumColonSecondsTZ;
  if (colon) b += ':';
  if (std != kNumShortTZ && std != kISO8601ShortTZ) append_int(b, zone % 60, 2);
  if (std == kISO8601SecondsTZ || std == kNumSecondsTz || std == kNumColonSecondsTZ ||
      std == kISO8601ColonSecondsTZ) {
    if (std == kNumColonSecondsTZ || std == kISO8601ColonSecondsTZ) b += ':';
    append_int(b, abs_offset % 60, 2);
  }
}

}  // namespace

std::string Time::format(std::string_view text) const {
  using namespace layout;
  std::string_view layout = text;
  Civil c = civil();
  std::string b;
  while (!layout.empty()) {
    Chunk ch = next_chunk(layout);
    b += ch.prefix;
    if (ch.std == kNone) break;
    layout = ch.suffix;
    int hr12 = c.hour % 12 == 0 ? 12 : c.hour % 12;
    switch (ch.std) {
      case kYear: append_int(b, (c.year < 0 ? -c.year : c.year) % 100, 2); break;
      case kLongYear: append_int(b, c.year, 4); break;
      case kMonth: b += k_months[static_cast<size_t>(c.month - 1)].substr(0, 3); break;
      case kLongMonth: b += k_months[static_cast<size_t>(c.month - 1)]; break;
      case kNumMonth: append_int(b, c.month, 0); break;
      case kZeroMonth: append_int(b, c.month, 2); break;
      case kWeekDay: b += k_days[static_cast<size_t>(c.weekday)].substr(0, 3); break;
      case kLongWeekDay: b += k_days[static_cast<size_t>(c.weekday)]; break;
      case kDay: append_int(b, c.day, 0); break;
      case kUnderDay:
        if (c.day < 10) b += ' ';
        append_int(b, c.day, 0);
        break;
      case kZeroDay: append_int(b, c.day, 2); break;
      case kUnderYearDay:
        if (c.yday < 100) b += ' ';
        if (c.yday < 10) b += ' ';
        append_int(b, c.yday, 0);
        break;
      case kZeroYearDay: append_int(b, c.yday, 3); break;
      case kHour: append_int(b, c.hour, 2); break;
      case kHour12: append_int(b, hr12, 0); break;
      case kZeroHour12: append_int(b, hr12, 2); break;
      case kMinute: append_int(b, c.minute, 0); break;
      case kZeroMinute: append_int(b, c.minute, 2); break;
      case kSecond: append_int(b, c.second, 0); break;
      case kZeroSecond: append_int(b, c.second, 2); break;
      case kPM: b += c.hour >= 12 ? "PM" : "AM"; break;
      case kpm: b += c.hour >= 12 ? "pm" : "am"; break;
      case kTZ:
        if (!c.zone.name.empty()) {
          b += c.zone.name;
        } else {
          int zone = c.zone.offset / 60;
          b += zone < 0 ? '-' : '+';
          if (zone < 0) zone = -zone;
          append_int(b, zone / 60, 2);
          append_int(b, zone % 60, 2);
        }
        break;
      case kFracSecond0:
      case kFracSecond9: format_nano(b, nsec, ch); break;
      default: format_zone(b, ch.std, c.zone.offset); break;
    }
  }
  return b;
}

std::string duration_string(int64_t ns) {
  uint64_t u = static_cast<uint64_t>(ns);
  bool neg = ns < 0;
  if (neg) u = 0 - u;
  auto frac = [](std::string& out, uint64_t& v, int prec) {
    // fmtFrac: the fraction digits of v / 10^prec, trailing zeros dropped.
    std::string digits;
    bool print = false;
    for (int i = 0; i < prec; ++i) {
      uint64_t digit = v % 10;
      print = print || digit != 0;
      if (print) digits.insert(digits.begin(), static_cast<char>('0' + digit));
      v /= 10;
    }
    if (print) out = "." + digits + out;
  };
  std::string out;
  if (u < 1000000000) {
    if (u == 0) return "0s";
    int prec = 0;
    std::string unit;
    if (u < 1000) {
      unit = "ns";
    } else if (u < 1000000) {
      prec = 3;
      unit = "µs";
    } else {
      prec = 6;
      unit = "ms";
    }
    out = unit;
    frac(out, u, prec);
    out = std::to_string(u) + out;
  } else {
    out = "s";
    frac(out, u, 9);
    out = std::to_string(u % 60) + out;
    u /= 60;
    if (u > 0) {
      out = std::to_string(u % 60) + "m" + out;
      u /= 60;
      if (u > 0) out = std::to_string(u) + "h" + out;
    }
  }
  return neg ? "-" + out : out;
}

namespace {

/// The largest magnitude of a duration in nanoseconds, as unsigned: 1<<63.
constexpr uint64_t k_duration_limit = uint64_t{1} << 63;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// time's leadingInt: the digits at the start of s (consumed; `any` says whether there were
/// some), or nullopt past the limit.
std::optional<uint64_t> leading_int(std::string_view& s, bool& any) {
  uint64_t v = 0;
  size_t i = 0;
  for (; i < s.size() && is_digit(s[i]); ++i) {
    if (v > (k_duration_limit - 1) / 10) return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(s[i] - '0');
    if (v > k_duration_limit) return std::nullopt;
  }
  any = i > 0;
  s.remove_prefix(i);
  return v;
}

/// A fraction's digits as value / scale.
struct Fraction {
  uint64_t value = 0;
  double scale = 1;
  bool any = false;  ///< there was at least one digit
};

/// time's leadingFraction: the digits at the start of s (consumed); digits past what fits are
/// dropped.
Fraction leading_fraction(std::string_view& s) {
  Fraction f;
  bool overflow = false;
  size_t j = 0;
  for (; j < s.size() && is_digit(s[j]); ++j) {
    if (overflow) continue;
    if (f.value > (k_duration_limit - 1) / 10) {
      overflow = true;
      continue;
    }
    uint64_t y = f.value * 10 + static_cast<uint64_t>(s[j] - '0');
    if (y > k_duration_limit) {
      overflow = true;
      continue;
    }
    f.value = y;
    f.scale *= 10;
  }
  f.any = j > 0;
  s.remove_prefix(j);
  return f;
}

/// time's unitMap: nanoseconds per unit, 0 for a unit Go does not know.
uint64_t unit_nanos(std::string_view unit) {
  if (unit == "ns") return 1;
  if (unit == "us" || unit == "µs" || unit == "μs") return 1000;
  if (unit == "ms") return 1000000;
  if (unit == "s") return 1000000000;
  if (unit == "m") return 60000000000;
  if (unit == "h") return 3600000000000;
  return 0;
}

}  // namespace

std::optional<int64_t> parse_duration(std::string_view s, std::string& error) {
  std::string orig(s);
  auto invalid = [&] {
    error = "time: invalid duration " + quote(orig);
    return std::nullopt;
  };
  uint64_t d = 0;
  bool neg = false;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
    neg = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s == "0") return 0;
  if (s.empty()) return invalid();
  while (!s.empty()) {
    if (!(s[0] == '.' || is_digit(s[0]))) return invalid();
    bool pre = false;
    std::optional<uint64_t> v = leading_int(s, pre);
    if (!v) return invalid();
    Fraction f;
    if (!s.empty() && s[0] == '.') {
      s.remove_prefix(1);
      f = leading_fraction(s);
    }
    if (!pre && !f.any) return invalid();
    size_t u = 0;
    while (u < s.size() && s[u] != '.' && !is_digit(s[u])) ++u;
    if (u == 0) {
      error = "time: missing unit in duration " + quote(orig);
      return std::nullopt;
    }
    std::string_view unit_name = s.substr(0, u);
    s.remove_prefix(u);
    uint64_t unit = unit_nanos(unit_name);
    if (unit == 0) {
      error = "time: unknown unit " + quote(unit_name) + " in duration " + quote(orig);
      return std::nullopt;
    }
    if (*v > k_duration_limit / unit) return invalid();
    uint64_t n = *v * unit;
    if (f.value > 0) {
      n += static_cast<uint64_t>(static_cast<double>(f.value) *
                                 (static_cast<double>(unit) / f.scale));
      if (n > k_duration_limit) return invalid();
    }
    d += n;
    if (d > k_duration_limit) return invalid();
  }
  if (neg) return static_cast<int64_t>(0 - d);
  if (d > k_duration_limit - 1) return invalid();
  return static_cast<int64_t>(d);
}

std::string layout::quote(std::string_view s) {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c >= 0x80 || c < ' ') {
      out += "\\x";
      out += k_hex[c >> 4];
      out += k_hex[c & 0xF];
    } else {
      if (c == '"' || c == '\\') out += '\\';
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace ejob::render::go::gotime
