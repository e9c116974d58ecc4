// Expected texts in testdata/yaml_emit_cases.inc come from sigs.k8s.io/yaml.Marshal (go-yaml
// v2.4, Go 1.19) run by testdata/gen_yaml_emit.py.
#include "src/render/yaml/emit.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "src/render/go/error.hpp"
#include "src/render/yaml/load.hpp"

namespace ejob::render::yaml {

using go::FuncError;
using go::GoType;
using go::List;
using go::Map;
using go::Value;

namespace {

struct EmitCase {
  Value value;
  std::string want;
};

#include "src/render/yaml/testdata/yaml_emit_cases.inc"

TEST_CASE("yaml_emit: to_yaml matches sigs.k8s.io/yaml.Marshal byte for byte") {
  for (const auto& c : k_emit_cases) {
    INFO(c.want);
    CHECK(to_yaml(c.value) == c.want);
  }
}

TEST_CASE("yaml_emit: NaN cannot be marshalled") {
  try {
    (void)to_yaml(Value::float64(std::numeric_limits<double>::quiet_NaN()));
    FAIL("no error");
  } catch (const FuncError& e) {
    CHECK("ERR:" + e.message == k_emit_nan_error);
  }
}

TEST_CASE("yaml_emit: keys sort naturally, non-letters first") {
  CHECK(yaml_key_less("item9", "item10"));
  CHECK(yaml_key_less("_under", "a"));
  CHECK_FALSE(yaml_key_less("b", "a"));
}

// Found by tests/fuzz/yaml_fuzz.cpp: a digit run past int64 overflowed (undefined). go-yaml's
// keyList.Less adds in Go's int, which wraps: 20 nines are 7766279631452241919 there, less
// than 8000000000000000000.
TEST_CASE("yaml_emit: keys with digit runs past int64 sort as Go's wrapping int sorts them") {
  CHECK(yaml_key_less("n99999999999999999999", "n8000000000000000000"));
  CHECK_FALSE(yaml_key_less("n8000000000000000000", "n99999999999999999999"));
}

}  // namespace
}  // namespace ejob::render::yaml

namespace ejob::render::yaml {
namespace {

TEST_CASE("yaml_emit: to_yaml_pretty matches a go-yaml v3 Encoder with SetIndent(2)") {
  for (const auto& c : k_pretty_cases) {
    INFO(c.want);
    CHECK(to_yaml_pretty(c.value) == c.want);
  }
}

}  // namespace
}  // namespace ejob::render::yaml

namespace ejob::render::yaml {
namespace {

TEST_CASE("yaml_emit: a chart-like values file read and written again matches Go") {
  CHECK(to_yaml(load_yaml(k_roundtrip_text, "values.yaml")) == k_roundtrip_want);
}

}  // namespace
}  // namespace ejob::render::yaml
