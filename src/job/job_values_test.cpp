#include "src/job/job_values.hpp"

#include <catch2/catch.hpp>

#include "src/render/go/json.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

using render::go::Map;
using render::go::Value;

Map values_from(std::string_view json) { return render::go::json::unmarshal(json).value.as_map(); }

std::string spot_of(std::string_view json) {
  Map values = values_from(json);
  expand_spot(values);
  return render::go::json::marshal(Value::map(values));
}

/// The message of the ejob::Error `f` throws with `code` ("" when none).
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

/// One node selector term `key In [value]`, as the chart wants it.
std::string term(const std::string& key, const std::string& value) {
  return R"({"matchExpressions":[{"key":")" + key + R"(","operator":"In","values":[")" + value +
         R"("]}]})";
}

std::string toleration(const std::string& key, const std::string& value) {
  return R"({"effect":"NoSchedule","key":")" + key + R"(","operator":"Equal","value":")" + value +
         R"("})";
}

const std::string k_azure = "kubernetes.azure.com/scalesetpriority";
const std::string k_gke_spot = "cloud.google.com/gke-spot";
const std::string k_gke_preemptible = "cloud.google.com/gke-preemptible";
const std::string k_eks = "eks.amazonaws.com/capacityType";
const std::string k_karpenter = "karpenter.sh/capacity-type";

TEST_CASE("expand_spot: without a provider nothing changes") {
  CHECK(spot_of(R"({"gpus":1})") == R"({"gpus":1})");
  CHECK(spot_of(R"({"spot":{"provider":""}})") == R"({"spot":{"provider":""}})");
  CHECK(spot_of(R"({"spot":{"mode":"preferred"}})") == R"({"spot":{"mode":"preferred"}})");
}

TEST_CASE("expand_spot: each provider's labels and taints (docs/job-file.md, Spot nodes)") {
  CHECK(spot_of(R"({"spot":{"provider":"azure"}})") ==
        R"({"spot":{"nodeSelectorTerms":[)" + term(k_azure, "spot") +
            R"(],"provider":"azure","tolerations":[)" + toleration(k_azure, "spot") + "]}}");
  CHECK(spot_of(R"({"spot":{"provider":"gke"}})") ==
        R"({"spot":{"nodeSelectorTerms":[)" + term(k_gke_spot, "true") + "," +
            term(k_gke_preemptible, "true") + R"(],"provider":"gke","tolerations":[)" +
            toleration(k_gke_spot, "true") + "," + toleration(k_gke_preemptible, "true") + "]}}");
  CHECK(spot_of(R"({"spot":{"provider":"eks"}})") ==
        R"({"spot":{"nodeSelectorTerms":[)" + term(k_eks, "SPOT") +
            R"(],"provider":"eks","tolerations":[]}})");
  CHECK(spot_of(R"({"spot":{"provider":"karpenter","mode":"preferred"}})") ==
        R"({"spot":{"mode":"preferred","nodeSelectorTerms":[)" + term(k_karpenter, "spot") +
            R"(],"provider":"karpenter","tolerations":[]}})");
}

TEST_CASE("expand_spot: any ORs every provider's terms and tolerates every taint") {
  CHECK(spot_of(R"({"spot":{"provider":"any"}})") ==
        R"({"spot":{"nodeSelectorTerms":[)" + term(k_azure, "spot") + "," +
            term(k_gke_spot, "true") + "," + term(k_gke_preemptible, "true") + "," +
            term(k_eks, "SPOT") + "," + term(k_karpenter, "spot") +
            R"(],"provider":"any","tolerations":[)" + toleration(k_azure, "spot") + "," +
            toleration(k_gke_spot, "true") + "," + toleration(k_gke_preemptible, "true") + "]}}");
}

TEST_CASE("expand_spot: the user's own terms and tolerations are kept") {
  CHECK(spot_of(R"({"spot":{"provider":"azure","nodeSelectorTerms":[],"tolerations":["x"]}})") ==
        R"({"spot":{"nodeSelectorTerms":[],"provider":"azure","tolerations":["x"]}})");
  CHECK(spot_of(R"({"spot":{"provider":"eks","tolerations":[]}})") ==
        R"({"spot":{"nodeSelectorTerms":[)" + term(k_eks, "SPOT") +
            R"(],"provider":"eks","tolerations":[]}})");
}

TEST_CASE("expand_spot: an unknown provider or mode names the key") {
  CHECK(error_of([] { spot_of(R"({"spot":{"provider":"aws"}})"); }, ErrorCode::Input) ==
        "spot.provider: \"aws\" is not a spot provider (use azure, gke, eks, karpenter or any)");
  CHECK(error_of([] { spot_of(R"({"spot":{"provider":"gke","mode":"always"}})"); },
                 ErrorCode::Input) ==
        "spot.mode: \"always\" is not a spot mode (use required or preferred)");
}

const Map k_defaults = values_from(R"({"workers":{"min":1,"max":null},"storage":{}})");

TEST_CASE("choose_job_name: the model in DNS form plus a five-character suffix") {
  const std::string name = choose_job_name({"ResNet_50", false}, {}, k_defaults);
  REQUIRE(name.size() == std::string("resnet-50-").size() + 5);
  CHECK(name.rfind("resnet-50-", 0) == 0);
  for (char c : name.substr(10)) CHECK(((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')));
  CHECK(choose_job_name({"ResNet_50", false}, {}, k_defaults) != name);
}

TEST_CASE("choose_job_name: a seed gives the same suffix every time (ejob template)") {
  const std::string name = choose_job_name({"bert", false, 42}, {}, k_defaults);
  CHECK(name.rfind("bert-", 0) == 0);
  CHECK(name.size() == 10);
  CHECK(choose_job_name({"bert", false, 42}, {}, k_defaults) == name);
  CHECK(choose_job_name({"bert", false, 43}, {}, k_defaults) != name);
}

TEST_CASE("choose_job_name: --exact-name is used as it is") {
  CHECK(choose_job_name({"bert", true}, {}, k_defaults) == "bert");
  CHECK(error_of(
            [] {
              choose_job_name({"Bert", true}, {}, k_defaults);
            },
            ErrorCode::Usage) ==
        "--name: \"Bert\" is not a valid --exact-name: use lower-case letters, digits and '-', "
        "starting with a letter and ending with a letter or digit");
}

TEST_CASE("choose_job_name: 50 characters for most jobs (NAME-etcd-service)") {
  const std::string fifty(50, 'a');
  CHECK(choose_job_name({fifty, true}, {}, k_defaults) == fifty);
  CHECK(error_of(
            [&] {
              choose_job_name({fifty + "a", true}, {}, k_defaults);
            },
            ErrorCode::Usage) ==
        "--name: \"" + fifty +
            "a\" has 51 characters, the limit is 50 (so that "
            "NAME-etcd-service stays a DNS-1035 label of at most 63 characters)");
  CHECK(error_of(
            [&] {
              choose_job_name({fifty, false}, {}, k_defaults);
            },
            ErrorCode::Usage) ==
        "--name: \"" + fifty +
            "\" (before the 6-character random suffix) has 50 characters, the "
            "limit is 44 (so that NAME-etcd-service stays a DNS-1035 label of at most 63 "
            "characters)");
}

TEST_CASE("choose_job_name: the budget follows the effective workers.max and blob volumes") {
  const std::string workers_limit =
      "\" has 50 characters, the limit is 48 (so that "
      "NAME-worker-1000000 stays a DNS-1035 label of at most 63 "
      "characters)";
  const std::string fifty(50, 'a');
  // workers.max from the user's values; min's value when max is absent from both.
  for (const char* user : {R"({"workers":{"max":1000001}})", R"({"workers":{"min":1000001}})"}) {
    CHECK(error_of(
              [&] {
                choose_job_name({fifty, true}, values_from(user), k_defaults);
              },
              ErrorCode::Usage) == "--name: \"" + fifty + workers_limit);
  }
  const Map blob =
      values_from(R"({"storage":{"checkpoint-volume-for-training":{"blob":{"account":"acct"}},)"
                  R"("claim":{"existingClaim":"c"}}})");
  CHECK(error_of(
            [&] {
              choose_job_name({fifty, true}, blob, k_defaults);
            },
            ErrorCode::Usage) ==
        "--name: \"" + fifty +
            "\" has 50 characters, the limit is 32 (so that "
            "NAME-checkpoint-volume-for-training stays a DNS-1035 label of at most 63 "
            "characters)");
}

TEST_CASE("choose_job_name: a user null removes the chart default from the budget") {
  const std::string fifty(50, 'a');
  const Map defaults = values_from(R"({"workers":{"min":1,"max":5},)"
                                   R"("storage":{"checkpoint-volume-for-training":{"blob":{}}}})");
  CHECK(error_of(
            [&] {
              choose_job_name({fifty, true}, {}, defaults);
            },
            ErrorCode::Usage) ==
        "--name: \"" + fifty +
            "\" has 50 characters, the limit is 32 (so that "
            "NAME-checkpoint-volume-for-training stays a DNS-1035 label of at most 63 "
            "characters)");
  CHECK(choose_job_name({fifty, true}, values_from(R"({"storage":null})"), defaults) == fifty);
  // workers.max: null deletes the default 5, so max falls back to min.
  CHECK(error_of(
            [&] {
              choose_job_name(
                  {fifty, true},
                  values_from(R"({"storage":null,"workers":{"max":null,"min":1000001}})"),
                  defaults);
            },
            ErrorCode::Usage) ==
        "--name: \"" + fifty +
            "\" has 50 characters, the limit is 48 (so that NAME-worker-1000000 stays a DNS-1035 "
            "label of at most 63 characters)");
}

}  // namespace
}  // namespace ejob::job
