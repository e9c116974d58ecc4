#include "ejob/util/error.hpp"

#include <catch2/catch.hpp>

using ejob::Error;
using ejob::ErrorCode;

TEST_CASE("error: message with location, source line and caret") {
  Error e(ErrorCode::Input, "unexpected \"}\" in operand",
          {"chart/templates/a.yaml", 3, 9, "name: {{ .x }"});
  CHECK(ejob::format_error(e) ==
        "ejob: error: chart/templates/a.yaml:3:9: unexpected \"}\" in operand\n"
        "name: {{ .x }\n"
        "        ^\n");
}

TEST_CASE("error: message without location") {
  Error e(ErrorCode::Usage, "--workers: 4:1 has MIN > MAX");
  CHECK(ejob::format_error(e) == "ejob: error: --workers: 4:1 has MIN > MAX\n");
}

TEST_CASE("error: each code has a distinct documented exit status") {
  CHECK(ejob::exit_code(ErrorCode::Usage) == 2);
  CHECK(ejob::exit_code(ErrorCode::Input) == 3);
  CHECK(ejob::exit_code(ErrorCode::Auth) == 6);
  CHECK(ejob::exit_code(ErrorCode::Conflict) == 7);
  CHECK(ejob::exit_code(ErrorCode::Api) != ejob::exit_code(ErrorCode::Auth));
}
