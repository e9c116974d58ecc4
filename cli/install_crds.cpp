/// `ejob install-crds [--dry-run] [--force-conflicts]`: server-side apply (field manager ejob)
/// of the ElasticJob CRD embedded from charts/elasticjob-crd, then waits until the API server
/// reports it Established, so that `ejob submit` can follow at once.

#include <iostream>
#include <thread>

#include "ejob/cli/commands.hpp"
#include "ejob/cli/embedded.hpp"
#include "ejob/cli/kube_flags.hpp"
#include "ejob/cli/manifest_objects.hpp"
#include "ejob/job/cluster_submit.hpp"
#include "ejob/util/error.hpp"

namespace ejob::cli {
namespace {

constexpr std::string_view k_crd_file = "charts/elasticjob-crd/templates/elasticjob-crd.yaml";

struct InstallFlags {
  KubeFlags kube;
  bool dry_run = false;
  bool force = false;
  int timeout_s = 60;
};

kubeapi::Json embedded_crd() {
  for (const EmbeddedFile& f : embedded_files())
    if (f.path == k_crd_file) {
      auto objects = parse_manifests(std::string(f.data));
      if (objects.size() == 1) return objects[0];
    }
  throw Error(ErrorCode::Internal, "the embedded CRD " + std::string(k_crd_file) + " is missing");
}

bool established(const kubeapi::Json& crd) {
  const auto status = crd.value("status", kubeapi::Json::object());
  for (const auto& c : status.value("conditions", kubeapi::Json::array()))
    if (c.value("type", "") == "Established" && c.value("status", "") == "True") return true;
  return false;
}

/// Watches the CRD until it is Established; Timeout after `seconds`.
void wait_established(kubeapi::Client& c, const std::string& name, int seconds) {
  const kubeapi::ResourceInfo res =
      c.resource("apiextensions.k8s.io/v1", "CustomResourceDefinition");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  bool done = false;
  kubeapi::WatchOptions o;
  o.field_selector = "metadata.name=" + name;
  o.timeout_seconds = seconds;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    c.watch(res, "", o, [&](const kubeapi::WatchEvent& e) {
      done = established(e.object);
      return !done && std::chrono::steady_clock::now() < deadline;
    });
  }
  if (!done)
    throw Error(ErrorCode::Timeout,
                "CRD " + name + " was not Established within " + std::to_string(seconds) + "s");
}

void run_install(const InstallFlags& f) {
  const kubeapi::Json crd = embedded_crd();
  KubeSession session = open_session(f.kube);
  const auto force = f.force ? kubeapi::Force::Yes : kubeapi::Force::No;
  const auto dry = f.dry_run ? kubeapi::DryRun::All : kubeapi::DryRun::None;
  const kubeapi::Json applied = session.client->apply(crd, force, dry);
  const std::string name = applied["metadata"].value("name", "");
  std::cout << job::cluster::qualified_name(applied) << " serverside-applied"
            << (f.dry_run ? " (server dry run)" : "") << '\n';
  if (f.dry_run) return;
  if (!established(applied)) wait_established(*session.client, name, f.timeout_s);
  std::cout << job::cluster::qualified_name(applied) << " established\n";
}

}  // namespace

void register_install_crds(CLI::App& app) {
  auto flags = std::make_shared<InstallFlags>();
  CLI::App* cmd =
      app.add_subcommand("install-crds", "Install or update the ElasticJob CRD in the cluster");
  add_kube_flags(*cmd, flags->kube, NamespaceFlag::Skip);
  cmd->add_flag("--dry-run", flags->dry_run, "Let the server check the CRD without storing it");
  cmd->add_flag("--force-conflicts", flags->force, "Take over fields another manager owns");
  cmd->add_option("--timeout", flags->timeout_s, "Seconds to wait for Established")
      ->check(CLI::PositiveNumber);
  cmd->callback([flags] { run_install(*flags); });
}

}  // namespace ejob::cli
