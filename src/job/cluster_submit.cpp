#include "src/job/cluster_submit.hpp"

#include <future>
#include <mutex>
#include <optional>
#include <random>

#include "src/job/engine.hpp"
#include "src/kubeapi/api_error.hpp"
#include "src/util/error.hpp"

namespace ejob::job::cluster {

using namespace ejob::kubeapi;  // the API client this submit drives and its errors
namespace {

const std::string k_job_kinds = "ElasticJob, PyTorchJob or TrainJob";

std::string random_id() {
  static constexpr char k_chars[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device rd;
  std::string id;
  for (int i = 0; i < 16; ++i) id += k_chars[rd() % 36];
  return id;
}

std::string name_of(const Json& o) { return o["metadata"].value("name", ""); }

/// What happened to one create.
enum class Outcome { Created, Taken };

struct Sent {
  Outcome outcome = Outcome::Created;
  std::optional<Json> object;  ///< the server's copy when created (or found to be ours)
};

bool is_ours(const Json& existing, const std::string& submission) {
  const Json ann = existing["metadata"].value("annotations", Json::object());
  return ann.value(k_submission_annotation, "") == submission;
}

/// Creates `object` in `res`; after an ambiguous failure, tries again and, on AlreadyExists,
/// looks whether the object there is this submit's. The tries share one request timeout (a
/// hung server gets one, not max_create_attempts of them): no try starts with less than half
/// of it left, where it would most likely time out as the one before.
Sent create_once(Client& c, const ResourceInfo& res, const Json& object,
                 const std::string& submission, const SubmitOptions& o) {
  const std::chrono::milliseconds budget = c.transport().request_timeout();
  const auto deadline = std::chrono::steady_clock::now() + budget;
  auto out_of_time = [&] {
    return budget.count() > 0 && std::chrono::steady_clock::now() + budget / 2 >= deadline;
  };
  for (int attempt = 1;; ++attempt) {
    try {
      return {Outcome::Created, c.create(res, object, o.dry_run)};
    } catch (const ApiError& e) {
      if (e.http_status() == 409 && e.reason() == "AlreadyExists") {
        const std::string ns = res.namespaced ? object["metadata"].value("namespace", "") : "";
        std::optional<Json> there = c.try_get(res, ns, name_of(object));
        if (there && is_ours(*there, submission)) return {Outcome::Created, there};
        if (there || attempt >= o.max_create_attempts) return {Outcome::Taken, std::nullopt};
        continue;  // gone again meanwhile: try once more
      }
      if (e.http_status() < 500 || attempt >= o.max_create_attempts || out_of_time()) throw;
    } catch (const TransportError& e) {
      // Not sent (refused, no connection in time): the transport found no point in retrying.
      if (!e.sent() || attempt >= o.max_create_attempts || out_of_time()) throw;
    }
  }
}

/// An object this submit sent, with the resource it was sent to: the rollback deletes it
/// there, without a discovery that a failing server would fail too.
struct SentObject {
  ResourceInfo res;
  Json object;
};

/// Objects created so far, and those whose create failed in a way that may have created
/// them, for the rollback.
struct Created {
  std::vector<SentObject> objects;
  std::vector<SentObject> uncertain;
  std::mutex mutex;
  void add(const ResourceInfo& res, const Json& o) {
    std::lock_guard lock(mutex);
    objects.push_back({res, o});
  }
  void maybe(const ResourceInfo& res, const Json& o) {
    std::lock_guard lock(mutex);
    uncertain.push_back({res, o});
  }
};

std::string namespace_in(const SentObject& s) {
  return s.res.namespaced ? s.object["metadata"].value("namespace", "") : "";
}

/// Deletes what this submit created (newest first), each with a uid precondition. Errors
/// here are swallowed: the error that caused the rollback is the one to report.
void roll_back(Client& c, Created& created, const std::string& submission) {
  for (const SentObject& s : created.uncertain) {
    try {
      std::optional<Json> there = c.try_get(s.res, namespace_in(s), name_of(s.object));
      if (there && is_ours(*there, submission))
        created.objects.insert(created.objects.begin(), {s.res, *there});
    } catch (const Error&) {
    }
  }
  for (auto it = created.objects.rbegin(); it != created.objects.rend(); ++it) {
    try {
      c.remove(it->res, namespace_in(*it), name_of(it->object), Propagation::Background,
               DryRun::None, it->object["metadata"].value("uid", ""));
    } catch (const Error&) {
    }
  }
  created.objects.clear();
}

Json owner_reference(const Json& job) {
  return {{"apiVersion", job.value("apiVersion", "")},
          {"kind", job.value("kind", "")},
          {"name", name_of(job)},
          {"uid", job["metadata"].value("uid", "")},
          {"blockOwnerDeletion", true}};
}

bool same_resource(const ResourceInfo& a, const ResourceInfo& b) {
  return a.group == b.group && a.version == b.version && a.plural == b.plural &&
         a.namespaced == b.namespaced;
}

/// Namespaces, annotates and checks one rendering; returns the index of the job.
size_t prepare(Client& c, std::vector<Json>& objects, const std::string& submission,
               const SubmitOptions& o) {
  std::optional<size_t> job;
  for (size_t i = 0; i < objects.size(); ++i) {
    Json& obj = objects[i];
    if (!obj.is_object() || !obj.contains("kind"))
      throw Error(ErrorCode::Input, "a rendered document is not a Kubernetes object");
    const bool is_job = engine_of(obj) != nullptr;
    if (is_job) {
      if (job) throw Error(ErrorCode::Input, "the rendered job holds more than one " + k_job_kinds);
      job = i;
    }
    obj["metadata"]["annotations"][k_submission_annotation] = submission;
    const bool namespaced =
        is_job ? own_job_resource(obj).namespaced : c.resource_of(obj).namespaced;
    if (namespaced && obj["metadata"].value("namespace", "").empty())
      obj["metadata"]["namespace"] = o.name_space;
  }
  if (!job) throw Error(ErrorCode::Input, "the rendered job holds no " + k_job_kinds);
  return *job;
}

/// Whether a create that failed with `e` may still have made the object: a connection broken
/// after the request went out, or a 5xx, may hide a success; a 4xx answer, a request never
/// sent (refused, no connection in time), missing credentials or bad input cannot.
bool may_have_made(const Error& e) {
  if (const auto* api = dynamic_cast<const ApiError*>(&e)) return api->http_status() >= 500;
  if (const auto* transport = dynamic_cast<const TransportError*>(&e)) return transport->sent();
  return false;
}

/// create_once, noting what was created (or may have been) for the rollback.
Sent create_noted(Client& c, const ResourceInfo& res, const Json& object,
                  const std::string& submission, const SubmitOptions& o, Created& created) {
  Sent s;
  try {
    s = create_once(c, res, object, submission, o);
  } catch (const Error& e) {
    if (o.dry_run == DryRun::None && may_have_made(e)) created.maybe(res, object);
    throw;
  }
  if (s.outcome == Outcome::Created && o.dry_run == DryRun::None) created.add(res, *s.object);
  return s;
}

/// Creates the job. The first time (`res` empty), the CRD check — discovery of the job's
/// group/version — runs alongside the create, and its verdict comes first: when the kind is
/// not served, the error is NotFound saying how to install its engine (the create then got
/// a 404 and made nothing). Sets `res` to the served resource. Throws after noting in
/// `created` what may need a rollback.
Sent create_job(Client& c, const Json& job, std::optional<ResourceInfo>& res,
                const std::string& submission, const SubmitOptions& o, Created& created) {
  if (res) return create_noted(c, *res, job, submission, o, created);
  auto served = std::async(std::launch::async, [&c, &job] { return job_resource(c, job); });
  const ResourceInfo assumed = own_job_resource(job);
  Sent sent;
  std::exception_ptr failed;
  try {
    sent = create_noted(c, assumed, job, submission, o, created);
  } catch (...) {
    failed = std::current_exception();
  }
  res = served.get();
  if (failed && !same_resource(*res, assumed))  // served elsewhere than ejob's CRD says
    return create_noted(c, *res, job, submission, o, created);
  if (failed) std::rethrow_exception(failed);
  return sent;
}

std::string taken_message(const Json& o, const SubmitOptions& opts, bool job) {
  const std::string where = o["metadata"].contains("namespace")
                                ? " in namespace " + o["metadata"].value("namespace", "")
                                : "";
  std::string msg = o.value("kind", "") + " " + name_of(o) + " already exists" + where;
  if (job && opts.naming == NameChoice::Exact)
    return msg + "; choose another --name, or drop --exact-name to get a unique suffix";
  if (job)
    return msg + " (and " + std::to_string(opts.max_redraws) + " re-drawn names were taken too)";
  return msg + " and was not made by ejob for this job; nothing was created";
}

/// Sends the dependents concurrently; returns the first failure (nullptr when all made it).
std::exception_ptr send_dependents(Client& c, std::vector<Json>& objects, size_t job_index,
                                   const Json& job, const std::string& submission,
                                   const SubmitOptions& o, Created& created,
                                   std::vector<Json>& results) {
  std::vector<std::future<void>> running;
  std::vector<std::exception_ptr> errors(objects.size());
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i == job_index) continue;
    running.push_back(std::async(std::launch::async, [&, i] {
      try {
        Json& obj = objects[i];
        const ResourceInfo res = c.resource_of(obj);
        if (res.namespaced)
          obj["metadata"]["ownerReferences"] = Json::array({owner_reference(job)});
        Sent s = create_noted(c, res, obj, submission, o, created);
        if (s.outcome == Outcome::Taken)
          throw Error(ErrorCode::Conflict, taken_message(obj, o, false));
        results[i] = *s.object;
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }));
  }
  for (auto& f : running) f.get();
  for (auto& e : errors)
    if (e) return e;
  return nullptr;
}

}  // namespace

ResourceInfo own_job_resource(const Json& job) {
  ResourceInfo res = engine_resource(job_engine(job));
  const std::string api_version = job.value("apiVersion", "");
  res.version = api_version.substr(api_version.find('/') + 1);
  return res;
}

ResourceInfo job_resource(Client& c, const Json& job) {
  const std::string api_version = job.value("apiVersion", "");
  const Engine& engine = job_engine(job);
  auto res = c.find_resource(api_version, engine.kind);
  if (res) return *res;
  if (engine.id == EngineId::ElasticJob)
    throw Error(ErrorCode::NotFound,
                "the cluster does not serve ElasticJob (" + api_version +
                    "): its CRD is not installed; install it with `ejob install-crds`");
  throw Error(ErrorCode::NotFound, std::string("the cluster does not serve ") + engine.kind + " (" +
                                       api_version + "), engine " + engine.name + ": install " +
                                       engine.project + ": " + engine.install);
}

std::string qualified_name(const Json& object) {
  std::string kind = object.value("kind", "");
  for (char& ch : kind) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::string api_version = object.value("apiVersion", "");
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : "." + api_version.substr(0, slash);
  return kind + group + "/" + name_of(object);
}

namespace {

/// The namespace a create was refused for because it does not exist, else "".
std::string missing_namespace(const ApiError& e) {
  return e.http_status() == 404 && e.details().kind == "namespaces" ? e.details().name : "";
}

/// Creates namespace `ns` for the job; returns it as made.
Json create_job_namespace(Client& c, const std::string& ns, DryRun dry_run) {
  Json object = {
      {"apiVersion", "v1"},
      {"kind", "Namespace"},
      {"metadata", {{"name", ns}, {"labels", {{"app.kubernetes.io/created-by", "ejob"}}}}}};
  try {
    return c.create(object, dry_run);
  } catch (const ApiError& e) {
    if (e.reason() != "AlreadyExists") throw;  // made meanwhile by someone else: use it
    return Json();
  }
}

/// A TrainJob's runtime must exist before the TrainJob is sent (Trainer's webhook refuses it
/// otherwise, as a 403 that reads like missing rights): NotFound naming it and how to list them.
void check_runtime(Client& c, const Json& job) {
  if (job_engine(job).id != EngineId::TrainJob) return;
  const Json& ref = job["spec"].value("runtimeRef", Json::object());
  const std::string kind = ref.value("kind", "ClusterTrainingRuntime");
  const std::string name = ref.value("name", "");
  const bool cluster_wide = kind == "ClusterTrainingRuntime";
  const ResourceInfo res{"trainer.kubeflow.org", "v1alpha1",
                         cluster_wide ? "clustertrainingruntimes" : "trainingruntimes", kind,
                         !cluster_wide};
  const std::string ns = cluster_wide ? "" : job["metadata"].value("namespace", "");
  if (c.try_get(res, ns, name)) return;
  throw Error(ErrorCode::NotFound,
              "trainjob: the " + kind + " \"" + name + "\" does not exist" +
                  (cluster_wide ? "" : " in namespace " + ns) + " (`kubectl get " + res.plural +
                  (cluster_wide ? "" : " -n " + ns) +
                  "` lists them; trainjob.runtime.name and .kind choose one); nothing was created");
}

SubmitResult submit_once(Client& c, const RenderObjects& render, const SubmitOptions& o) {
  const std::string submission = random_id();
  SubmitResult result;
  std::optional<ResourceInfo> job_res;  // known once the CRD check has answered
  for (int draw = 0;; ++draw) {
    std::vector<Json> objects = render();
    const size_t job_index = prepare(c, objects, submission, o);
    // A TrainJob's runtime is looked up beside the create (one round trip, not two); when it
    // does not exist, whatever the create made is taken back and that is the error.
    std::future<void> runtime;
    if (draw == 0)
      runtime = std::async(std::launch::async,
                           [&c, &objects, job_index] { check_runtime(c, objects[job_index]); });
    Created created;
    Sent job;
    try {
      job = create_job(c, objects[job_index], job_res, submission, o, created);
      if (runtime.valid()) runtime.get();
    } catch (...) {
      std::exception_ptr failed = std::current_exception();
      if (runtime.valid()) try {
          runtime.get();
        } catch (...) {
          failed = std::current_exception();  // the missing runtime explains a webhook's refusal
        }
      if (o.dry_run == DryRun::None) roll_back(c, created, submission);
      std::rethrow_exception(failed);
    }
    if (job.outcome == Outcome::Taken) {
      if (o.naming == NameChoice::Drawn && draw < o.max_redraws) {
        ++result.redraws;
        continue;
      }
      throw Error(ErrorCode::Conflict, taken_message(objects[job_index], o, true));
    }
    std::vector<Json> results(objects.size());
    results[job_index] = *job.object;
    if (std::exception_ptr failed =
            send_dependents(c, objects, job_index, *job.object, submission, o, created, results)) {
      roll_back(c, created, submission);
      std::rethrow_exception(failed);
    }
    result.job = *job.object;
    result.objects = std::move(results);
    return result;
  }
}

}  // namespace

SubmitResult submit_job(Client& c, const RenderObjects& render, const SubmitOptions& o) {
  try {
    return submit_once(c, render, o);
  } catch (const ApiError& e) {
    const std::string ns = missing_namespace(e);
    if (ns.empty()) throw;
    if (!o.create_namespace || o.dry_run != DryRun::None)
      throw Error(ErrorCode::NotFound,
                  "namespace \"" + ns +
                      "\" does not exist: create it with `kubectl create namespace " + ns +
                      "`, or submit with --create-namespace" +
                      (o.dry_run != DryRun::None ? " (not with --dry-run)" : ""));
    const Json made = create_job_namespace(c, ns, o.dry_run);
    try {
      return submit_once(c, render, o);
    } catch (...) {
      if (!made.is_null())  // made by this call a moment ago, and submit_once took its objects back
        c.remove(c.resource("v1", "Namespace"), "", ns, Propagation::Background, DryRun::None,
                 made["metadata"].value("uid", ""));
      throw;
    }
  }
}

}  // namespace ejob::job::cluster
