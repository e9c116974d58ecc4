#pragma once
/// Sends one job's rendered objects (the job — an ElasticJob, PyTorchJob or TrainJob, see
/// engine.hpp — plus its etcd Service and Pod for an ElasticJob, and storage) so that nothing
/// existing is ever overwritten and nothing is left half-made:
///
/// 1. discovery: is the job's group/version served? (else NotFound saying how to install its
///    engine) — the only request besides one create per object. It runs alongside the job's
///    create (sent to the path its engine's CRD defines), and its verdict comes first: without
///    the CRD that create got a 404 and made nothing;
/// 2. every object gets the annotation `ejob.io/submission` (a random id of this submit), so
///    that an AlreadyExists answer after an ambiguous failure (a dropped connection, a 5xx,
///    curl re-sending on a stale connection) can be told apart from someone else's object;
/// 3. the job is created (POST, never apply): a taken name is re-drawn by rendering
///    again (NameChoice::Drawn, up to 3 times) or refused (NameChoice::Exact);
/// 4. the other objects get an ownerReference to the job (namespaced ones; a
///    PersistentVolume is cluster-scoped and cannot be owned by a namespaced object: it is
///    found by label on delete) and are created concurrently;
/// 5. on any failure, what this submit created is deleted again (uid preconditions, so a
///    namesake made by someone else is never touched), then the error is reported.
/// Creates that failed ambiguously are retried a few times before giving up.

#include <functional>
#include <string>
#include <vector>

#include "src/kubeapi/client.hpp"

namespace ejob::job::cluster {

using kubeapi::Client;
using kubeapi::DryRun;
using kubeapi::Json;
using kubeapi::ResourceInfo;

/// Whether the job name may be re-drawn when taken.
enum class NameChoice { Drawn, Exact };

/// Renders the job's objects again (each call draws a new name when names are drawn).
using RenderObjects = std::function<std::vector<Json>()>;

struct SubmitOptions {
  NameChoice naming = NameChoice::Drawn;
  DryRun dry_run = DryRun::None;
  std::string name_space;  ///< for objects without metadata.namespace
  int max_redraws = 3;
  int max_create_attempts = 4;
  /// A job namespace that does not exist is created (and removed again when the submit then
  /// fails), as Helm's --create-namespace; without it that is NotFound saying how to make one.
  bool create_namespace = false;
};

struct SubmitResult {
  Json job;                   ///< the job as the server returned it
  std::vector<Json> objects;  ///< every object as returned, in the order rendered
  int redraws = 0;            ///< names that were taken and re-drawn
};

/// The annotation that marks the objects of one submit.
inline constexpr const char* k_submission_annotation = "ejob.io/submission";

/// Submits the objects `render` returns. Throws ejob::Error: NotFound when the CRD is not
/// served, Conflict when the (exact) name or a dependent's name is taken, Input when the
/// objects hold no or several jobs, and the client's errors otherwise — always after
/// removing what this call created.
SubmitResult submit_job(Client& client, const RenderObjects& render, const SubmitOptions& options);

/// The resource of job object `job` (an ElasticJob, PyTorchJob or TrainJob) at the path its
/// engine's CRD defines, to send a request without waiting for discovery; only discovery
/// (job_resource) says it is served.
ResourceInfo own_job_resource(const Json& job);

/// The served resource of job object `job`. Throws ejob::Error(NotFound) saying how to
/// install its engine (`ejob install-crds` for ElasticJob) when the cluster does not serve it.
ResourceInfo job_resource(Client& client, const Json& job);

/// "kind.group/name" as `kubectl -o name` prints an object.
std::string qualified_name(const Json& object);

}  // namespace ejob::job::cluster
