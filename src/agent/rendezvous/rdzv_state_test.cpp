#include "src/agent/rendezvous/rdzv_state.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

using namespace ejob::agent;

namespace {
std::string parse_error(const std::string& text) {
  try {
    parse_rdzv_state(text);
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Input);
    return e.message();
  }
  return "(no error)";
}
}  // namespace

TEST_CASE("rdzv state: written byte for byte as Python's json.dumps") {
  CHECK(to_json({"setup"}) == R"({"status": "setup"})");
  RdzvState joinable{"joinable", "1", std::vector<int>{}, {}, {}};
  CHECK(to_json(joinable) == R"({"status": "joinable", "version": "1", "participants": []})");
  RdzvState final_state{
      "final", "12", std::vector<int>{0, 1},
      std::vector<std::string>{"/p/run_a/rdzv/v_12/rank_0", "/p/run_a/rdzv/v_12/rank_1"}, 0};
  CHECK(to_json(final_state) ==
        R"({"status": "final", "version": "12", "participants": [0, 1], "keep_alives": )"
        R"(["/p/run_a/rdzv/v_12/rank_0", "/p/run_a/rdzv/v_12/rank_1"], "num_workers_waiting": 0})");
}

TEST_CASE("rdzv state: strings escaped as ensure_ascii does") {
  CHECK(py_json_string("a\"b\\c\n\x01") == R"("a\"b\\c\n\u0001")");
  CHECK(py_json_string("r\xc3\xb4le") == R"("r\u00f4le")");
  CHECK(py_json_string("\xf0\x9f\x98\x80") == R"("\ud83d\ude00")");
}

TEST_CASE("rdzv state: parse round-trips what torch writes") {
  std::string text =
      R"({"status": "frozen", "version": "3", "participants": [0, 1, 2], "keep_alives": ["/k"]})";
  RdzvState s = parse_rdzv_state(text);
  CHECK(s.status == "frozen");
  CHECK(s.version == "3");
  CHECK(s.participants == std::vector<int>{0, 1, 2});
  CHECK(s.keep_alives == std::vector<std::string>{"/k"});
  CHECK_FALSE(s.num_workers_waiting.has_value());
  CHECK(to_json(s) == text);
  CHECK(parse_rdzv_state(R"({"status":"setup"})").status == "setup");
}

TEST_CASE("rdzv state: malformed values are named") {
  CHECK(parse_error("{not json") == "malformed rendezvous state (not JSON): {not json");
  CHECK(parse_error("[1]") == "malformed rendezvous state (not a JSON object): [1]");
  CHECK(parse_error(R"({"version": "1"})") ==
        R"(malformed rendezvous state (status must be a string): {"version": "1"})");
  CHECK(parse_error(R"({"status": "open"})") ==
        R"(malformed rendezvous state (unknown status 'open'): {"status": "open"})");
  CHECK(
      parse_error(R"({"status": "joinable", "version": 1, "participants": []})") ==
      R"(malformed rendezvous state (version must be a string): {"status": "joinable", "version": 1, "participants": []})");
  CHECK(
      parse_error(R"({"status": "joinable", "version": "1", "participants": ["a"]})") ==
      R"(malformed rendezvous state (participants must be a list of integers): {"status": "joinable", "version": "1", "participants": ["a"]})");
  CHECK(
      parse_error(
          R"({"status": "final", "version": "1", "participants": [0], "keep_alives": []})") ==
      R"(malformed rendezvous state (num_workers_waiting is missing): {"status": "final", "version": "1", "participants": [0], "keep_alives": []})");
}
