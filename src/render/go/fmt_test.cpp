// Expected outputs in testdata/go_fmt_cases.inc were produced by Go 1.19's fmt and strconv
// (testdata/gen_go_fmt.py); the hand-written cases below were checked against Go the same way.
#include "src/render/go/fmt.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "src/render/go/strconv.hpp"

namespace ejob::render::go {
namespace {

struct SprintfCase {
  std::string format;
  std::vector<Value> args;
  std::string want;
};
struct SprintCase {
  std::vector<Value> args;
  std::string sprint;
  std::string sprintln;
};
struct FloatCase {
  double f;
  char fmt;
  int prec;
  int bits;
  std::string want;
};
struct QuoteCase {
  std::string in;
  std::string want;
};

#include "src/render/go/testdata/go_fmt_cases.inc"

TEST_CASE("go_fmt: sprintf matches Go for every verb, flag and error form") {
  for (const auto& c : k_sprintf_cases) {
    INFO("format: " << c.format);
    CHECK(sprintf(c.format, c.args) == c.want);
  }
}

TEST_CASE("go_fmt: sprint and sprintln space operands like Go") {
  for (const auto& c : k_sprint_cases) {
    CHECK(sprint(c.args) == c.sprint);
    CHECK(sprintln(c.args) == c.sprintln);
  }
}

TEST_CASE("go_fmt: format_float matches strconv.FormatFloat") {
  for (const auto& c : k_float_cases) {
    INFO(c.f << " " << c.fmt << " " << c.prec << " " << c.bits);
    CHECK(format_float(c.f, c.fmt, c.prec, c.bits) == c.want);
  }
}

TEST_CASE("go_fmt: go_quote matches strconv.Quote") {
  for (const auto& c : k_quote_cases) CHECK(go_quote(c.in) == c.want);
}

TEST_CASE("go_fmt: format_v prints nil inside composites as <nil>") {
  Value v = Value::list(List{Value::integer(3), Value(), Value::float64(1e6)});
  CHECK(format_v(v) == "[3 <nil> 1e+06]");
  CHECK(format_v(Value()) == "<nil>");
}

TEST_CASE("go_fmt: decode_rune rejects surrogates and overlong forms") {
  CHECK(go::decode_rune("\xed\xa0\x80").width == 1);
  CHECK(go::decode_rune("\xc0\x80").r == go::k_rune_error);
  CHECK(go::decode_rune("\xf0\x9f\x98\x80").r == 0x1F600);
  CHECK(go::rune_count("h\xc3\xa9\xff") == 3);
}

}  // namespace
}  // namespace ejob::render::go
