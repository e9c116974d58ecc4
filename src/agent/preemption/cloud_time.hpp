#pragma once
/// The time formats the clouds' metadata services write, and the one the notice file uses:
/// RFC 3339 (AWS `2017-09-18T08:22:00Z`; also the notice file's) and the HTTP date of RFC 9110
/// (Azure's NotBefore, `Mon, 19 Sep 2016 18:29:47 GMT`).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/agent/preemption/preemption_notice.hpp"

namespace ejob::agent {

/// `YYYY-MM-DDTHH:MM:SS[.frac](Z|±HH:MM)` (`t` and `z` too, as RFC 3339 allows); nullopt for
/// anything else.
std::optional<SysTime> parse_rfc3339(std::string_view text);

/// `Day, DD Mon YYYY HH:MM:SS GMT`; nullopt for anything else.
std::optional<SysTime> parse_http_date(std::string_view text);

/// `YYYY-MM-DDTHH:MM:SSZ` in UTC, whole seconds.
std::string format_rfc3339(SysTime time);

/// Seconds since the epoch (rounded down).
std::int64_t epoch_seconds(SysTime time);

}  // namespace ejob::agent
