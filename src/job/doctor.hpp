#pragma once
/// `ejob doctor`: what the current context offers a job, one finding per line — the API
/// server and its version, each engine (served? its operator's Deployment ready? TrainJob's
/// default runtime there?), spot node pools per provider (src/spot's labels), the Azure Blob
/// CSI driver, the job namespace and the rights ejob needs in it (SelfSubjectAccessReview).
/// Every finding is gathered even when an earlier one fails; `submit_possible` says whether
/// `ejob submit` could run a job there.

#include <string>
#include <vector>

#include "src/job/kube_session.hpp"

namespace ejob::job {

struct Finding {
  enum class Verdict { Ok, Warning, Problem };
  Verdict verdict = Verdict::Ok;
  std::string topic;   ///< "cluster", "engine pytorchjob", "spot nodes", ...
  std::string detail;  ///< what was found, and what to do about a problem
};

struct DoctorReport {
  std::vector<Finding> findings;
  /// An engine is served with a ready operator, the namespace exists and jobs of it can be
  /// created there.
  bool submit_possible = false;
};

/// Examines the session's cluster for jobs in namespace `ns`.
DoctorReport examine_cluster(KubeSession& session, const std::string& ns);

/// "ok", "warning", "problem".
const char* verdict_word(Finding::Verdict v);

}  // namespace ejob::job
