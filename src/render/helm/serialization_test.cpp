// Expected results in testdata/serialization_cases.inc are %#v of Helm's functions as
// restated in Go and run by testdata/gen_serialization.py.
#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/helm/base_funcs.hpp"
#include "src/render/text_template/funcs.hpp"

namespace ejob::render::helm {

using go::List;
using go::Map;
using go::Value;
using text_template::FuncArgs;
using text_template::FuncMap;
using text_template::Function;
using text_template::Param;

namespace {

struct CallCase {
  std::string name;
  Value arg;
  std::string want;
};

#include "src/render/helm/testdata/serialization_cases.inc"

TEST_CASE("helm_serialization: functions return what Helm's return") {
  FuncMap map;
  register_helm_serialization(map);
  for (const auto& c : k_call_cases) {
    INFO(c.name << ": " << c.want);
    const Function* f = map.find(c.name);
    REQUIRE(f != nullptr);
    CHECK(!f->returns_error);
    Value result = f->impl(FuncArgs{std::span<const Value>(&c.arg, 1)});
    Value printed[] = {result};
    CHECK(sprintf("%#v", printed) == c.want);
  }
}

TEST_CASE("helm_serialization: decoders take a string, encoders anything") {
  FuncMap map;
  register_helm_serialization(map);
  CHECK(map.find("fromYaml")->params == std::vector<Param>{Param::String});
  CHECK(map.find("toYaml")->params == std::vector<Param>{Param::Any});
}

}  // namespace
}  // namespace ejob::render::helm
