#include "src/job/manifest_objects.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

namespace ejob::job {
namespace {

using kubeapi::Json;

template <typename F>
std::string error_of(F f, ErrorCode code) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == code);
    return e.message();
  }
  return "";
}

TEST_CASE("parse_manifests: one object per document, empty documents skipped") {
  const std::string text =
      "---\n"
      "# Source: elasticjob/templates/etcd.yaml\n"
      "apiVersion: v1\n"
      "kind: Service\n"
      "metadata:\n"
      "  name: a\n"
      "---\n"
      "# only a comment\n"
      "---\n"
      "apiVersion: v1\n"
      "kind: Pod\n"
      "metadata: {name: b}\n";
  const std::vector<Json> objects = parse_manifests(text);
  REQUIRE(objects.size() == 2);
  CHECK(objects[0] ==
        Json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"a"}})"));
  CHECK(objects[1] == Json::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b"}})"));
  CHECK(parse_manifests("").empty());
  CHECK(parse_manifests("---\n---\n").empty());
}

TEST_CASE("parse_manifests: scalars as kubectl reads them (YAML 1.1, then JSON)") {
  const std::vector<Json> objects = parse_manifests(
      "kind: ConfigMap\n"
      "data: {a: yes, b: 'yes', c: 8080, d: '8080', e: 1.5, f: null, g: ~, h: 0x10, i: 1e3}\n");
  REQUIRE(objects.size() == 1);
  const Json& data = objects[0]["data"];
  CHECK(data["a"] == Json(true));
  CHECK(data["b"] == Json("yes"));
  CHECK(data["c"] == Json(8080));
  CHECK(data["c"].is_number_integer());
  CHECK(data["d"] == Json("8080"));
  CHECK(data["e"] == Json(1.5));
  CHECK(data["f"].is_null());
  CHECK(data["g"].is_null());
  CHECK(data["h"] == Json(16));
  CHECK(data["i"] == Json(1000.0));
}

TEST_CASE("parse_manifests: errors name the document") {
  CHECK(error_of([] { parse_manifests("kind: A\n---\nkind: B\n\tbad: 1\n"); }, ErrorCode::Input) ==
        "YAML parse error on document 2: error converting YAML to JSON: yaml: line 2: found "
        "character that cannot start any token");
  CHECK(error_of([] { parse_manifests("kind: A\n---\n- a\n- b\n"); }, ErrorCode::Input) ==
        "document 2 is not a Kubernetes object");
  CHECK(error_of([] { parse_manifests("just text\n"); }, ErrorCode::Input) ==
        "document 1 is not a Kubernetes object");
}

TEST_CASE("parse_output: the -o formats a command allows") {
  CHECK(parse_output("", {"name", "json", "yaml"}) == Output::Text);
  CHECK(parse_output("name", {"name", "json", "yaml"}) == Output::Name);
  CHECK(parse_output("json", {"name", "json", "yaml"}) == Output::Json);
  CHECK(parse_output("yaml", {"name", "json", "yaml"}) == Output::Yaml);
  CHECK(parse_output("wide", {"wide", "json"}) == Output::Wide);
  CHECK(error_of(
            [] {
              parse_output("table", {"name", "json", "yaml"});
            },
            ErrorCode::Usage) ==
        "-o/--output: unknown format \"table\" (use one of: name, json, yaml)");
  CHECK(error_of(
            [] {
              parse_output("yaml", {"wide", "json"});
            },
            ErrorCode::Usage) == "-o/--output: unknown format \"yaml\" (use one of: wide, json)");
}

const Json k_pod = Json::parse(
    R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":"p","labels":{"b":"2","a":"1"}},)"
    R"("spec":{"containers":[{"name":"c","args":["x","y"]}]}})");
const Json k_service =
    Json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s"}})");

TEST_CASE("format_objects: one object alone, as kubectl -o json prints it") {
  CHECK(format_objects({k_service}, Output::Json) ==
        "{\n"
        "    \"apiVersion\": \"v1\",\n"
        "    \"kind\": \"Service\",\n"
        "    \"metadata\": {\n"
        "        \"name\": \"s\"\n"
        "    }\n"
        "}\n");
}

TEST_CASE("format_objects: several objects as a v1 List") {
  CHECK(format_objects({k_service, k_service}, Output::Json) ==
        Json::parse(R"({"apiVersion":"v1","kind":"List","items":[)" + k_service.dump() + "," +
                    k_service.dump() + R"(],"metadata":{"resourceVersion":""}})")
                .dump(4) +
            "\n");
  CHECK(format_objects({k_service, k_service}, Output::Yaml) ==
        "apiVersion: v1\n"
        "items:\n"
        "- apiVersion: v1\n"
        "  kind: Service\n"
        "  metadata:\n"
        "    name: s\n"
        "- apiVersion: v1\n"
        "  kind: Service\n"
        "  metadata:\n"
        "    name: s\n"
        "kind: List\n"
        "metadata:\n"
        "  resourceVersion: \"\"\n");
}

TEST_CASE("format_objects: YAML with sorted keys and unindented lists (kubectl -o yaml)") {
  CHECK(format_objects({k_pod}, Output::Yaml) ==
        "apiVersion: v1\n"
        "kind: Pod\n"
        "metadata:\n"
        "  labels:\n"
        "    a: \"1\"\n"
        "    b: \"2\"\n"
        "  name: p\n"
        "spec:\n"
        "  containers:\n"
        "  - args:\n"
        "    - x\n"
        "    - \"y\"\n"
        "    name: c\n");
}

}  // namespace
}  // namespace ejob::job
