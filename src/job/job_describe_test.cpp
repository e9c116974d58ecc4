#include "src/job/job_describe.hpp"

#include <catch2/catch.hpp>

namespace ejob::job {

namespace {

using kubeapi::Json;

TEST_CASE("describe: event ages as kubectl shows repeated events") {
  const auto now = *kubeapi::parse_rfc3339("2026-01-01T01:00:00Z");
  CHECK(event_age({{"lastTimestamp", "2026-01-01T00:55:00Z"}}, now) == "5m");
  CHECK(event_age({{"lastTimestamp", "2026-01-01T00:55:00Z"},
                   {"firstTimestamp", "2026-01-01T00:48:00Z"},
                   {"count", 3}},
                  now) == "5m (x3 over 12m)");
  CHECK(event_age({{"eventTime", "2026-01-01T00:59:30.000000Z"}, {"series", {{"count", 4}}}},
                  now) == "30s (x4 over 30s)");
  CHECK(event_age(Json::object(), now) == "<none>");
}

}  // namespace
}  // namespace ejob::job
