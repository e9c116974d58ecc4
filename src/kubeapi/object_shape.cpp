#include "src/kubeapi/object_shape.hpp"

#include <iterator>
#include <string_view>
#include <vector>

#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

enum class Want { String, Object, Array, Number };

/// A field and its type. A path's step is a key, `key[]` (each item of the list at key) or `*`
/// (each value of the map reached so far).
struct Field {
  const char* path;
  Want want;
};

// What src/job and src/kubeapi read with nlohmann's value() or get<>() without looking at the
// type first; the rest is read through json_at()/json_text(), which take any type.
constexpr Field k_fields[] = {
    {"apiVersion", Want::String},
    {"kind", Want::String},
    {"metadata", Want::Object},
    {"metadata.name", Want::String},
    {"metadata.generateName", Want::String},
    {"metadata.namespace", Want::String},
    {"metadata.uid", Want::String},
    {"metadata.resourceVersion", Want::String},
    {"metadata.continue", Want::String},
    {"metadata.creationTimestamp", Want::String},
    {"metadata.deletionTimestamp", Want::String},
    {"metadata.labels", Want::Object},
    {"metadata.labels.*", Want::String},
    {"metadata.annotations", Want::Object},
    {"metadata.annotations.*", Want::String},
    {"status", Want::Object},
    {"status.active", Want::Number},
    {"status.conditions", Want::Array},
    {"status.conditions[]", Want::Object},
    {"status.conditions[].type", Want::String},
    {"status.conditions[].status", Want::String},
    {"status.conditions[].reason", Want::String},
    {"status.conditions[].message", Want::String},
    {"status.conditions[].lastTransitionTime", Want::String},
    {"status.jobsStatus", Want::Array},
    {"status.jobsStatus[]", Want::Object},
    {"status.jobsStatus[].active", Want::Number},
    {"status.replicatedJobsStatus", Want::Array},
    {"status.replicatedJobsStatus[]", Want::Object},
    {"status.replicatedJobsStatus[].active", Want::Number},
};

bool has_type(const Json& j, Want want) {
  switch (want) {
    case Want::String: return j.is_string();
    case Want::Object: return j.is_object();
    case Want::Array: return j.is_array();
    case Want::Number: return j.is_number();
  }
  return false;
}

const char* type_name(Want want) {
  switch (want) {
    case Want::String: return "a string";
    case Want::Object: return "an object";
    case Want::Array: return "a list";
    case Want::Number: return "a number";
  }
  return "?";
}

const char* type_name(const Json& j) {
  if (j.is_null()) return "null";
  if (j.is_string()) return "a string";
  if (j.is_object()) return "an object";
  if (j.is_array()) return "a list";
  if (j.is_boolean()) return j.get<bool>() ? "true" : "false";
  return "a number";
}

std::vector<std::string_view> steps_of(std::string_view path) {
  std::vector<std::string_view> steps;
  for (size_t dot; (dot = path.find('.')) != std::string_view::npos; path.remove_prefix(dot + 1))
    steps.push_back(path.substr(0, dot));
  steps.push_back(path);
  return steps;
}

/// Walks `steps` from `node` (its path so far `at`) and checks the type of what they reach.
class ShapeCheck {
 public:
  ShapeCheck(const std::string& what, Want want) : m_what(what), m_want(want) {}

  void walk(Json& node, const std::vector<std::string_view>& steps, size_t i,
            const std::string& at) const {
    if (!node.is_object()) return;  // the step above has its own entry, checked first
    std::string_view step = steps[i];
    if (step == "*") {
      std::vector<std::string> keys;  // reach() may erase a key: not while iterating
      for (const auto& [key, value] : node.items()) keys.push_back(key);
      for (const std::string& key : keys) reach(node, key, node[key], steps, i, at + key);
      return;
    }
    const bool each = step.size() > 2 && step.substr(step.size() - 2) == "[]";
    const std::string key(each ? step.substr(0, step.size() - 2) : step);
    auto it = node.find(key);
    if (it == node.end()) return;
    if (!each) return reach(node, key, *it, steps, i, at + key);
    if (!it->is_array()) return;
    for (size_t k = 0; k < it->size(); ++k) {
      std::string item_at = at + key + "[" + std::to_string(k) + "]";
      if (i + 1 == steps.size()) {
        if (!has_type((*it)[k], m_want)) fail(item_at, (*it)[k]);
      } else {
        walk((*it)[k], steps, i + 1, item_at + ".");
      }
    }
  }

 private:
  void reach(Json& parent, const std::string& key, Json& value,
             const std::vector<std::string_view>& steps, size_t i, const std::string& at) const {
    if (i + 1 < steps.size()) return walk(value, steps, i + 1, at + ".");
    if (value.is_null()) {
      parent.erase(key);  // Kubernetes decodes null as the field unset
    } else if (!has_type(value, m_want)) {
      fail(at, value);
    }
  }

  [[noreturn]] void fail(const std::string& at, const Json& value) const {
    throw Error(ErrorCode::Api, "the server answered " + m_what + " with " + at + " as " +
                                    type_name(value) + ", where Kubernetes has " +
                                    type_name(m_want) +
                                    " (a server or proxy that is not Kubernetes?)");
  }

  const std::string& m_what;
  Want m_want;
};

}  // namespace

void check_object_shape(Json& object, const std::string& what, const std::string& prefix) {
  if (!object.is_object()) {
    const std::string item = prefix.empty() ? "a body" : prefix.substr(0, prefix.size() - 1);
    throw Error(ErrorCode::Api,
                "the server answered " + what + " with " + item + " that is not a JSON object");
  }
  // A Status (what an eviction or a delete answers) has a string where objects have a status.
  if (auto kind = object.find("kind"); kind != object.end() && *kind == "Status") return;
  static const std::vector<std::vector<std::string_view>> k_steps = [] {
    std::vector<std::vector<std::string_view>> all;
    for (const Field& f : k_fields) all.push_back(steps_of(f.path));
    return all;
  }();
  for (size_t f = 0; f < std::size(k_fields); ++f)
    ShapeCheck(what, k_fields[f].want).walk(object, k_steps[f], 0, prefix);
  // Readers write obj["metadata"] on a const object, defined only when the key is there.
  if (!object.contains("metadata")) object["metadata"] = Json::object();
}

}  // namespace ejob::kubeapi
