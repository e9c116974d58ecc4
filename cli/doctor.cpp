/// `ejob doctor`: one line per finding about the current context (src/job/doctor.hpp) — the
/// API server, each engine and its operator, spot nodes, the blob CSI driver, the job namespace
/// and your rights in it. Exit 0 when `ejob submit` could run a job there, else 8.

#include "src/job/doctor.hpp"

#include <fmt/format.h>

#include <iostream>

#include "cli/commands.hpp"
#include "cli/kube_flags.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {
namespace {

void run_doctor(const job::KubeFlags& kube) {
  job::KubeSession session = open_session(kube);
  const job::DoctorReport report = job::examine_cluster(session, job::job_namespace(kube));
  size_t width = 0;
  for (const job::Finding& f : report.findings) width = std::max(width, f.topic.size());
  for (const job::Finding& f : report.findings)
    std::cout << fmt::format("{:<{}}  {:<7}  {}\n", f.topic, width, job::verdict_word(f.verdict),
                             f.detail);
  if (report.submit_possible) return;
  std::cout.flush();
  throw Error(ErrorCode::NotFound,
              "`ejob submit` cannot run a job in this context: see the problems above");
}

}  // namespace

void register_doctor(CLI::App& app) {
  auto kube = std::make_shared<job::KubeFlags>();
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "Check what the current context offers a job: engines, operators, spot nodes, "
      "blob storage, the namespace and your rights");
  add_kube_flags(*cmd, *kube);
  cmd->callback([kube] { run_doctor(*kube); });
}

}  // namespace ejob::cli
