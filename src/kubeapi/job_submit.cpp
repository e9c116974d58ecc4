#include "ejob/kubeapi/job_submit.hpp"

#include <future>
#include <optional>
#include <random>

#include "ejob/kubeapi/api_error.hpp"
#include "ejob/util/error.hpp"

namespace ejob::kubeapi {
namespace {

constexpr const char* k_job_kind = "ElasticJob";

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

/// Creates `object`; after an ambiguous failure, tries again and, on AlreadyExists, looks
/// whether the object there is this submit's.
Sent create_once(Client& c, const Json& object, const std::string& submission,
                 const SubmitOptions& o) {
  for (int attempt = 1;; ++attempt) {
    try {
      return {Outcome::Created, c.create(object, o.dry_run)};
    } catch (const ApiError& e) {
      if (e.http_status() == 409 && e.reason() == "AlreadyExists") {
        const ResourceInfo res = c.resource_of(object);
        const std::string ns = res.namespaced ? object["metadata"].value("namespace", "") : "";
        std::optional<Json> there = c.try_get(res, ns, name_of(object));
        if (there && is_ours(*there, submission)) return {Outcome::Created, there};
        if (there || attempt >= o.max_create_attempts) return {Outcome::Taken, std::nullopt};
        continue;  // gone again meanwhile: try once more
      }
      if (e.http_status() < 500 || attempt >= o.max_create_attempts) throw;
    } catch (const Error& e) {
      if (e.code() != ErrorCode::Transport || attempt >= o.max_create_attempts) throw;
    }
  }
}

/// Objects created so far, and those whose create failed in a way that may have created
/// them, for the rollback.
struct Created {
  std::vector<Json> objects;
  std::vector<Json> uncertain;
  std::mutex mutex;
  void add(const Json& o) {
    std::lock_guard lock(mutex);
    objects.push_back(o);
  }
  void maybe(const Json& o) {
    std::lock_guard lock(mutex);
    uncertain.push_back(o);
  }
};

/// Deletes what this submit created (newest first), each with a uid precondition. Errors
/// here are swallowed: the error that caused the rollback is the one to report.
void roll_back(Client& c, Created& created, const std::string& submission) {
  for (const Json& o : created.uncertain) {
    try {
      const ResourceInfo res = c.resource_of(o);
      const std::string ns = res.namespaced ? o["metadata"].value("namespace", "") : "";
      std::optional<Json> there = c.try_get(res, ns, name_of(o));
      if (there && is_ours(*there, submission))
        created.objects.insert(created.objects.begin(), *there);
    } catch (const Error&) {
    }
  }
  for (auto it = created.objects.rbegin(); it != created.objects.rend(); ++it) {
    try {
      const ResourceInfo res = c.resource_of(*it);
      const std::string ns = res.namespaced ? (*it)["metadata"].value("namespace", "") : "";
      c.remove(res, ns, name_of(*it), Propagation::Background, DryRun::None,
               (*it)["metadata"].value("uid", ""));
    } catch (const Error&) {
    }
  }
  created.objects.clear();
}

Json owner_reference(const Json& job) {
  return {{"apiVersion", job.value("apiVersion", "")},
          {"kind", k_job_kind},
          {"name", name_of(job)},
          {"uid", job["metadata"].value("uid", "")},
          {"blockOwnerDeletion", true}};
}

/// Namespaces, annotates and checks one rendering; returns the index of the ElasticJob.
size_t prepare(Client& c, std::vector<Json>& objects, const std::string& submission,
               const SubmitOptions& o) {
  std::optional<size_t> job;
  for (size_t i = 0; i < objects.size(); ++i) {
    Json& obj = objects[i];
    if (!obj.is_object() || !obj.contains("kind"))
      throw Error(ErrorCode::Input, "a rendered document is not a Kubernetes object");
    if (obj["kind"] == k_job_kind) {
      if (job) throw Error(ErrorCode::Input, "the rendered job holds more than one ElasticJob");
      job = i;
    }
    obj["metadata"]["annotations"][k_submission_annotation] = submission;
    if (c.resource_of(obj).namespaced && obj["metadata"].value("namespace", "").empty())
      obj["metadata"]["namespace"] = o.name_space;
  }
  if (!job) throw Error(ErrorCode::Input, "the rendered job holds no ElasticJob");
  return *job;
}

void check_crd(Client& c, const Json& job) { job_resource(c, job.value("apiVersion", "")); }

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
        if (c.resource_of(obj).namespaced)
          obj["metadata"]["ownerReferences"] = Json::array({owner_reference(job)});
        Sent s;
        try {
          s = create_once(c, obj, submission, o);
        } catch (const Error&) {
          if (o.dry_run == DryRun::None) created.maybe(obj);
          throw;
        }
        if (s.outcome == Outcome::Taken)
          throw Error(ErrorCode::Conflict, taken_message(obj, o, false));
        results[i] = *s.object;
        if (o.dry_run == DryRun::None) created.add(*s.object);
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

ResourceInfo job_resource(Client& c, const std::string& api_version) {
  auto res = c.find_resource(api_version, k_job_kind);
  if (!res)
    throw Error(ErrorCode::NotFound,
                "the cluster does not serve ElasticJob (" + api_version +
                    "): its CRD is not installed; install it with `ejob install-crds`");
  return *res;
}

std::string qualified_name(const Json& object) {
  std::string kind = object.value("kind", "");
  for (char& ch : kind) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const std::string api_version = object.value("apiVersion", "");
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : "." + api_version.substr(0, slash);
  return kind + group + "/" + name_of(object);
}

SubmitResult submit_job(Client& c, const RenderObjects& render, const SubmitOptions& o) {
  const std::string submission = random_id();
  SubmitResult result;
  for (int draw = 0;; ++draw) {
    std::vector<Json> objects = render();
    if (draw == 0)
      for (const Json& obj : objects)
        if (obj.is_object() && obj.value("kind", "") == k_job_kind) check_crd(c, obj);
    const size_t job_index = prepare(c, objects, submission, o);
    Created created;
    Sent job;
    try {
      job = create_once(c, objects[job_index], submission, o);
    } catch (const Error&) {
      if (o.dry_run == DryRun::None) {
        created.maybe(objects[job_index]);
        roll_back(c, created, submission);
      }
      throw;
    }
    if (job.outcome == Outcome::Taken) {
      if (o.naming == NameChoice::Drawn && draw < o.max_redraws) {
        ++result.redraws;
        continue;
      }
      throw Error(ErrorCode::Conflict, taken_message(objects[job_index], o, true));
    }
    if (o.dry_run == DryRun::None) created.add(*job.object);
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

}  // namespace ejob::kubeapi
