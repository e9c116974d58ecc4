#include "src/job/job_flags.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <charconv>

#include "src/job/naming.hpp"
#include "src/spot/presets.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

namespace {

using render::go::Map;
using render::go::Value;

[[noreturn]] void bad_flag(std::string_view flag, std::string_view value, std::string_view why) {
  throw Error(ErrorCode::Usage, fmt::format("{}: \"{}\" {}", flag, value, why));
}

/// A whole number >= `min`, or nullopt.
std::optional<int64_t> parse_count(std::string_view text, int64_t min) {
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < min) return std::nullopt;
  return n;
}

/// Values-file numbers are float64; flags write the same type so a job behaves the same
/// whether a key came from the job file or from a flag.
Value number(int64_t n) { return Value::float64(static_cast<double>(n)); }

void apply_workers(const std::string& text, Map& values) {
  constexpr std::string_view k_form = "(use N or MIN:MAX with 1 <= MIN <= MAX)";
  auto colon = text.find(':');
  auto min = parse_count(std::string_view(text).substr(0, colon), 1);
  auto max = colon == std::string::npos ? min : parse_count(text.substr(colon + 1), 1);
  if (!min || !max) bad_flag("--workers", text, fmt::format("is not a worker count {}", k_form));
  if (*min > *max) bad_flag("--workers", text, fmt::format("has MIN above MAX {}", k_form));
  set_path(values, {"workers", "min"}, number(*min));
  set_path(values, {"workers", "max"}, number(*max));
}

void apply_quantity(std::string_view flag, const std::optional<std::string>& text, Map& values,
                    std::string_view key) {
  if (!text) return;
  if (!is_quantity(*text)) {
    bad_flag(flag, *text, "is not a Kubernetes quantity (e.g. 8, 500m, 1.5, 16Gi, 512Mi)");
  }
  set_path(values, {key}, Value::string(*text));
}

void apply_spot(const JobFlags& flags, Map& values) {
  if (flags.spot) {
    if (!spot::parse_provider(*flags.spot)) {
      bad_flag("--spot", *flags.spot,
               fmt::format("is not a spot provider (use {})", spot::provider_choices()));
    }
    set_path(values, {"spot", "provider"}, Value::string(*flags.spot));
  }
  if (flags.spot_mode) {
    if (!spot::parse_mode(*flags.spot_mode)) {
      bad_flag("--spot-mode", *flags.spot_mode, "is not a spot mode (use required or preferred)");
    }
    set_path(values, {"spot", "mode"}, Value::string(*flags.spot_mode));
  }
}

/// A volume name for `base` that `values.storage` does not use yet.
std::string free_volume_name(const Map& values, const std::string& base) {
  Value storage = get_path(values, {"storage"});
  auto taken = [&](const std::string& n) {
    return storage.is_map() && storage.as_map().count(n) != 0;
  };
  std::string name = base;
  for (int i = 2; taken(name); ++i) name = fmt::format("{}-{}", base, i);
  return name;
}

void check_mount_path(std::string_view flag, const std::string& text, std::string_view path,
                      std::string_view form) {
  if (path.empty() || path.front() != '/') {
    bad_flag(flag, text, fmt::format("needs an absolute MOUNTPATH (use {})", form));
  }
}

void apply_blob(const std::string& text, Map& values) {
  constexpr std::string_view k_form = "ACCOUNT/CONTAINER[:MOUNTPATH]";
  // A container name is 3-63 characters (Azure's rule), so the middle part is not optional.
  static const RE2 k_blob("([a-z0-9]{3,24})/([a-z0-9][-a-z0-9]{1,61}[a-z0-9])(:(.*))?");
  std::string account, container, with_path, path;
  if (!RE2::FullMatch(text, k_blob, &account, &container, &with_path, &path)) {
    bad_flag("--blob", text,
             fmt::format("is not {} (account: 3-24 lower-case letters and digits; container: a "
                         "DNS label of 3-63 characters)",
                         k_form));
  }
  if (with_path.empty()) path = "/mnt/" + container;
  check_mount_path("--blob", text, path, k_form);
  std::string volume = free_volume_name(values, container);
  set_path(values, {"storage", volume, "mountPath"}, Value::string(path));
  set_path(values, {"storage", volume, "blob", "account"}, Value::string(account));
  set_path(values, {"storage", volume, "blob", "container"}, Value::string(container));
}

void apply_pvc(const std::string& text, Map& values) {
  constexpr std::string_view k_form = "CLAIM:MOUNTPATH";
  static const RE2 k_claim(R"([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)");
  auto colon = text.find(':');
  std::string claim = text.substr(0, colon);
  if (colon == std::string::npos || !RE2::FullMatch(claim, k_claim)) {
    bad_flag("--pvc", text, fmt::format("is not {} (CLAIM: a claim's name)", k_form));
  }
  std::string path = text.substr(colon + 1);
  check_mount_path("--pvc", text, path, k_form);
  std::string volume = free_volume_name(values, job::dns_form(claim));
  set_path(values, {"storage", volume, "mountPath"}, Value::string(path));
  set_path(values, {"storage", volume, "existingClaim"}, Value::string(claim));
}

void apply_env(const std::string& text, Map& values) {
  static const RE2 k_env("([-._a-zA-Z][-._a-zA-Z0-9]*)=(.*)");
  std::string key, value;
  if (!RE2::FullMatch(text, k_env, &key, &value)) {
    bad_flag("--env", text, "is not NAME=VALUE (NAME: letters, digits, '_', '-', '.')");
  }
  set_path(values, {"env", key}, Value::string(value));
}

void apply_counts(const JobFlags& flags, Map& values) {
  if (flags.gpus) {
    auto n = parse_count(*flags.gpus, 0);
    if (!n) bad_flag("--gpus", *flags.gpus, "is not a GPU count (use a whole number >= 0)");
    set_path(values, {"gpus"}, number(*n));
  }
  if (flags.workers) apply_workers(*flags.workers, values);
  if (flags.nproc) {
    auto n = parse_count(*flags.nproc, 1);
    if (n) {
      set_path(values, {"nprocPerNode"}, number(*n));
    } else if (*flags.nproc == "gpu" || *flags.nproc == "auto") {
      set_path(values, {"nprocPerNode"}, Value::string(*flags.nproc));
    } else {
      bad_flag("--nproc-per-node", *flags.nproc,
               "is not a process count (use a whole number >= 1, gpu or auto)");
    }
  }
}

}  // namespace

bool is_quantity(std::string_view text) {
  // Kubernetes' resource.Quantity grammar: a decimal number (sign +/-; a quantity for a request
  // is never negative, so only + is accepted) with a binary (Ki..Ei), decimal (n, u, m, k, M,
  // G, T, P, E) or exponent suffix.
  static const RE2 k_quantity(
      R"(\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)([KMGTPE]i|[numkMGTPE]|[eE][-+]?[0-9]+)?)");
  return RE2::FullMatch(text, k_quantity);
}

void apply_job_flags(const JobFlags& flags, Map& values) {
  if (flags.image) set_path(values, {"image"}, Value::string(*flags.image));
  if (flags.engine) {
    static constexpr std::string_view k_engines[] = {"auto", "elasticjob", "pytorchjob",
                                                     "trainjob"};
    if (std::find(std::begin(k_engines), std::end(k_engines), *flags.engine) == std::end(k_engines))
      bad_flag("--engine", *flags.engine, "is not one of auto, elasticjob, pytorchjob, trainjob");
    set_path(values, {"engine"}, Value::string(*flags.engine));
  }
  apply_counts(flags, values);
  if (flags.gpu_resource) {
    static const RE2 k_resource(
        R"(([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)");
    if (!RE2::FullMatch(*flags.gpu_resource, k_resource)) {
      bad_flag("--gpu-resource", *flags.gpu_resource,
               "is not a resource name (e.g. nvidia.com/gpu, amd.com/gpu)");
    }
    set_path(values, {"gpuResource"}, Value::string(*flags.gpu_resource));
  }
  apply_quantity("--cpu", flags.cpu, values, "cpu");
  apply_quantity("--memory", flags.memory, values, "memory");
  apply_quantity("--shm", flags.shm, values, "shm");
  apply_spot(flags, values);
  for (const std::string& blob : flags.blobs) apply_blob(blob, values);
  for (const std::string& pvc : flags.pvcs) apply_pvc(pvc, values);
  for (const std::string& env : flags.envs) apply_env(env, values);
  if (!flags.command.empty()) {
    set_path(values, {"script"}, Value::string(flags.command.front()));
    render::go::List args;
    for (std::size_t i = 1; i < flags.command.size(); ++i) {
      args.push_back(Value::string(flags.command[i]));
    }
    set_path(values, {"scriptArgs"}, Value::list(std::move(args)));
  }
}

void set_path(Map& values, std::initializer_list<std::string_view> path, Value v) {
  Map* at = &values;
  std::size_t i = 0;
  for (std::string_view key : path) {
    if (++i == path.size()) {
      (*at)[std::string(key)] = std::move(v);
      return;
    }
    Value& next = (*at)[std::string(key)];
    if (!next.is_map()) next = Value::map();
    at = &next.mutable_map();
  }
}

Value get_path(const Map& values, std::initializer_list<std::string_view> path) {
  const Map* at = &values;
  Value found;
  for (std::string_view key : path) {
    if (at == nullptr) return {};
    auto it = at->find(key);
    if (it == at->end()) return {};
    found = it->second;
    at = found.is_map() ? &found.as_map() : nullptr;
  }
  return found;
}

}  // namespace ejob::job
