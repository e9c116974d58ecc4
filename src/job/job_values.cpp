#include "src/job/job_values.hpp"

#include <fmt/format.h>

#include <random>

#include "src/job/job_flags.hpp"
#include "src/job/naming.hpp"
#include "src/render/helm/render_chart.hpp"
#include "src/spot/presets.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

namespace {

using render::go::List;
using render::go::Map;
using render::go::Value;

Value string_list(std::initializer_list<std::string_view> items) {
  List out;
  for (std::string_view s : items) out.push_back(Value::string(std::string(s)));
  return Value::list(std::move(out));
}

Value terms_value(const spot::Placement& p) {
  List terms;
  for (const spot::NodeLabel& l : p.terms) {
    Map expr{{"key", Value::string(std::string(l.key))},
             {"operator", Value::string("In")},
             {"values", string_list({l.value})}};
    terms.push_back(Value::map(Map{{"matchExpressions", Value::list(List{Value::map(expr)})}}));
  }
  return Value::list(std::move(terms));
}

Value tolerations_value(const spot::Placement& p) {
  List out;
  for (const spot::Taint& t : p.tolerations) {
    out.push_back(Value::map(Map{{"key", Value::string(std::string(t.key))},
                                 {"operator", Value::string("Equal")},
                                 {"value", Value::string(std::string(t.value))},
                                 {"effect", Value::string(std::string(t.effect))}}));
  }
  return Value::list(std::move(out));
}

/// `user[path]` if the user gave that key (null included: Helm deletes the key then, so the
/// chart's default does not apply), else `defaults[path]`.
Value effective(const Map& user, const Map& defaults,
                std::initializer_list<std::string_view> path) {
  const Map* at = &user;
  std::size_t step = 0;
  for (std::string_view key : path) {
    auto it = at->find(key);
    if (it == at->end()) break;
    if (++step == path.size()) return it->second;
    if (!it->second.is_map()) return {};  // null or a scalar replaced the whole map
    at = &it->second.as_map();
  }
  return get_path(defaults, path);
}

int64_t as_count(const Value& v, int64_t fallback) {
  if (v.is_float()) return static_cast<int64_t>(v.as_float());
  if (v.is_int()) return v.as_int();
  return fallback;
}

}  // namespace

void expand_spot(Map& values, const ValueLocator* locator) {
  auto where = [locator](std::string_view key) {
    return locator != nullptr
               ? locator->in_effect({{"spot", {}}, {std::string(key), {}}}, Part::Value)
               : Location{};
  };
  Value provider = get_path(values, {"spot", "provider"});
  if (!provider.is_string() || provider.as_string().empty()) return;
  auto parsed = spot::parse_provider(provider.as_string());
  if (!parsed) {
    throw Error(ErrorCode::Input,
                fmt::format("spot.provider: \"{}\" is not a spot provider (use {})",
                            provider.as_string(), spot::provider_choices()),
                where("provider"));
  }
  Value mode_value = get_path(values, {"spot", "mode"});
  std::string mode_word = mode_value.is_string() ? mode_value.as_string() : "required";
  auto mode = spot::parse_mode(mode_word);
  if (!mode) {
    throw Error(
        ErrorCode::Input,
        fmt::format("spot.mode: \"{}\" is not a spot mode (use required or preferred)", mode_word),
        where("mode"));
  }
  spot::Placement placement = spot::placement(*parsed, *mode);
  if (get_path(values, {"spot", "nodeSelectorTerms"}).is_nil()) {
    set_path(values, {"spot", "nodeSelectorTerms"}, terms_value(placement));
  }
  if (get_path(values, {"spot", "tolerations"}).is_nil()) {
    set_path(values, {"spot", "tolerations"}, tolerations_value(placement));
  }
}

std::string choose_job_name(const NameRequest& request, const Map& user, const Map& defaults) {
  Value min = effective(user, defaults, {"workers", "min"});
  int64_t max = as_count(effective(user, defaults, {"workers", "max"}), as_count(min, 1));
  std::vector<std::string> blobs;
  Value storage = effective(user, defaults, {"storage"});
  if (storage.is_map()) {
    for (const auto& [volume, spec] : storage.as_map()) {
      if (spec.is_map() && !get_path(spec.as_map(), {"blob"}).is_nil()) blobs.push_back(volume);
    }
  }
  job::NameBudget budget = job::name_budget(max, blobs);
  if (request.exact) {
    if (request.helm_release)
      render::helm::validate_release_name(request.name);  // Helm's rule: 53 characters
    else
      job::check_exact_name(request.name, budget);
    return request.name;
  }
  if (!request.seed) return job::unique_job_name(request.name, budget);
  std::mt19937_64 seeded(*request.seed);
  return job::unique_job_name(request.name, budget,
                              [&seeded] { return static_cast<uint32_t>(seeded()); });
}

}  // namespace ejob::job
