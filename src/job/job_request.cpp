#include "src/job/job_request.hpp"

#include <fmt/format.h>

#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "src/job/job_flags.hpp"
#include "src/job/job_schema.hpp"
#include "src/job/job_values.hpp"
#include "src/job/team_config.hpp"
#include "src/job/value_locator.hpp"
#include "src/render/go/json.hpp"
#include "src/render/helm/chart_metadata.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

namespace {

/// FNV-1a, 64 bits: a seed that follows every byte of the inputs.
uint64_t fnv1a64(std::string_view bytes) {
  uint64_t h = 14695981039346656037ULL;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return h;
}

using render::go::Map;
using render::go::Value;

/// Reads each path once, however many layers look at it.
render::helm::ReadFile caching(const render::helm::ReadFile& read) {
  auto cache = std::make_shared<std::map<std::string, std::string>>();
  return [read, cache](const std::string& path) {
    auto it = cache->find(path);
    if (it == cache->end()) it = cache->emplace(path, read(path)).first;
    return it->second;
  };
}

render::helm::ChartPtr load_job_chart(const JobRequest& request,
                                      const DefaultChart& default_chart) {
  if (request.chart_dir.empty()) return default_chart();
  return render::helm::load_chart(request.chart_dir);
}

/// Go's words for a YAML syntax error, without what the location already says:
/// `error converting YAML to JSON: yaml: line 4: did not find expected key` → `did not find
/// expected key` (go-yaml counts some lines from 0, so its number would contradict ours).
std::string yaml_problem(const std::string& message) {
  std::string_view text = message;
  if (std::size_t yaml = text.rfind(" yaml: "); yaml != std::string_view::npos)
    text.remove_prefix(yaml + 7);
  if (text.rfind("line ", 0) == 0)
    if (std::size_t colon = text.find(": "); colon != std::string_view::npos)
      text.remove_prefix(colon + 2);
  return std::string(text);
}

/// One job-mode file's values; a syntax error is said once, at its line and column.
render::go::Map file_values(const std::string& file, const render::helm::ReadFile& read) {
  render::helm::ValueSources one;
  one.files = {file};
  try {
    return render::helm::merge_user_values(one, read);
  } catch (const Error& e) {
    if (e.where().line == 0) throw;
    throw Error(e.code(), "not valid YAML: " + yaml_problem(e.message()), e.where());
  }
}

/// Every -f file (the job file first) and the --set* flags, each checked on its own against
/// the chart's schema so that a mistake is reported where it was written.
void check_sources(const render::helm::ValueSources& sources, const render::helm::Chart& chart,
                   const ValueLocator& locator, const render::helm::ReadFile& read,
                   const std::optional<std::string>& job_file) {
  if (chart.schema->empty()) return;
  nlohmann::json schema = nlohmann::json::parse(*chart.schema, nullptr, false);
  if (schema.is_discarded()) return;  // the render step reports a broken schema
  for (const std::string& file : sources.files) {
    std::string origin = job_file && *job_file == file ? file : "-f " + file;
    check_job_values(
        file_values(file, read), schema, origin,
        [&](const ValuePath& path, Part part) { return locator.in_file(file, path, part); });
  }
  render::helm::ValueSources sets = sources;
  sets.files.clear();
  check_job_values(render::helm::merge_user_values(sets, read), schema, "--set",
                   [&](const ValuePath& path, Part part) { return locator.in_flags(path, part); });
}

/// workers.max below workers.min, whichever source set each (the chart's own template would
/// fail later, pointing into the chart): said at the one the user wrote last.
void check_worker_range(const Map& values, const Map& defaults, const ValueLocator& locator) {
  auto count = [&](std::string_view key) {
    Value v = get_path(values, {"workers", key});
    if (v.is_nil()) v = get_path(defaults, {"workers", key});
    return v.is_int() ? std::optional<int64_t>(v.as_int())
           : v.is_float() && v.as_float() == static_cast<double>(static_cast<int64_t>(v.as_float()))
               ? std::optional<int64_t>(static_cast<int64_t>(v.as_float()))
               : std::nullopt;
  };
  std::optional<int64_t> min = count("min"), max = count("max");
  if (!min || !max || *max >= *min) return;
  Location where = locator.in_effect({{"workers", {}}, {"max", {}}}, Part::Value);
  if (where.empty()) where = locator.in_effect({{"workers", {}}, {"min", {}}}, Part::Value);
  throw Error(
      ErrorCode::Input,
      fmt::format("workers.max: {} is below workers.min ({}); give 1 <= min <= max", *max, *min),
      std::move(where));
}

/// The model name a job is named after when --name is absent: the script's base name
/// without extension (`/workspace/train.py` → `train`), else `job`.
std::string default_model_name(const Map& values) {
  Value script = get_path(values, {"script"});
  if (!script.is_string() || script.as_string().empty()) return "job";
  std::string stem = std::filesystem::path(script.as_string()).stem().string();
  return stem.empty() ? "job" : stem;
}

/// The string at top-level `key` of the user's values, else of the chart's defaults.
std::string value_or_default(const Map& user, const Map& defaults, std::string_view key) {
  Value v = get_path(user, {key});
  if (v.is_nil()) v = get_path(defaults, {key});
  return v.is_string() ? v.as_string() : std::string();
}

/// A job needs an image and a script (when the chart has those keys, as the elasticjob chart
/// does; a local job runs its script on this machine and needs no image): say so before
/// rendering, naming both ways to give them. With a job file it is the file that lacks them
/// (bad input, 3), else the command line (usage, 2).
void check_required(const Map& user, const Map& defaults,
                    const std::optional<std::string>& job_file) {
  const ErrorCode code = job_file ? ErrorCode::Input : ErrorCode::Usage;
  const std::string where = job_file ? *job_file + ": " : "";
  auto missing = [&](std::string_view key) {
    return defaults.find(key) != defaults.end() && value_or_default(user, defaults, key).empty();
  };
  const bool local = value_or_default(user, defaults, "backend") == "local";
  if (!local && missing("image")) {
    throw Error(code, where +
                          "image: the worker image is required (use -i/--image IMAGE or image: in "
                          "the job file)");
  }
  if (missing("script")) {
    throw Error(code, where +
                          "script: the training script is required (use -- SCRIPT [ARGS...] or "
                          "script: in the job file)");
  }
}

}  // namespace

bool is_job_request(const JobRequest& request) {
  const JobFlags& f = request.flags;
  bool any_flag = f.image || f.gpus || f.gpu_resource || f.workers || f.nproc || f.cpu ||
                  f.memory || f.shm || f.spot || f.spot_mode || !f.blobs.empty() ||
                  !f.pvcs.empty() || !f.envs.empty() || !f.command.empty() || f.engine;
  return request.chart_dir.empty() || request.job_file || any_flag;
}

namespace {

/// The team's values under the job's own (each key the chart has and no source set).
void fill_team_values(const TeamConfig& team, const Map& chart_values, Map& values) {
  std::function<void(const Map&, Map&)> fill = [&](const Map& from, Map& into) {
    for (const auto& [key, v] : from) {
      auto it = into.find(key);
      if (it == into.end())
        into.emplace(key, v);
      else if (v.is_map() && it->second.is_map())
        fill(v.as_map(), it->second.mutable_map());
    }
  };
  Map known;
  for (const auto& [key, v] : team_values(team))
    if (chart_values.count(key)) known.emplace(key, v);
  fill(known, values);
}

/// The job flags with the team's storage account in front of a `--blob CONTAINER[:PATH]`.
JobFlags with_team_account(const TeamConfig& team, JobFlags flags) {
  const std::string account = team_setting(team, "storageAccount");
  if (account.empty()) return flags;
  for (std::string& blob : flags.blobs)
    if (blob.find('/') == std::string::npos || blob.find('/') > blob.find(':'))
      blob = account + "/" + blob;
  return flags;
}

/// `args` after the job's script arguments (the chart's `scriptArgs`, when it has that key).
void append_script_args(const std::vector<std::string>& args, const Map& chart_values,
                        Map& values) {
  if (args.empty() || !chart_values.count("scriptArgs")) return;
  render::go::List list;
  Value current = get_path(values, {"scriptArgs"});
  if (current.is_nil()) current = get_path(chart_values, {"scriptArgs"});
  if (current.is_list()) list = current.as_list();
  for (const std::string& a : args) list.push_back(Value::string(a));
  set_path(values, {"scriptArgs"}, Value::list(std::move(list)));
}

/// A job's namespace is refused before anything is rendered or sent when the API server
/// would refuse it: a DNS-1123 label. (`ejob template`, like `helm template`, prints any.)
void check_namespace(const std::string& ns, const std::string& origin) {
  const bool label_chars = std::all_of(ns.begin(), ns.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
  if (!ns.empty() && ns.size() <= 63 && label_chars && ns.front() != '-' && ns.back() != '-')
    return;
  throw Error(ErrorCode::Usage,
              origin + ": \"" + ns +
                  "\" is not a namespace name (a DNS label: at most 63 lower-case "
                  "letters, digits and '-', starting and ending with a letter or digit)");
}

}  // namespace

Job resolve_job(const JobRequest& request, const render::helm::ReadFile& read_uncached,
                const DefaultChart& default_chart) {
  render::helm::ReadFile read = caching(read_uncached);
  bool job_mode = is_job_request(request);
  Job job;
  job.chart = load_job_chart(request, default_chart);
  render::helm::ValueSources sources = request.sources;
  if (request.job_file) sources.files.insert(sources.files.begin(), *request.job_file);
  ValueLocator locator(sources, read);
  if (job_mode) check_sources(sources, *job.chart, locator, read, request.job_file);
  if (job_mode) job.locator = std::make_shared<const ValueLocator>(locator);
  job.values = render::helm::merge_user_values(sources, read);
  const TeamConfig* team = job_mode && request.team_config ? &team_config() : nullptr;
  if (team) fill_team_values(*team, job.chart->values.as_map(), job.values);
  apply_job_flags(team ? with_team_account(*team, request.flags) : request.flags, job.values);
  append_script_args(request.extra_script_args, job.chart->values.as_map(), job.values);
  if (team && job.values.count("image") && job.values["image"].is_string())
    job.values["image"] = Value::string(with_registry(*team, job.values["image"].as_string()));
  if (request.local && job.chart->values.as_map().count("backend"))
    job.values["backend"] = Value::string("local");
  if (job_mode) {
    expand_spot(job.values, &locator);
    check_required(job.values, job.chart->values.as_map(), request.job_file);
    check_worker_range(job.values, job.chart->values.as_map(), locator);
  }
  std::string model = !request.name.empty() ? request.name
                      : job_mode            ? default_model_name(job.values)
                                            : std::string("release-name");
  NameRequest name{model, request.exact_name, std::nullopt, !request.chart_dir.empty()};
  if (request.reproducible_name)
    name.seed =
        fnv1a64(model + '\n' + render::go::json::marshal(render::go::Value::map(job.values)));
  job.name = choose_job_name(name, job.values, job.chart->values.as_map());
  const std::string team_ns = team ? team_setting(*team, "namespace") : "";
  job.name_space = !request.name_space.empty()  ? request.name_space
                   : !request.chart_dir.empty() ? std::string("default")
                   : !team_ns.empty()           ? team_ns
                                                : std::string(k_job_namespace);
  if (job_mode)
    check_namespace(job.name_space,
                    request.name_space.empty() ? "the team config's namespace" : "-n");
  return job;
}

render::helm::RenderOptions job_render_options(const Job& job) {
  render::helm::RenderOptions options;
  options.chart = job.chart;
  options.user_values = job.values;
  options.release_name = job.name;
  options.ns = job.name_space;
  return options;
}

namespace {

/// Runs `render`; a values.schema.json failure of a job is rethrown pointing at the value.
template <typename Render>
auto with_located_values(const Job& job, Render render) {
  try {
    return render();
  } catch (const Error& e) {
    if (!job.locator) throw;
    if (std::optional<Error> located = locate_schema_error(e, *job.locator)) throw *located;
    throw;
  }
}

}  // namespace

std::string render_job(const Job& job, const render::helm::RenderIo& io) {
  return with_located_values(
      job, [&] { return render::helm::render_chart(job_render_options(job), io); });
}

kubeapi::Json api_object(const render::go::Value& object) {
  return kubeapi::Json::parse(render::go::json::marshal(object));
}

std::vector<kubeapi::Json> render_job_objects(const Job& job, const render::helm::RenderIo& io) {
  std::vector<kubeapi::Json> objects;
  const render::helm::SortedManifests sorted = with_located_values(
      job, [&] { return render::helm::render_manifests(job_render_options(job), io); });
  for (const render::go::Value& object : render::helm::manifest_objects(sorted))
    objects.push_back(api_object(object));
  return objects;
}

}  // namespace ejob::job
