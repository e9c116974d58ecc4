#pragma once
/// Spot-node presets per platform, as data (DESIGN.md "Facts from outside"): the node label that
/// marks a spot node and the taints spot pools carry. A placement turns a provider and a mode into
/// the ORed node-selector terms and tolerations that the elasticjob chart takes as
/// `spot.nodeSelectorTerms` / `spot.tolerations`; `off_spot_labels()` lists every provider's
/// label for the etcd pod's `NotIn` affinity (the chart's `etcd.offSpot` default).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::spot {

/// A platform whose spot nodes we know, or `Any` for all of them at once.
enum class Provider { Azure, Gke, Eks, Karpenter, Any };

/// `Required`: workers only on spot nodes. `Preferred`: spot first, on-demand as fall-back.
enum class Mode { Required, Preferred };

/// A node label `key=value` that marks a spot (or preemptible) node.
struct NodeLabel {
  std::string_view key;
  std::string_view value;
};

/// A taint that spot nodes carry and spot workers therefore tolerate (`operator: Equal`).
struct Taint {
  std::string_view key;
  std::string_view value;
  std::string_view effect;
};

/// One platform's preset: the labels (any of which marks a spot node) and the taints.
struct Preset {
  Provider provider;
  std::string_view name;  ///< the `--spot` word: azure, gke, eks, karpenter
  std::vector<NodeLabel> labels;
  std::vector<Taint> taints;
};

/// Where workers go: ORed label terms (one per label) and the tolerations, for one mode.
struct Placement {
  std::string provider;  ///< the `--spot` word, `any` included
  Mode mode = Mode::Required;
  std::vector<NodeLabel> terms;
  std::vector<Taint> tolerations;
};

/// The presets of every concrete platform (not `Any`), in a fixed order.
const std::vector<Preset>& presets();

/// The provider named by a `--spot` word; nullopt for an unknown word.
std::optional<Provider> parse_provider(std::string_view word);

/// The mode named by a `--spot-mode` word (`required`, `preferred`); nullopt otherwise.
std::optional<Mode> parse_mode(std::string_view word);

/// The `--spot` word of a provider.
std::string_view provider_name(Provider p);

/// The `--spot-mode` word of a mode.
std::string_view mode_name(Mode m);

/// The accepted `--spot` words for messages: "azure, gke, eks, karpenter or any".
std::string provider_choices();

/// The placement of spot workers for a provider and mode; `Any` ORs every preset's labels and
/// tolerates every preset's taints (duplicates removed).
Placement placement(Provider p, Mode m);

/// Every preset's spot labels, in preset order: the etcd pod must avoid all of them.
std::vector<NodeLabel> off_spot_labels();

}  // namespace ejob::spot
