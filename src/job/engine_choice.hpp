#pragma once
/// Which engine (engine.hpp) runs a job: `--engine` or the job file's `engine:`, else `auto`.
/// On a cluster, `auto` asks what the current context serves — one discovery request,
/// remembered per context and API server for five minutes in $XDG_CACHE_HOME/ejob (else
/// ~/.cache/ejob), so that a second submit asks nothing — and picks the one that can run the
/// job: the maintained operators first (PyTorchJob, TrainJob), TrainJob only for a static
/// world size, ElasticJob last. `ejob template` never asks a cluster: there `auto` is the
/// chart's ElasticJob.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "src/job/engine.hpp"
#include "src/job/job_request.hpp"
#include "src/job/kube_session.hpp"

namespace ejob::job {

/// The engine a job's values ask for: their `engine` ("auto" when absent or not a string).
std::string wanted_engine(const Job& job);

/// The job's workers as its values say (workers.min, workers.max; max null = min).
struct WorkerSpan {
  long min = 1;
  long max = 1;
};
WorkerSpan worker_span(const Job& job);

struct EngineChoice {
  const Engine* engine = nullptr;
  /// Said when more than one served engine could run the job: which was chosen and why.
  std::string note;
};

/// Chooses among the `served` engines (all_engines' order) for `wanted` ("auto" or a name).
/// Throws ejob::Error: Usage for an unknown name; NotFound when the engine wanted, or for
/// `auto` any, is not served (naming each engine and how to install it); Input when only
/// engines that cannot run the job are (an elastic range on TrainJob alone).
EngineChoice choose_engine(const std::string& wanted, const std::vector<const Engine*>& served,
                           const WorkerSpan& span);

/// For a cluster submit: chooses the engine of `job` (resolved from `request`) among `served`
/// and, when its values left it to `auto`, writes it into request.flags.engine so that every
/// rendering (a re-drawn name too) renders it. A chart without an `engine` value (--chart)
/// renders what it renders: no choice (engine nullptr).
EngineChoice settle_engine(JobRequest& request, const Job& job,
                           const std::vector<const Engine*>& served);

/// The engines the session's cluster serves: from the cache when it is fresh, else asked
/// (aggregated discovery: one request; a server without it is asked per group) and cached.
std::vector<const Engine*> served_engines_cached(const KubeSession& session);

/// Forgets what the cache says of the session's cluster (a submit found it stale).
void forget_served_engines(const KubeSession& session);

}  // namespace ejob::job
