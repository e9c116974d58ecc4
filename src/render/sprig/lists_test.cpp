// Expected values: Go 1.19 + Sprig 3.2.3 (text/template with sprig.TxtFuncMap()).
#include <catch2/catch.hpp>

#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: list functions take any slice and return []interface {}") {
  CHECK(show("list", {I(1), S("a"), N()}) == "[1 a <nil>]");
  CHECK(show("append", {L({I(1)}), I(2)}) == "[1 2]");
  CHECK(show("prepend", {L({I(1)}), I(0)}) == "[0 1]");
  CHECK(show("first", {L({I(1), I(2)})}) == "1");
  CHECK(show("last", {L({I(1), I(2)})}) == "2");
  CHECK(show("rest", {L({I(1), I(2), I(3)})}) == "[2 3]");
  CHECK(show("initial", {L({I(1), I(2), I(3)})}) == "[1 2]");
  CHECK(show("reverse", {L({I(1), I(2), I(3)})}) == "[3 2 1]");
  CHECK(show("uniq", {L({I(1), I(1), S("a"), S("a"), F(1.0)})}) == "[1 a 1]");
  CHECK(show("without", {L({I(1), I(2), I(3), I(2)}), I(2)}) == "[1 3]");
  CHECK(show("has", {I(2), L({I(1), I(2)})}) == "true");
  CHECK(show("has", {I(2), N()}) == "false");
  CHECK(show("compact", {L({I(0), I(1), S(""), S("a"), N(), B(false)})}) == "[1 a]");
  CHECK(show("slice", {L({I(1), I(2), I(3), I(4)}), I(1), I(3)}) == "[2 3]");
  CHECK(call("slice", {L({})}).is_nil());
  CHECK(call("slice", {SL({"b", "a"}), I(1)}).type_name() == "[]string");
  CHECK(show("concat", {L({I(1)}), L({I(2), I(3)})}) == "[1 2 3]");
  CHECK(show("chunk", {I(2), L({I(1), I(2), I(3)})}) == "[[1 2] [3]]");
  CHECK(call("chunk", {I(2), L({I(1), I(2), I(3)})}).type_name() == "[][]interface {}");
  CHECK(call("chunk", {I(2), L({I(1), I(2), I(3)})}).as_list()[1].type_name() == "[]interface {}");
  CHECK(call("first", {L({})}).is_nil());
  CHECK(show("append", {SL({"a"}), I(1)}) == "[a 1]");
  CHECK(call("append", {SL({"a"}), I(1)}).type_name() == "[]interface {}");
}

TEST_CASE("sprig: list functions fail on non-lists with Sprig's messages") {
  CHECK(error_of("append", {S("x"), I(1)}) == "Cannot push on type string");
  CHECK(error_of("mustPrepend", {N(), I(1)}) ==
        "runtime error: invalid memory address or nil pointer dereference");
  CHECK(error_of("concat", {L({I(1)}), S("x")}) == "Cannot concat type string as list");
  CHECK(error_of("slice", {L({I(1), I(2)}), I(1), I(5)}) ==
        "reflect.Value.Slice: slice index out of bounds");
  CHECK(error_of("slice", {S("abc"), I(1)}) == "list should be type of slice or array but string");
  CHECK(error_of("chunk", {I(0), L({I(1)})}) == "runtime error: makeslice: len out of range");
  CHECK(error_of("mustHas", {I(1), S("abc")}) == "Cannot find has on type string");
  CHECK(error_of("first", {F(1.5)}) == "Cannot find first on type float64");
  CHECK(error_of("mustLast", {M({})}) == "Cannot find last on type map");
  CHECK(funcs().find("mustLast")->returns_error);
  CHECK_FALSE(funcs().find("last")->returns_error);
}

TEST_CASE("sprig: until, untilStep and seq") {
  CHECK(show("until", {I(3)}) == "[0 1 2]");
  CHECK(show("until", {I(-3)}) == "[0 -1 -2]");
  CHECK(call("until", {I(2)}).type_name() == "[]int");
  CHECK(show("untilStep", {I(0), I(10), I(3)}) == "[0 3 6 9]");
  CHECK(show("seq", {I(3)}) == "1 2 3");
  CHECK(show("seq", {I(2), I(-1)}) == "2 1 0 -1");
  CHECK(show("seq", {I(0), I(2), I(10)}) == "0 2 4 6 8 10");
}
