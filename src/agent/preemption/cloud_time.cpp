#include "src/agent/preemption/cloud_time.hpp"

#include <array>
#include <cctype>
#include <ctime>

namespace ejob::agent {
namespace {

/// Reads exactly `width` digits at `at` into `out`.
bool digits(std::string_view text, std::size_t at, std::size_t width, int& out) {
  if (at + width > text.size()) return false;
  out = 0;
  for (std::size_t i = at; i < at + width; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

/// The broken-down UTC time as a time point; nullopt when a field is out of range.
std::optional<SysTime> from_utc(int year, int month, int day, int hour, int minute, int second) {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return std::chrono::system_clock::from_time_t(::timegm(&tm));
}

/// The zone of an RFC 3339 time from `at` on: its offset east of UTC in seconds.
std::optional<int> zone_offset(std::string_view text, std::size_t at) {
  if (at + 1 == text.size() && (text[at] == 'Z' || text[at] == 'z')) return 0;
  int hours = 0, minutes = 0;
  if (at + 6 != text.size() || (text[at] != '+' && text[at] != '-') || text[at + 3] != ':' ||
      !digits(text, at + 1, 2, hours) || !digits(text, at + 4, 2, minutes))
    return std::nullopt;
  int offset = hours * 3600 + minutes * 60;
  return text[at] == '-' ? -offset : offset;
}

int month_number(std::string_view name) {
  static constexpr std::array<std::string_view, 12> k_months = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (std::size_t i = 0; i < k_months.size(); ++i)
    if (k_months[i] == name) return static_cast<int>(i) + 1;
  return 0;
}

}  // namespace

std::optional<SysTime> parse_rfc3339(std::string_view text) {
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  bool shape = digits(text, 0, 4, year) && text.size() > 19 && text[4] == '-' &&
               digits(text, 5, 2, month) && text[7] == '-' && digits(text, 8, 2, day) &&
               (text[10] == 'T' || text[10] == 't') && digits(text, 11, 2, hour) &&
               text[13] == ':' && digits(text, 14, 2, minute) && text[16] == ':' &&
               digits(text, 17, 2, second);
  if (!shape) return std::nullopt;
  std::size_t at = 19;
  if (text[at] == '.') {  // fractions of a second: the deadline is kept to the second
    std::size_t end = at + 1;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == at + 1) return std::nullopt;
    at = end;
  }
  std::optional<int> offset = zone_offset(text, at);
  std::optional<SysTime> local = from_utc(year, month, day, hour, minute, second);
  if (!offset || !local) return std::nullopt;
  return *local - std::chrono::seconds(*offset);
}

std::optional<SysTime> parse_http_date(std::string_view text) {
  // "Mon, 19 Sep 2016 18:29:47 GMT": fixed columns after the day name.
  int day = 0, year = 0, hour = 0, minute = 0, second = 0;
  if (text.size() != 29 || text[3] != ',' || text[4] != ' ' || text.substr(25) != " GMT")
    return std::nullopt;
  int month = month_number(text.substr(8, 3));
  bool shape = digits(text, 5, 2, day) && text[7] == ' ' && text[11] == ' ' &&
               digits(text, 12, 4, year) && text[16] == ' ' && digits(text, 17, 2, hour) &&
               text[19] == ':' && digits(text, 20, 2, minute) && text[22] == ':' &&
               digits(text, 23, 2, second);
  if (!shape || month == 0) return std::nullopt;
  return from_utc(year, month, day, hour, minute, second);
}

std::string format_rfc3339(SysTime time) {
  std::time_t t =
      std::chrono::system_clock::to_time_t(std::chrono::floor<std::chrono::seconds>(time));
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char out[32];
  std::strftime(out, sizeof out, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return out;
}

std::int64_t epoch_seconds(SysTime time) {
  return std::chrono::floor<std::chrono::seconds>(time.time_since_epoch()).count();
}

}  // namespace ejob::agent
