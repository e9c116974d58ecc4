#pragma once
/// Steps that turn a job's user values into what the elasticjob chart renders: spot presets
/// expanded into node terms and tolerations, and the job name chosen within its length budget
/// (job_schema.hpp checks the values themselves).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "src/job/value_locator.hpp"
#include "src/render/go/value.hpp"

namespace ejob::job {

/// When `spot.provider` names a preset and the user gave no `spot.nodeSelectorTerms` /
/// `spot.tolerations`, fills them from src/spot's presets for `spot.mode` (default required).
/// Throws ejob::Error(Input) naming the key when the provider or mode is unknown, at the place
/// `locator` finds for it.
void expand_spot(render::go::Map& values, const ValueLocator* locator = nullptr);

/// What a job name is made from: --name (or the script's base name when empty) and whether it
/// is used exactly.
struct NameRequest {
  std::string name;
  bool exact = false;
  /// Set: the suffix is drawn from a generator seeded with it, so the same seed gives the same
  /// name (`ejob template`); unset: from the OS's randomness (`ejob submit`).
  std::optional<uint64_t> seed;
  /// A chart of the user's (--chart): an exact name is a Helm release name (53 characters),
  /// not bound by the job chart's derived names.
  bool helm_release = false;
};

/// The job name: `request.name` checked as it is, or made unique (DNS form + random suffix);
/// the length budget comes from the effective `workers.max` and blob volumes of `user` over
/// `defaults`. Throws ejob::Error(Usage) naming --name with the limit.
std::string choose_job_name(const NameRequest& request, const render::go::Map& user,
                            const render::go::Map& defaults);

}  // namespace ejob::job
