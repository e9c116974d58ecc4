#include "src/util/error.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>

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

namespace {

/// The statuses of docs/exit-codes.md's first table (`| 3 | bad input: ... |`).
std::set<int> documented_statuses() {
  std::ifstream docs(EJOB_DOCS_DIR "/exit-codes.md");
  REQUIRE(docs.good());
  std::set<int> out;
  std::string line;
  const std::regex row(R"(^\| (\d+) \| .*\|$)");
  bool in_table = false;
  while (std::getline(docs, line)) {
    std::smatch m;
    if (std::regex_match(line, m, row)) {
      out.insert(std::stoi(m[1]));
      in_table = true;
    } else if (in_table && line.rfind("|", 0) != 0) {
      break;  // the first table ends
    }
  }
  return out;
}

}  // namespace

TEST_CASE("error: the exit statuses are exactly those docs/exit-codes.md lists") {
  const ErrorCode codes[] = {ErrorCode::Usage,     ErrorCode::Input,     ErrorCode::Io,
                             ErrorCode::Transport, ErrorCode::Api,       ErrorCode::Auth,
                             ErrorCode::Conflict,  ErrorCode::NotFound,  ErrorCode::Timeout,
                             ErrorCode::Closed,    ErrorCode::JobFailed, ErrorCode::Preempted,
                             ErrorCode::Internal};
  std::set<int> produced = {0};  // success is not an error
  for (ErrorCode code : codes) produced.insert(ejob::exit_code(code));
  CHECK(produced == documented_statuses());
}
