#include "src/job/job_schema.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "src/render/go/json.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

using nlohmann::json;

/// The elasticjob chart's own values.schema.json.
const json& chart_schema() {
  static const json schema = [] {
    std::ifstream in(EJOB_CHART_DIR "/values.schema.json");
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
  }();
  return schema;
}

/// The whole message check_job_values throws for `values` (JSON text) from `origin`; "" when
/// the values pass.
std::string check(std::string_view values, const json& schema = chart_schema(),
                  std::string_view origin = "job.yaml") {
  try {
    check_job_values(render::go::json::unmarshal(values).value.as_map(), schema, origin);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Input);
    return e.message();
  }
  return "";
}

TEST_CASE("check_job_values: the examples of job_schema.hpp and docs/job-file.md") {
  CHECK(check(R"({"workers":{"mn":2}})") ==
        "job.yaml: unknown key workers.mn (did you mean workers.min?)");
  CHECK(check(R"({"gpus":"two"})") == "job.yaml: gpus: \"two\" is not an integer >= 0");
  CHECK(check(R"({"imagePullPolicy":"Sometimes"})", chart_schema(), "--set") ==
        "--set: imagePullPolicy: \"Sometimes\" is not one of \"Always\", \"IfNotPresent\", "
        "\"Never\"");
}

TEST_CASE("check_job_values: a good job passes") {
  CHECK(check(R"({"image":"w:1","script":"train.py","scriptArgs":["--lr",0.1,true],)"
              R"("workers":{"min":1,"max":4},"gpus":2,"cpu":"7500m","memory":"32Gi",)"
              R"("nprocPerNode":"gpu","env":{"A":"1","B":{"secretKeyRef":{"name":"s"}}},)"
              R"("labels":{"team":"nlp"},"spot":{"provider":"gke"}})") == "");
  CHECK(check(R"({"cpu":8,"nprocPerNode":2,"gpus":0})") == "");
}

TEST_CASE("check_job_values: null removes a default and is never checked") {
  CHECK(check(R"({"gpus":null,"workers":{"max":null},"image":null})") == "");
}

TEST_CASE("check_job_values: did-you-mean prefers a name that extends the key") {
  CHECK(check(R"({"gpu":1})") == "job.yaml: unknown key gpu (did you mean gpus?)");
  CHECK(check(R"({"imag":"x"})") == "job.yaml: unknown key imag (did you mean image?)");
  CHECK(check(R"({"etcd":{"imagee":"x"}})", chart_schema(), "-f more.yaml") ==
        "-f more.yaml: unknown key etcd.imagee (did you mean etcd.image?)");
}

TEST_CASE("check_job_values: no close name lists the allowed keys") {
  CHECK(check(R"({"workers":{"elastic":true}})") ==
        "job.yaml: unknown key workers.elastic (allowed: max, min, replicas)");
}

TEST_CASE("check_job_values: types, minimum, anyOf and patterns in messages") {
  CHECK(check(R"({"workers":{"min":0}})") == "job.yaml: workers.min: 0 is not an integer >= 1");
  CHECK(check(R"({"workers":{"max":1.5}})") ==
        "job.yaml: workers.max: 1.5 is not an integer >= 1 or null");
  CHECK(check(R"({"workers":"4"})") == "job.yaml: workers: \"4\" is not a map");
  CHECK(check(R"({"nprocPerNode":0})") ==
        "job.yaml: nprocPerNode: 0 is not an integer >= 1 or one of \"gpu\", \"auto\"");
  CHECK(check(R"({"scriptArgs":"--lr"})") == "job.yaml: scriptArgs: \"--lr\" is not a list");
  CHECK(check(R"({"scriptArgs":["a",{"b":1}]})") ==
        "job.yaml: scriptArgs[1]: {\"b\":1} is not a string, a number or a boolean");
  CHECK(check(R"({"labels":{"team":1}})") == "job.yaml: labels.team: 1 is not a string");
  CHECK(check(R"({"cpu":"eight"})") ==
        "job.yaml: cpu: \"eight\" is not a string or a number >= 0 (a Kubernetes quantity such as "
        "8 or 7500m: the CPU request per worker pod, \"\" for none)");
}

TEST_CASE("check_job_values: keywords of a small schema") {
  const json schema = json::parse(R"({
    "type": "object", "additionalProperties": false,
    "properties": {
      "free": {"type": "object"},
      "typed": {"type": "object", "additionalProperties": {"type": "integer"}},
      "mode": {"type": "string", "pattern": "^[a-z]+$"},
      "list": {"type": "array", "items": {"type": "object", "additionalProperties": false,
                                          "properties": {"k": {"type": "boolean"}}}}
    }})");
  CHECK(check(R"({"free":{"anything":[1]}})", schema) == "");
  CHECK(check(R"({"typed":{"a":1,"b":2.0}})", schema) == "");
  CHECK(check(R"({"typed":{"a":"x"}})", schema) == "job.yaml: typed.a: \"x\" is not an integer");
  // A pattern without a description is shown itself.
  CHECK(check(R"({"mode":"ABC"})", schema) ==
        "job.yaml: mode: \"ABC\" is not a string matching ^[a-z]+$");
  CHECK(check(R"({"list":[{"k":true},{"k":"yes"}]})", schema) ==
        "job.yaml: list[1].k: \"yes\" is not a boolean");
  CHECK(check(R"({"list":[{"xyzzy":1}]})", schema) ==
        "job.yaml: unknown key list[0].xyzzy (allowed: k)");
  CHECK(check(R"({"list":[{"x":1}]})", schema) ==
        "job.yaml: unknown key list[0].x (did you mean list[0].k?)");
}

}  // namespace
}  // namespace ejob::job
