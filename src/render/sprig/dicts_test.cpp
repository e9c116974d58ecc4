// Expected values: Go 1.19 + Sprig 3.2.3 (text/template with sprig.TxtFuncMap()).
#include <catch2/catch.hpp>

#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: dict functions") {
  CHECK(show("dict", {S("a"), I(1), S("b")}) == "map[a:1 b:]");
  CHECK(show("dict", {I(1), I(2)}) == "map[1:2]");
  CHECK(show("get", {M({{"a", I(1)}}), S("a")}) == "1");
  CHECK(show("get", {M({}), S("x")}) == "");
  Value d = M({{"a", I(1)}});
  call("set", {d, S("b"), I(2)});
  CHECK(format_v(d) == "map[a:1 b:2]");  // set mutates the shared map
  CHECK(show("unset", {M({{"a", I(1)}, {"b", I(2)}}), S("a")}) == "map[b:2]");
  CHECK(show("hasKey", {M({{"a", N()}}), S("a")}) == "true");
  CHECK(show("pluck", {S("a"), M({{"a", I(1)}}), M({{"b", I(2)}}), M({{"a", I(3)}})}) == "[1 3]");
  CHECK(show("keys", {M({{"b", I(1)}, {"a", I(2)}})}) == "[a b]");
  CHECK(call("keys", {M({})}).type_name() == "[]string");
  CHECK(show("values", {M({{"a", I(1)}, {"b", I(2)}})}) == "[1 2]");
  CHECK(show("pick", {M({{"a", I(1)}, {"b", I(2)}, {"c", I(3)}}), S("a"), S("c"), S("z")}) ==
        "map[a:1 c:3]");
  CHECK(show("omit", {M({{"a", I(1)}, {"b", I(2)}}), S("a")}) == "map[b:2]");
}

TEST_CASE("sprig: dig walks plain maps and fails like Go's type assertions") {
  Value m = M({{"a", M({{"b", I(7)}})}});
  CHECK(show("dig", {S("a"), S("b"), S("def"), m}) == "7");
  CHECK(show("dig", {S("a"), S("x"), S("def"), m}) == "def");
  CHECK(error_of("dig", {S("a"), S("b"), S("d"), M({{"a", I(1)}})}) ==
        "interface conversion: interface {} is int, not map[string]interface {}");
  CHECK(error_of("dig", {I(1), S("d"), m}) ==
        "interface conversion: interface {} is int, not string");
  CHECK(error_of("dig", {S("a"), m}) == "dig needs at least three arguments");
  Value values = Value::map(Map{{"a", I(1)}}, GoType::Values);
  CHECK(error_of("dig", {S("a"), S("d"), values}) ==
        "interface conversion: interface {} is chartutil.Values, not map[string]interface {}");
}

TEST_CASE("sprig: merge and mergeOverwrite follow dario.cat/mergo 1.0.1") {
  Value dst = M({{"a", S("x")}, {"b", S("y")}, {"c", L({I(1)})}, {"d", M({{"e", I(1)}})}});
  Value src =
      M({{"a", S("")}, {"b", M({{"z", I(1)}})}, {"c", L({})}, {"d", M({{"f", I(2)}})}, {"g", N()}});
  // mergo 1.0 replaces a non-map ("y") with a map when overwriting; 0.3.12 kept "y".
  CHECK(show("mergeOverwrite", {dst, src}) == "map[a: b:map[z:1] c:[] d:map[e:1 f:2] g:<nil>]");
  Value dst2 = M({{"a", S("")}, {"b", S("y")}, {"c", L({I(1)})}, {"d", M({})}, {"n", N()}});
  Value src2 = M({{"a", S("A")},
                  {"b", M({{"z", I(1)}})},
                  {"c", L({I(2)})},
                  {"d", M({{"f", I(2)}})},
                  {"g", N()},
                  {"n", I(3)}});
  CHECK(show("merge", {dst2, src2}) == "map[a:A b:y c:[1] d:map[f:2] n:3]");
  CHECK(show("mergeOverwrite", {M({{"a", I(1)}}), M({{"a", L({})}})}) == "map[a:[]]");
  // An empty destination map is filled in place, not replaced by the source map.
  Value inner = M({});
  Value src3 = M({{"a", M({{"x", I(1)}})}});
  call("merge", {M({{"a", inner}}), src3});
  call("set", {src3.as_map().at("a"), S("y"), I(2)});
  CHECK(format_v(inner) == "map[x:1]");
}

TEST_CASE("sprig: default, empty, coalesce, all, any, ternary, deepCopy") {
  CHECK(show("default", {S("d"), I(0)}) == "d");
  CHECK(show("default", {S("d"), S("x")}) == "x");
  CHECK(show("default", {S("d"), B(false)}) == "d");
  CHECK(show("default", {S("d"), M({})}) == "d");
  CHECK(show("default", {S("d")}) == "d");
  CHECK(show("empty", {F(0.0)}) == "true");
  CHECK(show("empty", {L({})}) == "true");
  CHECK(show("empty", {S("0")}) == "false");
  CHECK(show("coalesce", {I(0), S(""), S("x")}) == "x");
  CHECK(call("coalesce", {I(0)}).is_nil());
  CHECK(show("all", {I(1), S("a")}) == "true");
  CHECK(show("all", {I(1), S("")}) == "false");
  CHECK(show("any", {I(0), S("")}) == "false");
  CHECK(show("any", {I(0), S("a")}) == "true");
  CHECK(show("ternary", {S("a"), S("b"), B(true)}) == "a");
  CHECK(show("ternary", {S("a"), S("b"), B(false)}) == "b");
  CHECK(show("deepCopy", {M({{"a", L({I(1)})}})}) == "map[a:[1]]");
  CHECK(error_of("deepCopy", {N()}) == "reflect: call of reflect.Value.Type on zero Value");
}

TEST_CASE("sprig: typeOf, kindOf and deepEqual use Go's type names") {
  CHECK(show("typeOf", {I(1)}) == "int");
  CHECK(show("typeOf", {F(1.5)}) == "float64");
  CHECK(show("typeOf", {L({})}) == "[]interface {}");
  CHECK(show("typeOf", {M({})}) == "map[string]interface {}");
  CHECK(show("typeOf", {N()}) == "<nil>");
  CHECK(show("kindOf", {I(1)}) == "int");
  CHECK(show("kindOf", {I64(1)}) == "int64");
  CHECK(show("kindOf", {L({})}) == "slice");
  CHECK(show("kindOf", {M({})}) == "map");
  CHECK(show("kindOf", {N()}) == "invalid");
  CHECK(show("kindIs", {S("map"), M({})}) == "true");
  CHECK(show("typeIs", {S("int"), I(1)}) == "true");
  Value v = call("semver", {S("1.0.0")});
  CHECK(show("typeIsLike", {S("semver.Version"), v}) == "true");
  CHECK(show("kindOf", {v}) == "ptr");
  CHECK(show("deepEqual", {L({I(1), M({{"a", I(1)}})}), L({I(1), M({{"a", I(1)}})})}) == "true");
  CHECK(show("deepEqual", {I(1), F(1.0)}) == "false");
  CHECK(call("split", {S(","), S("a")}).type_name() == "map[string]string");
}
