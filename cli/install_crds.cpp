/// `ejob install-crds [--dry-run] [--force-conflicts]`: server-side apply (field manager ejob)
/// of the ElasticJob CRD embedded from charts/elasticjob-crd, then waits until the API server
/// reports it Established, so that `ejob submit` can follow at once.

#include <iostream>

#include "cli/commands.hpp"
#include "cli/embedded.hpp"
#include "cli/kube_flags.hpp"
#include "src/job/cluster_submit.hpp"
#include "src/job/crd_install.hpp"
#include "src/job/engine_choice.hpp"
#include "src/job/manifest_objects.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {
namespace {

constexpr std::string_view k_crd_file = "charts/elasticjob-crd/templates/elasticjob-crd.yaml";

struct InstallFlags {
  KubeFlags kube;
  bool dry_run = false;
  bool force = false;
  int timeout_s = 60;
};

job::Json embedded_crd() {
  for (const EmbeddedFile& f : embedded_files())
    if (f.path == k_crd_file) {
      auto objects = job::parse_manifests(std::string(f.data));
      if (objects.size() == 1) return objects[0];
    }
  throw Error(ErrorCode::Internal, "the embedded CRD " + std::string(k_crd_file) + " is missing");
}

void run_install(const InstallFlags& f) {
  const job::Json crd = embedded_crd();
  job::KubeSession session = open_session(f.kube);
  const job::Json applied = job::apply_crd(*session.client, crd, {f.force, f.dry_run});
  job::forget_served_engines(session);  // `--engine auto` asks again what the cluster serves
  const std::string name = applied["metadata"].value("name", "");
  std::cout << job::cluster::qualified_name(applied) << " serverside-applied"
            << (f.dry_run ? " (server dry run)" : "") << '\n';
  if (f.dry_run) return;
  if (!job::crd_established(applied)) job::wait_crd_established(*session.client, name, f.timeout_s);
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
