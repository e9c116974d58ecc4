#include "ejob/cli/job_table.hpp"

#include "ejob/kubeapi/exec_plugin.hpp"

namespace ejob::cli {

std::string job_status(const kubeapi::Json& job) {
  const auto status = job.value("status", kubeapi::Json::object());
  bool seen[5] = {};
  static constexpr const char* k_order[] = {"Succeeded", "Failed", "Restarting", "Running",
                                            "Created"};
  for (const auto& c : status.value("conditions", kubeapi::Json::array())) {
    if (c.value("status", "") != "True") continue;
    for (int i = 0; i < 5; ++i)
      if (c.value("type", "") == k_order[i]) seen[i] = true;
  }
  for (int i = 0; i < 5; ++i)
    if (seen[i]) return k_order[i];
  return "Pending";
}

std::string format_age(std::chrono::seconds age) {
  const long s = std::max<long>(0, static_cast<long>(age.count()));
  auto two = [](long a, const char* ua, long b, const char* ub) {
    return std::to_string(a) + ua + (b ? std::to_string(b) + ub : "");
  };
  if (s < 60) return std::to_string(s) + "s";
  if (s < 600) return two(s / 60, "m", s % 60, "s");
  if (s < 3600) return std::to_string(s / 60) + "m";
  if (s < 36000) return two(s / 3600, "h", (s % 3600) / 60, "m");
  if (s < 86400) return std::to_string(s / 3600) + "h";
  if (s < 86400 * 8) return two(s / 86400, "d", (s % 86400) / 3600, "h");
  return std::to_string(s / 86400) + "d";
}

std::string object_age(const kubeapi::Json& obj, std::chrono::system_clock::time_point now) {
  const std::string created =
      obj.value("metadata", kubeapi::Json::object()).value("creationTimestamp", "");
  auto t = kubeapi::parse_rfc3339(created);
  if (!t) return "<unknown>";
  return format_age(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

}  // namespace ejob::cli
