#include "src/job/engine_choice.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "src/job/job_flags.hpp"
#include "src/job/job_pods.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

using kubeapi::Json;
using render::go::Value;

namespace {

/// How long what a cluster serves is trusted: CRDs are installed and removed rarely, and a
/// stale answer costs one failed submit, after which the cache is forgotten and asked again.
constexpr std::chrono::seconds k_cache_life{300};

long long_at(const Job& job, std::initializer_list<std::string_view> path, long otherwise) {
  Value v = get_path(job.values, path);
  if (v.is_nil() && job.chart) v = get_path(job.chart->values.as_map(), path);
  if (v.is_int()) return static_cast<long>(v.as_int());
  if (v.is_float()) return static_cast<long>(v.as_float());
  return otherwise;
}

std::string names(const std::vector<const Engine*>& engines) {
  std::string out;
  for (const Engine* e : engines) out += (out.empty() ? "" : ", ") + std::string(e->name);
  return out;
}

bool can_run(const Engine& e, const WorkerSpan& span) { return e.elastic || span.min == span.max; }

[[noreturn]] void not_served(const Engine& e, const std::vector<const Engine*>& served) {
  throw Error(
      ErrorCode::NotFound,
      std::string("engine ") + e.name + ": the cluster does not serve " + e.kind + " (" +
          e.api_version + "); install " + e.project + ": " + e.install +
          (served.empty() ? "" : "; it serves " + names(served) + " (--engine auto picks one)"));
}

}  // namespace

std::string wanted_engine(const Job& job) {
  const Value v = get_path(job.values, {"engine"});
  return v.is_string() && !v.as_string().empty() ? v.as_string() : "auto";
}

WorkerSpan worker_span(const Job& job) {
  WorkerSpan span;
  span.min = long_at(job, {"workers", "min"}, 1);
  span.max = long_at(job, {"workers", "max"}, span.min);
  return span;
}

EngineChoice choose_engine(const std::string& wanted, const std::vector<const Engine*>& served,
                           const WorkerSpan& span) {
  if (wanted != "auto") {
    const Engine* e = find_engine(wanted);
    if (!e)
      throw Error(ErrorCode::Usage, "engine: \"" + wanted +
                                        "\" is not one of auto, elasticjob, pytorchjob, trainjob");
    if (std::find(served.begin(), served.end(), e) == served.end()) not_served(*e, served);
    return {e, ""};
  }
  if (served.empty()) throw no_engine_served();
  std::vector<const Engine*> able;
  for (const Engine* e : served)
    if (can_run(*e, span)) able.push_back(e);
  if (able.empty())
    throw Error(ErrorCode::Input,
                "workers: " + std::to_string(span.min) + ":" + std::to_string(span.max) +
                    " is an elastic range, and the cluster serves only " + names(served) +
                    ", whose world size is static: set workers.max to workers.min, or install "
                    "Kubeflow training-operator v1 (PyTorchJob): " +
                    engine(EngineId::PyTorchJob).install);
  EngineChoice choice{able.front(), ""};
  if (served.size() > 1)
    choice.note = std::string("engine ") + choice.engine->name + " (the cluster serves " +
                  names(served) + "; " + choice.engine->name + " is the first that can run " +
                  (span.min == span.max ? "this job" : "an elastic range") +
                  " in ejob's order pytorchjob, trainjob, elasticjob; --engine chooses another)";
  return choice;
}

EngineChoice settle_engine(JobRequest& request, const Job& job,
                           const std::vector<const Engine*>& served) {
  if (!job.chart || !job.chart->values.as_map().count("engine")) return {};
  const std::string wanted = wanted_engine(job);
  EngineChoice choice = choose_engine(wanted, served, worker_span(job));
  if (wanted == "auto") request.flags.engine = choice.engine->name;
  return choice;
}

}  // namespace ejob::job

namespace ejob::job {
namespace {

std::filesystem::path cache_file() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  std::filesystem::path dir = xdg && *xdg     ? std::filesystem::path(xdg)
                              : home && *home ? std::filesystem::path(home) / ".cache"
                                              : std::filesystem::temp_directory_path();
  return dir / "ejob" / "served-engines.json";
}

std::string cache_key(const KubeSession& s) { return s.context + " " + s.server; }

long long now_seconds() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

bool fresh(const Json& entry) {
  const Json& at = json_at(entry, {"at"});
  return at.is_number_integer() && at.get<long long>() + k_cache_life.count() > now_seconds();
}

Json read_cache() {
  std::ifstream in(cache_file());
  Json doc = in ? Json::parse(in, nullptr, false) : Json::object();
  return doc.is_object() ? doc : Json::object();
}

/// Writes the cache whole (a temporary file renamed over it: a reader sees the old or the new
/// one). A cache that cannot be written only costs the next command a request.
void write_cache(const Json& doc) {
  std::error_code ec;
  const auto path = cache_file();
  std::filesystem::create_directories(path.parent_path(), ec);
  const auto tmp = path.string() + "." + std::to_string(getpid());
  {
    std::ofstream out(tmp);
    if (!(out << doc.dump())) return;
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

/// Kubernetes' aggregated discovery (apidiscovery.k8s.io v2, v2beta1 before 1.30): every
/// group's resources in one answer. nullopt when the server answered the plain APIGroupList.
std::optional<std::vector<const Engine*>> aggregated_engines(kubeapi::Transport& t) {
  kubeapi::Request r{kubeapi::Method::Get, "/apis"};
  r.accept =
      "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,"
      "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,"
      "application/json";
  const kubeapi::Response answer = t.send(r);
  const Json doc = Json::parse(answer.body, nullptr, false);
  if (answer.status != 200 || !doc.is_object() || doc.value("kind", "") != "APIGroupDiscoveryList")
    return std::nullopt;
  std::vector<const Engine*> served;
  for (const Engine* e : all_engines()) {
    const std::string api_version = e->api_version;
    const std::string group = api_version.substr(0, api_version.find('/'));
    const std::string version = api_version.substr(api_version.find('/') + 1);
    for (const Json& g : doc.value("items", Json::array()))
      if (json_text(json_at(g, {"metadata", "name"})) == group)
        for (const Json& v : g.value("versions", Json::array()))
          if (v.value("version", "") == version)
            for (const Json& res : v.value("resources", Json::array()))
              if (res.value("resource", "") == e->plural) served.push_back(e);
  }
  return served;
}

}  // namespace

std::vector<const Engine*> served_engines_cached(const KubeSession& session) {
  Json cache = read_cache();
  const Json& entry = json_at(cache, {cache_key(session).c_str()});
  if (fresh(entry)) {
    std::vector<const Engine*> served;
    for (const Json& name : entry.value("served", Json::array()))
      if (const Engine* e = find_engine(json_text(name))) served.push_back(e);
    return served;
  }
  std::vector<const Engine*> served;
  if (auto found = aggregated_engines(*session.transport))
    served = std::move(*found);
  else
    served = served_engines(*session.client);
  Json names = Json::array();
  for (const Engine* e : served) names.push_back(e->name);
  for (auto it = cache.begin(); it != cache.end();)  // other clusters' stale answers go
    it = fresh(*it) ? std::next(it) : cache.erase(it);
  cache[cache_key(session)] = {{"at", now_seconds()}, {"served", names}};
  write_cache(cache);
  return served;
}

void forget_served_engines(const KubeSession& session) {
  Json cache = read_cache();
  if (cache.erase(cache_key(session)) > 0) write_cache(cache);
}

}  // namespace ejob::job
