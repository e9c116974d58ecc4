// Sprig's date functions (date.go) on go_time: now, date, dateInZone/date_in_zone, htmlDate,
// htmlDateInZone, dateModify/date_modify (+must), ago, duration, durationRound, toDate,
// mustToDate, unixEpoch. The clock is Env::now_unix_nanos; "Local" is Env::local_zone.
// Parameters Go declares as time.Time (dateModify's and unixEpoch's date) are Param::Time: the
// executor checks them as text/template does before the call.
#include <memory>
#include <string>

#include "src/render/go/time.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;
using go::gotime::Location;
using go::gotime::Time;

/// A Go integer-kind named type printed by its String method (time.Month, time.Weekday).
class NamedIntObject : public Object {
 public:
  NamedIntObject(std::string type, int64_t value, std::string text)
      : m_type(std::move(type)), m_value(value), m_text(std::move(text)) {}
  [[nodiscard]] std::string type_name() const override { return m_type; }
  [[nodiscard]] GoKind kind() const override { return GoKind::Int; }
  [[nodiscard]] bool has_method(std::string_view name) const override { return name == "String"; }
  [[nodiscard]] Value call(std::string_view, std::span<const Value>) const override {
    return Value::string(m_text);
  }
  bool field(std::string_view, Value&) const override { return false; }
  [[nodiscard]] std::string format_v() const override { return m_text; }
  [[nodiscard]] Value underlying() const override { return Value::integer(m_value); }

 private:
  std::string m_type;
  int64_t m_value;
  std::string m_text;
};

/// time.Time as templates see it.
class TimeObject : public Object {
 public:
  TimeObject(Time t, std::string local_zone) : m_t(std::move(t)), m_local(std::move(local_zone)) {}
  [[nodiscard]] std::string type_name() const override { return "time.Time"; }
  [[nodiscard]] bool has_method(std::string_view name) const override;
  [[nodiscard]] Value call(std::string_view name, std::span<const Value> args) const override;
  bool field(std::string_view, Value&) const override { return false; }
  [[nodiscard]] std::string format_v() const override { return m_t.str(); }
  [[nodiscard]] const Time& time() const { return m_t; }

 private:
  Time m_t;
  std::string m_local;
};

Value time_value(Time t, const std::string& local_zone) {
  return Value::object(std::make_shared<TimeObject>(std::move(t), local_zone));
}

bool TimeObject::has_method(std::string_view name) const {
  static constexpr std::string_view k_methods[] = {
      "Format", "Unix",       "UnixMilli", "UnixNano", "Year", "Month", "Day",    "Hour",  "Minute",
      "Second", "Nanosecond", "YearDay",   "Weekday",  "UTC",  "Local", "String", "IsZero"};
  for (std::string_view m : k_methods) {
    if (m == name) return true;
  }
  return false;
}

Value TimeObject::call(std::string_view name, std::span<const Value> args) const {
  Time::Civil c = m_t.civil();
  static constexpr std::string_view k_months[] = {"January",   "February", "March",    "April",
                                                  "May",       "June",     "July",     "August",
                                                  "September", "October",  "November", "December"};
  static constexpr std::string_view k_days[] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                                "Thursday", "Friday", "Saturday"};
  if (name == "Format") {
    if (args.empty() || !args[0].is_string()) throw FuncError{"Format needs a layout string"};
    return Value::string(m_t.format(args[0].as_string()));
  }
  if (name == "Unix") return Value::int64(m_t.unix_sec);
  if (name == "UnixMilli") return Value::int64(m_t.unix_sec * 1000 + m_t.nsec / 1000000);
  if (name == "UnixNano") return Value::int64(m_t.unix_sec * 1000000000 + m_t.nsec);
  if (name == "Year") return Value::integer(c.year);
  if (name == "Month") {
    return Value::object(std::make_shared<NamedIntObject>("time.Month", c.month,
                                                          std::string(k_months[c.month - 1])));
  }
  if (name == "Weekday") {
    return Value::object(std::make_shared<NamedIntObject>("time.Weekday", c.weekday,
                                                          std::string(k_days[c.weekday])));
  }
  if (name == "Day") return Value::integer(c.day);
  if (name == "Hour") return Value::integer(c.hour);
  if (name == "Minute") return Value::integer(c.minute);
  if (name == "Second") return Value::integer(c.second);
  if (name == "Nanosecond") return Value::integer(m_t.nsec);
  if (name == "YearDay") return Value::integer(c.yday);
  if (name == "IsZero") return Value::boolean(m_t.is_zero());
  if (name == "String") return Value::string(m_t.str());
  Time t = m_t;
  t.loc = name == "UTC" ? Location::utc() : Location::load("Local", m_local);
  return time_value(t, m_local);
}

/// The time of a Param::Time argument (the executor has checked its type; a direct caller that
/// passes another value gets Go's assignment error).
const Time& time_arg(const Value& v) {
  const auto* t = v.is_object() ? dynamic_cast<const TimeObject*>(&v.as_object()) : nullptr;
  if (t == nullptr) {
    throw FuncError{"wrong type for value; expected time.Time; got " +
                    (v.is_nil() ? std::string("<nil>") : v.type_name())};
  }
  return t->time();
}

struct Clock {
  std::shared_ptr<const Env> env;

  [[nodiscard]] std::shared_ptr<const Location> local() const {
    return Location::load("Local", env->local_zone);
  }
  [[nodiscard]] Time now() const {
    int64_t ns = env->now_unix_nanos();
    Time t;
    t.unix_sec = ns / 1000000000 - (ns % 1000000000 < 0);
    t.nsec = static_cast<int32_t>(ns - t.unix_sec * 1000000000);
    t.loc = local();
    return t;
  }
  /// dateInZone's and ago's `date interface{}`: a time, or Unix seconds of the listed int
  /// types, else the current time.
  [[nodiscard]] Time from(const Value& v, bool int32_ok) const {
    if (v.is_object()) {
      if (const auto* t = dynamic_cast<const TimeObject*>(&v.as_object())) return t->time();
    }
    GoType ty = v.type();
    if (ty == GoType::Int64 || ty == GoType::Int || (int32_ok && ty == GoType::Int32)) {
      Time t;
      t.unix_sec = v.as_int();
      t.loc = local();
      return t;
    }
    return now();
  }
  [[nodiscard]] std::string in_zone(const std::string& layout, const Value& date,
                                    const std::string& zone) const {
    Time t = from(date, true);
    t.loc = Location::load(zone, env->local_zone);
    if (!t.loc) t.loc = Location::utc();
    return t.format(layout);
  }
};

/// Duration.Round(time.Second).
int64_t round_seconds(int64_t d) {
  constexpr int64_t m = 1000000000;
  auto less_than_half = [](int64_t x, int64_t y) {
    return static_cast<uint64_t>(x) + static_cast<uint64_t>(x) < static_cast<uint64_t>(y);
  };
  int64_t r = d % m;
  if (d < 0) {
    r = -r;
    if (less_than_half(r, m)) return d + r;
    int64_t d1 = d - m + r;
    return d1 < d ? d1 : INT64_MIN;
  }
  if (less_than_half(r, m)) return d - r;
  int64_t d1 = d + m - r;
  return d1 > d ? d1 : INT64_MAX;
}

/// Go's now.Sub(t) (time.Since): nanoseconds, saturated to the Duration range.
int64_t since_nanos(const Time& now, const Time& t) {
  int64_t secs = 0;
  int64_t nanos = 0;
  int64_t out = 0;
  if (__builtin_sub_overflow(now.unix_sec, t.unix_sec, &secs) ||
      __builtin_mul_overflow(secs, int64_t{1000000000}, &nanos) ||
      __builtin_add_overflow(nanos, static_cast<int64_t>(now.nsec - t.nsec), &out))
    return now.unix_sec < t.unix_sec ? INT64_MIN : INT64_MAX;
  return out;
}

std::string duration_round(int64_t d) {
  uint64_t u = static_cast<uint64_t>(d);
  if (d < 0) u = 0 - u;
  constexpr uint64_t hour = 3600000000000ULL;
  const std::pair<uint64_t, const char*> units[] = {{hour * 24 * 365, "y"}, {hour * 24 * 30, "mo"},
                                                    {hour * 24, "d"},       {hour, "h"},
                                                    {60000000000ULL, "m"},  {1000000000ULL, "s"}};
  for (const auto& [size, suffix] : units) {
    if (u > size) return std::to_string(u / size) + suffix;
  }
  return "0s";
}

Value to_date(const Clock& clock, const FuncArgs& a, bool must) {
  std::string error;
  std::optional<Time> t =
      go::gotime::parse(a[0].as_string(), a[1].as_string(), clock.local(), error);
  if (!t) {
    if (must) throw FuncError{error};
    return time_value(Time{}, clock.env->local_zone);
  }
  return time_value(*t, clock.env->local_zone);
}

Value date_modify(const Clock& clock, const FuncArgs& a, bool must) {
  const Time& t = time_arg(a[1]);
  std::string error;
  std::optional<int64_t> d = go::gotime::parse_duration(a[0].as_string(), error);
  if (!d) {
    if (must) throw FuncError{error};
    return time_value(t, clock.env->local_zone);
  }
  return time_value(t.add(*d), clock.env->local_zone);
}

}  // namespace

void register_sprig_dates(FuncMap& map, const std::shared_ptr<const Env>& env) {
  Clock clock{env};
  auto str = [](std::string s) { return Value::string(std::move(s)); };
  auto s = [](const FuncArgs& a, size_t i) -> const std::string& { return a[i].as_string(); };
  map.add("now", fn({}, [=](const FuncArgs&) { return time_value(clock.now(), env->local_zone); }));
  map.add("date", fn({P::String, P::Any}, [=](const FuncArgs& a) {
            return str(clock.in_zone(s(a, 0), a[1], "Local"));
          }));
  auto in_zone = fn({P::String, P::Any, P::String},
                    [=](const FuncArgs& a) { return str(clock.in_zone(s(a, 0), a[1], s(a, 2))); });
  map.add("dateInZone", in_zone);
  map.add("date_in_zone", in_zone);
  map.add("htmlDate", fn({P::Any}, [=](const FuncArgs& a) {
            return str(clock.in_zone("2006-01-02", a[0], "Local"));
          }));
  map.add("htmlDateInZone", fn({P::Any, P::String}, [=](const FuncArgs& a) {
            return str(clock.in_zone("2006-01-02", a[0], s(a, 1)));
          }));
  for (const char* name : {"dateModify", "date_modify"}) {
    map.add(name, fn({P::String, P::Time},
                     [=](const FuncArgs& a) { return date_modify(clock, a, false); }));
  }
  for (const char* name : {"mustDateModify", "must_date_modify"}) {
    map.add(name,
            fn(
                {P::String, P::Time},
                [=](const FuncArgs& a) { return date_modify(clock, a, true); }, Ret::ValueError));
  }
  map.add("ago", fn({P::Any}, [=](const FuncArgs& a) {
            Time t = clock.from(a[0], false);
            return str(go::gotime::duration_string(round_seconds(since_nanos(clock.now(), t))));
          }));
  map.add("duration", fn({P::Any}, [=](const FuncArgs& a) {
            int64_t n = 0;
            if (a[0].is_string()) n = parse_go_int(a[0].as_string(), 10).value_or(0);
            if (a[0].type() == GoType::Int64) n = a[0].as_int();
            auto ns = static_cast<int64_t>(static_cast<uint64_t>(n) * 1000000000ULL);
            return str(go::gotime::duration_string(ns));
          }));
  map.add("durationRound", fn({P::Any}, [=](const FuncArgs& a) {
            int64_t d = 0;
            const Value& v = a[0];
            std::string error;
            if (v.is_string()) d = go::gotime::parse_duration(v.as_string(), error).value_or(0);
            if (v.type() == GoType::Int64) d = v.as_int();
            if (v.is_object() && dynamic_cast<const TimeObject*>(&v.as_object()) != nullptr) {
              d = since_nanos(clock.now(), time_arg(v));
            }
            return str(duration_round(d));
          }));
  map.add("toDate",
          fn({P::String, P::String}, [=](const FuncArgs& a) { return to_date(clock, a, false); }));
  map.add("mustToDate",
          fn(
              {P::String, P::String}, [=](const FuncArgs& a) { return to_date(clock, a, true); },
              Ret::ValueError));
  map.add("unixEpoch", fn({P::Time}, [=](const FuncArgs& a) {
            return str(std::to_string(time_arg(a[0]).unix_sec));
          }));
}

}  // namespace ejob::render::sprig
