// Expected values: Go 1.19 + Sprig 3.2.3 (text/template with sprig.TxtFuncMap()).
#include <catch2/catch.hpp>

#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: integer math goes through cast.ToInt64") {
  CHECK(show("add", {I(1), F(2.7), S("3")}) == "6");
  CHECK(call("add", {I(1)}).type_name() == "int64");
  CHECK(show("add1", {F(1e6)}) == "1000001");
  CHECK(show("sub", {I(5), I(2)}) == "3");
  CHECK(show("mul", {I(2), F(1.5), I(3)}) == "6");
  CHECK(show("div", {I(7), I(2)}) == "3");
  CHECK(show("mod", {I(7), I(3)}) == "1");
  CHECK(show("max", {I(1), I(5), I(3)}) == "5");
  CHECK(show("min", {I(4), I(2)}) == "2");
  CHECK(error_of("div", {I(1), I(0)}) == "runtime error: integer divide by zero");
}

TEST_CASE("sprig: float math uses shopspring/decimal") {
  CHECK(show("maxf", {I(1), F(2.5)}) == "2.5");
  CHECK(show("minf", {I(1), F(2.5)}) == "1");
  CHECK(show("addf", {F(1.1), F(2.2)}) == "3.3");
  CHECK(show("subf", {I(1), F(0.9)}) == "0.1");
  CHECK(show("mulf", {F(1.1), I(3)}) == "3.3");
  CHECK(show("divf", {I(10), I(3)}) == "3.3333333333333335");
  CHECK(show("divf", {I(2), I(3)}) == "0.6666666666666667");
  CHECK(show("divf", {I(-2), I(3)}) == "-0.6666666666666667");
  CHECK(show("add1f", {F(1.5)}) == "2.5");
  CHECK(error_of("divf", {I(1), I(0)}) == "decimal division by 0");
  CHECK(show("ceil", {F(1.2)}) == "2");
  CHECK(show("floor", {F(1.8)}) == "1");
  CHECK(show("round", {F(2.567), I(2)}) == "2.57");
  CHECK(show("round", {F(2.5), I(0), F(0.6)}) == "2");
}

TEST_CASE("sprig: conversions follow spf13/cast and strconv") {
  CHECK(show("int", {S("12.00")}) == "12");
  CHECK(show("int64", {S("0x1F")}) == "31");
  CHECK(show("int64", {S("1_000")}) == "1000");
  CHECK(show("int64", {S("010")}) == "8");
  CHECK(show("int64", {S("1.50")}) == "0");
  CHECK(show("int64", {S("9223372036854775808")}) == "0");
  CHECK(show("int64", {F(1e19)}) == "-9223372036854775808");
  CHECK(show("int", {F(-3.9)}) == "-3");
  CHECK(show("int", {B(true)}) == "1");
  CHECK(show("int", {N()}) == "0");
  CHECK(show("float64", {S("1e3")}) == "1000");
  CHECK(show("float64", {S("0x10")}) == "0");
  CHECK(show("float64", {S("0x1p-2")}) == "0.25");
  CHECK(show("float64", {S("-Infinity")}) == "-Inf");
  CHECK(show("float64", {S("1e400")}) == "0");
  CHECK(show("atoi", {S("42")}) == "42");
  CHECK(show("atoi", {S("x")}) == "0");
  CHECK(show("atoi", {S("9223372036854775808")}) == "9223372036854775807");
  CHECK(show("toDecimal", {S("0777")}) == "511");
  CHECK(show("toDecimal", {I(17)}) == "15");
}
