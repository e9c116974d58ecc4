// `ejob crds`: prints the ElasticJob CRD (apiextensions.k8s.io/v1) embedded from
// charts/elasticjob-crd, ready for `kubectl apply -f -`.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/embedded.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

namespace {

constexpr std::string_view k_crd_path = "charts/elasticjob-crd/templates/elasticjob-crd.yaml";

void run_crds() {
  for (const EmbeddedFile& f : embedded_files()) {
    if (f.path == k_crd_path) {
      std::cout << f.data;
      return;
    }
  }
  throw Error(ErrorCode::Internal, "the embedded CRD " + std::string(k_crd_path) + " is missing");
}

}  // namespace

void register_crds(CLI::App& app) {
  CLI::App* cmd = app.add_subcommand(
      "crds",
      "Print the ElasticJob CRD (apiextensions.k8s.io/v1); install it once per cluster "
      "with `ejob crds | kubectl apply -f -`");
  cmd->callback(run_crds);
}

}  // namespace ejob::cli
