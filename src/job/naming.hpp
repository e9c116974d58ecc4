#pragma once
/// Job names (issue 3 "Unique names"). A job NAME is the model name in DNS form plus `-` and five
/// random `[a-z0-9]` (`ResNet_50` → `resnet-50-x7k2p`), or exactly the name given. Every name
/// derived from it — `NAME-etcd-service`, `NAME-etcd`, `NAME-worker-<max-1>` (the controller's
/// pods and Services), `NAME-<volume>` (blob PV and PVC) — must be a DNS-1035 label of at most
/// 63 characters, so the job name's length budget is computed from the job's own shape.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ejob::job {

/// Longest DNS-1035 label Kubernetes accepts (Service and Pod names of the job).
inline constexpr std::size_t k_max_label = 63;

/// Characters of the random suffix, `-` excluded.
inline constexpr std::size_t k_suffix_length = 5;

/// How long a job name may be: `max_length` characters, limited by the derived name `longest`
/// (written with the literal `NAME`, e.g. `NAME-etcd-service`).
struct NameBudget {
  std::size_t max_length = 0;
  std::string longest;
};

/// The budget for a job with at most `max_workers` workers and blob volumes named
/// `blob_volumes` (each makes a PV and a PVC called `NAME-<volume>`).
NameBudget name_budget(int64_t max_workers, const std::vector<std::string>& blob_volumes);

/// The DNS form of a model name: lower case, each run of characters other than `[a-z0-9]`
/// replaced by one `-`, no `-` at either end, and `job-` in front when it would not start
/// with a letter. Returns "" when the name has no letter or digit at all.
std::string dns_form(std::string_view model);

/// True when `name` is a DNS-1035 label: `[a-z]([-a-z0-9]*[a-z0-9])?`, at most 63 characters.
bool is_dns1035_label(std::string_view name);

/// Draws one random number; the default reads std::random_device.
using RandomSource = std::function<uint32_t()>;

/// A fresh job name for `model`: dns_form(model) + `-` + five random `[a-z0-9]`. Throws
/// ejob::Error(Usage) naming `--name` when the model has no letter or digit, or when the
/// result would exceed `budget` (the message gives the limit).
std::string unique_job_name(std::string_view model, const NameBudget& budget,
                            const RandomSource& random = {});

/// Checks a name given with --exact-name: a DNS-1035 label within `budget`. Throws
/// ejob::Error(Usage) naming `--name` and the accepted form otherwise.
void check_exact_name(std::string_view name, const NameBudget& budget);

}  // namespace ejob::job
