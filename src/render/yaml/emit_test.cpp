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
