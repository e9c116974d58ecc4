// Expected values and errors in testdata/yaml_load_cases.inc come from sigs.k8s.io/yaml.Unmarshal
// (go-yaml v2.4, Go 1.19) run by testdata/gen_yaml_load.py.
#include "src/render/yaml/load.hpp"

#include <catch2/catch.hpp>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/yaml/scalar.hpp"
#include "src/util/error.hpp"

namespace ejob::render::yaml {

using go::Value;

namespace {

struct LoadCase {
  std::string text;
  std::string any;  // %#v of the interface{} result
  std::string any_error;
  std::string map;  // %#v of the map[string]interface{} result
  std::string map_error;
  std::string list_error;
};

#include "src/render/yaml/testdata/yaml_load_cases.inc"

std::string go_syntax(const Value& v) {
  Value args[] = {v};
  return sprintf("%#v", args);
}

TEST_CASE("yaml_load: values and errors match sigs.k8s.io/yaml") {
  for (const auto& c : k_load_cases) {
    INFO(c.text);
    YamlDecoded any = try_load_yaml(c.text);
    CHECK(any.error == c.any_error);
    if (c.any_error.empty()) CHECK(go_syntax(any.value) == c.any);
    YamlDecoded m = try_load_yaml_map(c.text);
    CHECK(m.error == c.map_error);
    CHECK(go_syntax(m.value) == c.map);
    CHECK(try_load_yaml_list(c.text).error == c.list_error);
  }
}

TEST_CASE("yaml_load: load_yaml reports the file, line and column of a syntax error") {
  try {
    (void)load_yaml("a: 1\nb: c: d\n", "values.yaml");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Input);
    CHECK(e.where().file == "values.yaml");
    CHECK(e.where().line == 2);
    CHECK(e.where().source_line == "b: c: d");
  }
}

TEST_CASE("yaml_load: resolve_plain follows YAML 1.1 as go-yaml v2 does") {
  CHECK(yaml::resolve_plain("0777").i == 511);
  CHECK(yaml::resolve_plain("-0b11").i == -3);
  CHECK(yaml::resolve_plain("1_000").i == 1000);
  CHECK(yaml::resolve_plain("08").kind == yaml::ScalarKind::Float);
  CHECK(yaml::resolve_plain("2020-02-29").kind == yaml::ScalarKind::Timestamp);
  CHECK(yaml::resolve_plain("2021-02-29").kind == yaml::ScalarKind::Str);
  CHECK(yaml::resolve_plain("1e400").kind == yaml::ScalarKind::Str);
  CHECK(yaml::is_base60_float("190:20:30.15"));
  CHECK_FALSE(yaml::is_base60_float("1:60"));
}

}  // namespace
}  // namespace ejob::render::yaml
