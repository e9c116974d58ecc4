#include "src/render/helm/context.hpp"

#include <catch2/catch.hpp>

#include "src/render/go/fmt.hpp"
#include "src/render/text_template/funcs.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::FuncError;
using go::GoType;
using go::Value;

namespace {

Value field(const Value& obj, std::string_view name) {
  Value out;
  REQUIRE(obj.as_object().field(name, out));
  return out;
}

Value call(const Value& obj, std::string_view name, std::vector<Value> args = {}) {
  return obj.as_object().call(name, args);
}

TEST_CASE("render: Capabilities has the kube version, API versions and Helm version") {
  Value caps = make_capabilities(parse_kube_version("v1.30.2"), {"example.com/v1"});
  Value kv = field(caps, "KubeVersion");
  CHECK(field(kv, "Version").as_string() == "v1.30.2");
  CHECK(field(kv, "Major").as_string() == "1");
  CHECK(field(kv, "Minor").as_string() == "30");
  CHECK(call(kv, "GitVersion").as_string() == "v1.30.2");
  CHECK(format_v(kv) == "v1.30.2");
  Value apis = field(caps, "APIVersions");
  CHECK(call(apis, "Has", {Value::string("apps/v1")}).as_bool());
  CHECK_FALSE(call(apis, "Has", {Value::string("apps/v2")}).as_bool());
  CHECK(call(apis, "Has", {Value::string("example.com/v1")}).as_bool());
  CHECK(field(field(caps, "HelmVersion"), "Version").as_string() == "v3.21.4");
  CHECK(field(field(caps, "HelmVersion"), "GitCommit").as_string() ==
        "813176c51bb5c181dbbd7901298ddcc104cd3417");
}

TEST_CASE("render: --kube-version is read as apimachinery's ParseGeneric reads it") {
  CHECK(parse_kube_version(k_default_kube_version).version == "v1.36.0");
  CHECK(parse_kube_version("1.29").version == "v1.29");
  CHECK(parse_kube_version(" v1.29.3-rc.1+x").version == "v1.29.3");
  KubeVersion four = parse_kube_version("1.029.3.04");
  CHECK(four.version == "v1.29.3.4");
  CHECK(four.minor == "29");
  auto error_of = [](std::string_view text) {
    try {
      parse_kube_version(text);
    } catch (const Error& e) {
      return e.message();
    }
    return std::string("no error");
  };
  CHECK(error_of("one") == R"(invalid kube version 'one': could not parse "one" as version)");
  CHECK(error_of("1") == R"(invalid kube version '1': illegal version string "1")");
  CHECK(error_of("01.2") ==
        R"(invalid kube version '01.2': illegal zero-prefixed version component "01" in "01.2")");
  CHECK(error_of("1.2\nx") == R"(invalid kube version '1.2)"
                              "\n"
                              R"(x': could not parse "1.2\nx" as version)");
}

TEST_CASE("render: Files reads, globs and splits chart files") {
  Value files = make_files(std::make_shared<const std::vector<ChartFile>>(std::vector<ChartFile>{
      {"conf/a.txt", "alpha\n"}, {"conf/b.txt", "l1\nl2"}, {"x.md", "doc"}}));
  CHECK(call(files, "Get", {Value::string("x.md")}).as_string() == "doc");
  CHECK(call(files, "Get", {Value::string("none")}).as_string().empty());
  CHECK(call(files, "GetBytes", {Value::string("x.md")}).type() == GoType::Bytes);
  Value lines = call(files, "Lines", {Value::string("conf/b.txt")});
  CHECK(format_v(lines) == "[l1 l2]");
  CHECK(format_v(call(files, "Lines", {Value::string("conf/a.txt")})) == "[alpha]");
  CHECK(call(files, "Lines", {Value::string("none")}).as_list().empty());
  Value conf = call(files, "Glob", {Value::string("conf/*")});
  CHECK(conf.as_object().underlying().as_map().size() == 2);
  CHECK(call(conf, "AsConfig").as_string() == "a.txt: |\n  alpha\nb.txt: |-\n  l1\n  l2");
  CHECK(call(call(files, "Glob", {Value::string("*.md")}), "AsSecrets").as_string() ==
        "x.md: ZG9j");
  try {
    (void)call(files, "Get", {Value::integer(1)});
    FAIL("no error");
  } catch (const FuncError& e) {
    CHECK(e.message == "wrong type for value; expected string; got int");
  }
}

TEST_CASE("render: Release and Chart objects carry Helm's fields") {
  Value rel = make_release("r", "ns");
  CHECK(format_v(rel) ==
        "map[IsInstall:true IsUpgrade:false Name:r Namespace:ns Revision:1 "
        "Service:Helm]");
  Chart c;
  c.metadata.name = "demo";
  c.metadata.app_version = "1.1";
  c.metadata.annotations = {{"k", "v"}};
  Value obj = make_chart_object(c);
  CHECK(field(obj, "Name").as_string() == "demo");
  CHECK(field(obj, "AppVersion").as_string() == "1.1");
  CHECK(field(obj, "IsRoot").as_bool());
  CHECK(format_v(field(obj, "Annotations")) == "map[k:v]");
}

}  // namespace
}  // namespace ejob::render::helm
