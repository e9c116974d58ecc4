#pragma once
/// Go's time package as Sprig's date functions use it: locations (UTC, fixed zones, and IANA
/// zones read from the system's TZif files as time.LoadLocation does), Time.Format and
/// time.ParseInLocation with Go's reference layouts ("2006-01-02T15:04:05Z07:00"), and
/// Duration's String and ParseDuration, with Go's error texts.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::render::go::gotime {

/// One zone a location can be in: abbreviation and offset east of UTC in seconds.
struct Zone {
  std::string name;
  int offset = 0;
  bool is_dst = false;
};

/// A time zone: a fixed zone or a table of transitions (from a TZif file).
class Location {
 public:
  /// A zone with one offset (time.FixedZone).
  static std::shared_ptr<const Location> fixed(std::string name, int offset);
  /// time.UTC.
  static std::shared_ptr<const Location> utc();
  /// time.LoadLocation: "" and "UTC" are UTC, "Local" is `local_zone` loaded the same way,
  /// anything else an IANA name under /usr/share/zoneinfo. nullptr when it cannot be loaded.
  static std::shared_ptr<const Location> load(std::string_view name, std::string_view local_zone);

  /// The zone in effect at a Unix time.
  [[nodiscard]] Zone lookup(int64_t unix_sec) const;
  /// A zone named `abbr` in effect near `unix_sec` (for parsing "MST"); nullopt if none.
  [[nodiscard]] std::optional<int> offset_of(std::string_view abbr, int64_t unix_sec) const;
  [[nodiscard]] const std::string& name() const { return m_name; }

 private:
  std::string m_name;
  std::vector<Zone> m_zones;
  std::vector<int64_t> m_when;   ///< transition times
  std::vector<uint8_t> m_index;  ///< zone index per transition
  friend struct TzifReader;
};

/// A time.Time: an instant plus the location it is shown in.
struct Time {
  int64_t unix_sec = -62135596800;  ///< 0001-01-01 00:00:00 UTC (Go's zero Time)
  int32_t nsec = 0;
  std::shared_ptr<const Location> loc = Location::utc();

  /// Time.Format(layout).
  [[nodiscard]] std::string format(std::string_view layout) const;
  /// Time.String(): "2006-01-02 15:04:05.999999999 -0700 MST".
  [[nodiscard]] std::string str() const {
    return format("2006-01-02 15:04:05.999999999 -0700 MST");
  }
  [[nodiscard]] bool is_zero() const { return unix_sec == -62135596800 && nsec == 0; }
  /// Calendar fields in the time's location.
  struct Civil {
    int64_t year;
    int month, day, hour, minute, second, weekday, yday;
    Zone zone;
  };
  [[nodiscard]] Civil civil() const;
  /// Time.Add(d) for a duration in nanoseconds.
  [[nodiscard]] Time add(int64_t ns) const;
};

/// time.ParseInLocation(layout, value, loc). On failure returns nullopt and sets `error` to
/// Go's ParseError text (`parsing time "x" as "2006": cannot parse "x" as "2006"`).
std::optional<Time> parse(std::string_view layout, std::string_view value,
                          const std::shared_ptr<const Location>& loc, std::string& error);

/// time.Duration(ns).String(): "1h2m3.5s", "1.5ms", "0s".
std::string duration_string(int64_t ns);

/// time.ParseDuration; nullopt with Go's error text (`time: invalid duration "x"`).
std::optional<int64_t> parse_duration(std::string_view s, std::string& error);

}  // namespace ejob::render::go::gotime
