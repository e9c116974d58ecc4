#include "src/agent/preemption/cloud_time.hpp"

#include <catch2/catch.hpp>

using namespace ejob::agent;

TEST_CASE("cloud time: RFC 3339 with Z, fractions and offsets") {
  auto at = parse_rfc3339("2017-09-18T08:22:00Z");
  REQUIRE(at);
  CHECK(epoch_seconds(*at) == 1505722920);
  CHECK(format_rfc3339(*at) == "2017-09-18T08:22:00Z");
  CHECK(epoch_seconds(*parse_rfc3339("2017-09-18T08:22:00.250Z")) == 1505722920);
  CHECK(epoch_seconds(*parse_rfc3339("2017-09-18t10:22:00+02:00")) == 1505722920);
  CHECK(epoch_seconds(*parse_rfc3339("2017-09-18T07:52:00-00:30")) == 1505722920);
}

TEST_CASE("cloud time: what is not RFC 3339 is refused") {
  for (const char* bad : {"", "2017-09-18", "2017-09-18T08:22:00", "2017-09-18 08:22:00Z",
                          "2017-13-18T08:22:00Z", "2017-09-18T08:22:00.Z", "2017-09-18T08:22Z",
                          "2017-09-18T08:22:00+0200", "x017-09-18T08:22:00Z"})
    CHECK_FALSE(parse_rfc3339(bad));
}

TEST_CASE("cloud time: Azure's NotBefore is an HTTP date") {
  auto at = parse_http_date("Mon, 19 Sep 2016 18:29:47 GMT");
  REQUIRE(at);
  CHECK(format_rfc3339(*at) == "2016-09-19T18:29:47Z");
  for (const char* bad :
       {"", "Mon, 19 Sep 2016 18:29:47 UTC", "Mon, 19 Sept 2016 18:29:47 GMT",
        "Monday, 19 Sep 2016 18:29:47 GMT", "Mon, 19 Sep 2016 18:29 GMT", "2016-09-19T18:29:47Z"})
    CHECK_FALSE(parse_http_date(bad));
}
