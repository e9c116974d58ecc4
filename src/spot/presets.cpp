#include "src/spot/presets.hpp"

#include <algorithm>

namespace ejob::spot {

namespace {

bool same(const Taint& a, const Taint& b) {
  return a.key == b.key && a.value == b.value && a.effect == b.effect;
}

void add_preset(Placement& out, const Preset& preset) {
  out.terms.insert(out.terms.end(), preset.labels.begin(), preset.labels.end());
  for (const Taint& taint : preset.taints) {
    auto found = std::find_if(out.tolerations.begin(), out.tolerations.end(),
                              [&](const Taint& t) { return same(t, taint); });
    if (found == out.tolerations.end()) out.tolerations.push_back(taint);
  }
}

}  // namespace

const std::vector<Preset>& presets() {
  // AKS spot pools are always tainted; GKE pools may be tainted (spot and the legacy
  // preemptible label are both spot capacity); EKS managed node groups and Karpenter label
  // but do not taint by default.
  static const std::vector<Preset> k_presets = {
      {Provider::Azure,
       "azure",
       {{"kubernetes.azure.com/scalesetpriority", "spot"}},
       {{"kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule"}}},
      {Provider::Gke,
       "gke",
       {{"cloud.google.com/gke-spot", "true"}, {"cloud.google.com/gke-preemptible", "true"}},
       {{"cloud.google.com/gke-spot", "true", "NoSchedule"},
        {"cloud.google.com/gke-preemptible", "true", "NoSchedule"}}},
      {Provider::Eks, "eks", {{"eks.amazonaws.com/capacityType", "SPOT"}}, {}},
      {Provider::Karpenter, "karpenter", {{"karpenter.sh/capacity-type", "spot"}}, {}},
  };
  return k_presets;
}

std::optional<Provider> parse_provider(std::string_view word) {
  if (word == "any") return Provider::Any;
  for (const Preset& p : presets()) {
    if (p.name == word) return p.provider;
  }
  return std::nullopt;
}

std::optional<Mode> parse_mode(std::string_view word) {
  if (word == "required") return Mode::Required;
  if (word == "preferred") return Mode::Preferred;
  return std::nullopt;
}

std::string_view provider_name(Provider p) {
  for (const Preset& preset : presets()) {
    if (preset.provider == p) return preset.name;
  }
  return "any";
}

std::string_view mode_name(Mode m) { return m == Mode::Required ? "required" : "preferred"; }

std::string provider_choices() {
  std::string out;
  for (const Preset& p : presets()) {
    out += p.name;
    out += ", ";
  }
  out.resize(out.size() - 2);
  return out + " or any";
}

Placement placement(Provider p, Mode m) {
  Placement out;
  out.provider = std::string(provider_name(p));
  out.mode = m;
  for (const Preset& preset : presets()) {
    if (p == Provider::Any || preset.provider == p) add_preset(out, preset);
  }
  return out;
}

std::vector<NodeLabel> off_spot_labels() { return placement(Provider::Any, Mode::Required).terms; }

}  // namespace ejob::spot
