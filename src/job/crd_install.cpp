#include "src/job/crd_install.hpp"

#include <chrono>

#include "src/util/error.hpp"

namespace ejob::job {

Json apply_crd(kubeapi::Client& client, const Json& crd, const CrdApply& how) {
  const auto force = how.force ? kubeapi::Force::Yes : kubeapi::Force::No;
  const auto dry = how.dry_run ? kubeapi::DryRun::All : kubeapi::DryRun::None;
  return client.apply(crd, force, dry);
}

bool crd_established(const Json& crd) {
  const auto status = crd.value("status", Json::object());
  for (const auto& c : status.value("conditions", Json::array()))
    if (c.value("type", "") == "Established" && c.value("status", "") == "True") return true;
  return false;
}

void wait_crd_established(kubeapi::Client& client, const std::string& name, int seconds) {
  const kubeapi::ResourceInfo res =
      client.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool done = false;
  kubeapi::WatchOptions o;
  o.field_selector = "metadata.name=" + name;
  o.timeout_seconds = seconds;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    client.watch(res, "", o, [&](const kubeapi::WatchEvent& e) {
      done = crd_established(e.object);
      return !done && std::chrono::steady_clock::now() < deadline;
    });
  }
  if (!done)
    throw Error(ErrorCode::Timeout,
                "CRD " + name + " was not Established within " + std::to_string(seconds) + "s");
}

}  // namespace ejob::job
