#include "src/job/log_resume.hpp"

#include <catch2/catch.hpp>

namespace ejob::job {
namespace {

using Lines = std::vector<std::string>;

TEST_CASE("log resume: RFC3339Nano times to the nanosecond, trailing zeros trimmed or not") {
  CHECK(parse_log_stamp("2026-01-01T00:00:01Z") == LogStamp{1767225601, 0});
  CHECK(parse_log_stamp("2026-01-01T00:00:01.5Z") == LogStamp{1767225601, 500000000});
  CHECK(parse_log_stamp("2026-01-01T00:00:01.000000007Z") == LogStamp{1767225601, 7});
  CHECK(parse_log_stamp("2026-01-01T00:00:01.1234567891Z") == LogStamp{1767225601, 123456789});
  CHECK_FALSE(parse_log_stamp("hello"));
}

TEST_CASE("log resume: timestamps are stripped unless kept") {
  LogResume plain(KeepTimestamps::No);
  CHECK(plain.take({"2026-01-01T00:00:01.5Z a b", "2026-01-01T00:00:02Z "}) == Lines{"a b", ""});
  CHECK(plain.since_time() == "2026-01-01T00:00:02Z");
  LogResume kept(KeepTimestamps::Yes);
  CHECK(kept.take({"2026-01-01T00:00:01.5Z a"}) == Lines{"2026-01-01T00:00:01.5Z a"});
  CHECK(kept.take({"no time here"}) == Lines{"no time here"});
}

TEST_CASE("log resume: the overlap of an inclusive, whole-second sinceTime is dropped") {
  LogResume r(KeepTimestamps::No);
  // Three lines at one nanosecond, the stream cut after the second of them.
  CHECK(r.take({"2026-01-01T00:00:01.1Z a", "2026-01-01T00:00:01.2Z b",
                "2026-01-01T00:00:01.2Z c"}) == Lines{"a", "b", "c"});
  CHECK(r.since_time() == "2026-01-01T00:00:01.2Z");
  r.resume();
  // The kubelet sends the whole second again: a, b and c were read, d is new.
  CHECK(r.take({"2026-01-01T00:00:01.1Z a", "2026-01-01T00:00:01.2Z b"}).empty());
  CHECK(r.take({"2026-01-01T00:00:01.2Z c", "2026-01-01T00:00:01.2Z d",
                "2026-01-01T00:00:03Z e"}) == Lines{"d", "e"});
  r.resume();  // cut again right after e: nothing but e at its time
  CHECK(r.take({"2026-01-01T00:00:03Z e", "2026-01-01T00:00:03Z f"}) == Lines{"f"});
}

TEST_CASE("log resume: a new container's log starts from nothing") {
  LogResume r(KeepTimestamps::No);
  CHECK(r.take({"2026-01-01T00:00:05Z a"}) == Lines{"a"});
  r.restart();
  CHECK(r.since_time().empty());
  CHECK(r.take({"2026-01-01T00:00:01Z b"}) == Lines{"b"});
}

}  // namespace
}  // namespace ejob::job
