#include "src/job/naming.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <random>

#include "src/util/error.hpp"

namespace ejob::job {

namespace {

constexpr std::string_view k_alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

char to_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

/// `[a-z]([-a-z0-9]*[a-z0-9])?` of any length.
bool has_label_form(std::string_view name) {
  if (name.empty() || !(name.front() >= 'a' && name.front() <= 'z') || name.back() == '-') {
    return false;
  }
  for (char c : name) {
    if (!is_lower_alnum(c) && c != '-') return false;
  }
  return true;
}

uint32_t random_device_draw() {
  static std::random_device device;
  return device();
}

[[noreturn]] void too_long(std::string_view what, std::size_t length, std::size_t limit,
                           const NameBudget& budget) {
  throw Error(ErrorCode::Usage,
              fmt::format("--name: {} has {} characters, the limit is {} (so that {} stays a "
                          "DNS-1035 label of at most {} characters)",
                          what, length, limit, budget.longest, k_max_label));
}

}  // namespace

NameBudget name_budget(int64_t max_workers, const std::vector<std::string>& blob_volumes) {
  NameBudget budget{k_max_label - std::string_view("-etcd-service").size(), "NAME-etcd-service"};
  auto consider = [&](const std::string& suffix) {
    std::size_t limit = suffix.size() >= k_max_label ? 0 : k_max_label - suffix.size();
    if (limit < budget.max_length) budget = {limit, "NAME" + suffix};
  };
  consider(fmt::format("-worker-{}", max_workers > 0 ? max_workers - 1 : 0));
  for (const std::string& volume : blob_volumes) consider("-" + volume);
  return budget;
}

std::string dns_form(std::string_view model) {
  std::string out;
  bool pending_dash = false;
  for (char raw : model) {
    char c = to_lower(raw);
    if (!is_lower_alnum(c)) {
      pending_dash = !out.empty();
      continue;
    }
    if (pending_dash) out += '-';
    pending_dash = false;
    out += c;
  }
  if (!out.empty() && !(out[0] >= 'a' && out[0] <= 'z')) out = "job-" + out;
  return out;
}

bool is_dns1035_label(std::string_view name) {
  return has_label_form(name) && name.size() <= k_max_label;
}

std::string unique_job_name(std::string_view model, const NameBudget& budget,
                            const RandomSource& random) {
  std::string base = dns_form(model);
  if (base.empty()) {
    throw Error(
        ErrorCode::Usage,
        fmt::format("--name: \"{}\" has no letter or digit to build a job name from", model));
  }
  std::size_t limit =
      budget.max_length > k_suffix_length + 1 ? budget.max_length - k_suffix_length - 1 : 0;
  if (base.size() > limit) {
    too_long(fmt::format("\"{}\" (before the 6-character random suffix)", base), base.size(), limit,
             budget);
  }
  const RandomSource& draw = random ? random : RandomSource(random_device_draw);
  base += '-';
  for (std::size_t i = 0; i < k_suffix_length; ++i) base += k_alphabet[draw() % k_alphabet.size()];
  return base;
}

void check_exact_name(std::string_view name, const NameBudget& budget) {
  if (!has_label_form(name)) {
    throw Error(ErrorCode::Usage,
                fmt::format("--name: \"{}\" is not a valid --exact-name: use lower-case letters, "
                            "digits and '-', starting with a letter and ending with a letter or "
                            "digit",
                            name));
  }
  if (name.size() > budget.max_length) {
    too_long(fmt::format("\"{}\"", name), name.size(), budget.max_length, budget);
  }
}

}  // namespace ejob::job
