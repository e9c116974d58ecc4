// Expected values: Go 1.19 + Sprig 3.2.3, TZ=UTC (text/template with sprig.TxtFuncMap()).
#include <catch2/catch.hpp>

#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: date formats Unix seconds with Go layouts in a zone") {
  Value t = I64(1257894000);
  CHECK(show("date", {S("2006-01-02 15:04:05 MST Mon Jan _2 3PM .000 Z07:00 -0700 -07"), t}) ==
        "2009-11-10 23:00:00 UTC Tue Nov 10 11PM .000 Z +0000 +00");
  CHECK(show("dateInZone", {S("Monday, 02-Jan-06 15:04:05.999 MST"), I(1257894000),
                            S("America/New_York")}) == "Tuesday, 10-Nov-09 18:00:00 EST");
  CHECK(show("dateInZone", {S("2006-01-02T15:04:05Z07:00"), t, S("Asia/Kolkata")}) ==
        "2009-11-11T04:30:00+05:30");
  CHECK(show("dateInZone", {S("2006"), t, S("Nope/Zone")}) == "2009");
  CHECK(show("htmlDateInZone", {t, S("Europe/Berlin")}) == "2009-11-11");
  CHECK(show("htmlDate", {t}) == "2009-11-10");
  // Anything that is not a time or an int type means "now" (the test clock).
  CHECK(show("date", {S("2006-01-02 15:04"), S("x")}) == "2009-11-10 23:00");
  CHECK(show("now", {}) == "2009-11-10 23:00:00 +0000 UTC");
}

TEST_CASE("sprig: toDate parses with Go layouts and reports Go's errors") {
  CHECK(show("toDate", {S("2006-01-02"), S("2017-12-31")}) == "2017-12-31 00:00:00 +0000 UTC");
  CHECK(show("toDate", {S("2006-01-02T15:04:05Z07:00"), S("2017-12-31T10:00:00+02:00")}) ==
        "2017-12-31 10:00:00 +0200 +0200");
  CHECK(show("toDate", {S("2006"), S("x")}) == "0001-01-01 00:00:00 +0000 UTC");
  CHECK(show("toDate", {S("Jan 2 06 3:04PM MST"), S("Feb 3 13 4:05PM PST")}) ==
        "2013-02-03 16:05:00 +0000 PST");
  CHECK(show("toDate", {S("2006-01-02 15:04:05"), S("2017-12-31 10:00:00.123456")}) ==
        "2017-12-31 10:00:00.123456 +0000 UTC");
  Value d = call("toDate", {S("2006-01-02"), S("2017-12-31")});
  CHECK(d.type_name() == "time.Time");
  CHECK(format_v(d.as_object().call("Month", {})) == "December");
  CHECK(format_v(d.as_object().call("Weekday", {})) == "Sunday");
  CHECK(show("unixEpoch", {d}) == "1514678400");
  CHECK(error_of("mustToDate", {S("2006-01-02"), S("2017-13-01")}) ==
        "parsing time \"2017-13-01\": month out of range");
  CHECK(error_of("mustToDate", {S("2006-01-02"), S("2017-02-30")}) ==
        "parsing time \"2017-02-30\": day out of range");
  CHECK(error_of("mustToDate", {S("2006-01-02"), S("2017-12-31x")}) ==
        "parsing time \"2017-12-31x\": extra text: \"x\"");
  CHECK(error_of("mustToDate", {S("Jan 2006"), S("Foo 2017")}) ==
        "parsing time \"Foo 2017\" as \"Jan 2006\": cannot parse \"Foo 2017\" as \"Jan\"");
  CHECK(error_of("mustToDate", {S("2006-01-02"), S("4:05PM")}) ==
        "parsing time \"4:05PM\" as \"2006-01-02\": cannot parse \"PM\" as \"2006\"");
  CHECK(error_of("mustToDate", {S("3:04PM"), S("10:20:30,123 +0130")}) ==
        "parsing time \"10:20:30,123 +0130\" as \"3:04PM\": cannot parse \"0,123 +0130\" as "
        "\"PM\"");
  CHECK(error_of("mustToDate", {S("2006-01-02 15:04:05.000"), S("2017-12-31 10:00:00.12")}) ==
        "parsing time \"2017-12-31 10:00:00.12\" as \"2006-01-02 15:04:05.000\": cannot parse "
        "\".12\" as \".000\"");
}

TEST_CASE("sprig: dateModify, duration and durationRound") {
  Value d = call("toDate", {S("2006-01-02"), S("2017-12-31")});
  CHECK(show("dateModify", {S("1h30m"), d}) == "2017-12-31 01:30:00 +0000 UTC");
  CHECK(show("dateModify", {S("bad"), d}) == "2017-12-31 00:00:00 +0000 UTC");
  CHECK(error_of("mustDateModify", {S("1x"), d}) == "time: unknown unit \"x\" in duration \"1x\"");
  CHECK(error_of("mustDateModify", {S("x"), d}) == "time: invalid duration \"x\"");
  CHECK(show("duration", {S("95")}) == "1m35s");
  CHECK(show("duration", {I64(1257894000)}) == "349415h0m0s");
  CHECK(show("duration", {I(5)}) == "0s");
  CHECK(show("durationRound", {S("2h10m5s")}) == "2h");
  CHECK(show("durationRound", {S("400h")}) == "16d");
  CHECK(show("durationRound", {I64(1257894000)}) == "1s");
}
