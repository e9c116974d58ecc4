#include "src/spot/presets.hpp"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <string>

using namespace ejob::spot;

namespace {

/// "key=value" per term, for whole-list comparisons.
std::vector<std::string> terms_of(const Placement& p) {
  std::vector<std::string> out;
  for (const NodeLabel& l : p.terms) out.push_back(std::string(l.key) + "=" + std::string(l.value));
  return out;
}

/// "key=value:effect" per toleration.
std::vector<std::string> tolerations_of(const Placement& p) {
  std::vector<std::string> out;
  for (const Taint& t : p.tolerations) {
    out.push_back(std::string(t.key) + "=" + std::string(t.value) + ":" + std::string(t.effect));
  }
  return out;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("spot: azure selects the scale-set priority label and tolerates its taint") {
  for (Mode m : {Mode::Required, Mode::Preferred}) {
    Placement p = placement(Provider::Azure, m);
    CHECK(p.provider == "azure");
    CHECK(p.mode == m);
    CHECK(terms_of(p) == Strings{"kubernetes.azure.com/scalesetpriority=spot"});
    CHECK(tolerations_of(p) == Strings{"kubernetes.azure.com/scalesetpriority=spot:NoSchedule"});
  }
}

TEST_CASE("spot: gke ORs the spot and the legacy preemptible label") {
  for (Mode m : {Mode::Required, Mode::Preferred}) {
    Placement p = placement(Provider::Gke, m);
    CHECK(p.provider == "gke");
    CHECK(p.mode == m);
    CHECK(terms_of(p) ==
          Strings{"cloud.google.com/gke-spot=true", "cloud.google.com/gke-preemptible=true"});
    CHECK(tolerations_of(p) == Strings{"cloud.google.com/gke-spot=true:NoSchedule",
                                       "cloud.google.com/gke-preemptible=true:NoSchedule"});
  }
}

TEST_CASE("spot: eks selects SPOT capacity and needs no toleration") {
  for (Mode m : {Mode::Required, Mode::Preferred}) {
    Placement p = placement(Provider::Eks, m);
    CHECK(p.provider == "eks");
    CHECK(p.mode == m);
    CHECK(terms_of(p) == Strings{"eks.amazonaws.com/capacityType=SPOT"});
    CHECK(p.tolerations.empty());
  }
}

TEST_CASE("spot: karpenter selects spot capacity and needs no toleration") {
  for (Mode m : {Mode::Required, Mode::Preferred}) {
    Placement p = placement(Provider::Karpenter, m);
    CHECK(p.provider == "karpenter");
    CHECK(p.mode == m);
    CHECK(terms_of(p) == Strings{"karpenter.sh/capacity-type=spot"});
    CHECK(p.tolerations.empty());
  }
}

TEST_CASE("spot: any ORs every provider's labels and tolerates every taint once") {
  for (Mode m : {Mode::Required, Mode::Preferred}) {
    Placement p = placement(Provider::Any, m);
    CHECK(p.provider == "any");
    CHECK(p.mode == m);
    CHECK(terms_of(p) ==
          Strings{"kubernetes.azure.com/scalesetpriority=spot", "cloud.google.com/gke-spot=true",
                  "cloud.google.com/gke-preemptible=true", "eks.amazonaws.com/capacityType=SPOT",
                  "karpenter.sh/capacity-type=spot"});
    CHECK(tolerations_of(p) == Strings{"kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
                                       "cloud.google.com/gke-spot=true:NoSchedule",
                                       "cloud.google.com/gke-preemptible=true:NoSchedule"});
  }
}

TEST_CASE("spot: words parse to providers and modes, unknown words to nothing") {
  CHECK(parse_provider("azure") == Provider::Azure);
  CHECK(parse_provider("gke") == Provider::Gke);
  CHECK(parse_provider("eks") == Provider::Eks);
  CHECK(parse_provider("karpenter") == Provider::Karpenter);
  CHECK(parse_provider("any") == Provider::Any);
  CHECK_FALSE(parse_provider("aws").has_value());
  CHECK_FALSE(parse_provider("Azure").has_value());
  CHECK(parse_mode("required") == Mode::Required);
  CHECK(parse_mode("preferred") == Mode::Preferred);
  CHECK_FALSE(parse_mode("soft").has_value());
  CHECK(provider_choices() == "azure, gke, eks, karpenter or any");
  CHECK(mode_name(Mode::Preferred) == "preferred");
  CHECK(provider_name(Provider::Karpenter) == "karpenter");
}

TEST_CASE("spot: the chart keeps etcd off every preset's spot label") {
  YAML::Node values = YAML::LoadFile(std::string(EJOB_CHART_DIR) + "/values.yaml");
  Strings chart;
  for (const YAML::Node& item : values["etcd"]["offSpot"]) {
    REQUIRE(item["values"].size() == 1);
    chart.push_back(item["key"].as<std::string>() + "=" + item["values"][0].as<std::string>());
  }
  Strings ours;
  for (const NodeLabel& l : off_spot_labels()) {
    ours.push_back(std::string(l.key) + "=" + std::string(l.value));
  }
  CHECK(chart == ours);
}
