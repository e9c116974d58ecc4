#include "src/job/manifest_objects.hpp"

#include "src/job/job_request.hpp"
#include "src/render/go/json.hpp"
#include "src/render/helm/manifests.hpp"
#include "src/render/yaml/emit.hpp"
#include "src/render/yaml/load.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

std::vector<kubeapi::Json> parse_manifests(const std::string& text) {
  std::vector<kubeapi::Json> out;
  int index = 0;
  for (const std::string& doc : render::helm::split_manifests(text)) {
    ++index;
    render::yaml::YamlDecoded d = render::yaml::try_load_yaml(doc);
    if (!d.error.empty())
      throw Error(ErrorCode::Input,
                  "YAML parse error on document " + std::to_string(index) + ": " + d.error);
    if (d.value.is_nil()) continue;
    kubeapi::Json obj = job::api_object(d.value);
    if (!obj.is_object())
      throw Error(ErrorCode::Input,
                  "document " + std::to_string(index) + " is not a Kubernetes object");
    out.push_back(std::move(obj));
  }
  return out;
}

Output parse_output(const std::string& value, const std::vector<std::string>& allowed) {
  if (value.empty()) return Output::Text;
  bool ok = false;
  std::string list;
  for (const std::string& a : allowed) {
    ok = ok || a == value;
    list += (list.empty() ? "" : ", ") + a;
  }
  if (!ok)
    throw Error(ErrorCode::Usage,
                "-o/--output: unknown format \"" + value + "\" (use one of: " + list + ")");
  if (value == "name") return Output::Name;
  if (value == "json") return Output::Json;
  if (value == "yaml") return Output::Yaml;
  return Output::Wide;
}

std::string format_objects(std::vector<kubeapi::Json> objects, Output output, bool managed_fields,
                           Grouping grouping) {
  if (!managed_fields)
    for (kubeapi::Json& o : objects)
      if (o.is_object() && o.contains("metadata") && o["metadata"].is_object())
        o["metadata"].erase("managedFields");
  kubeapi::Json doc = objects.size() == 1 && grouping == Grouping::OneAlone
                          ? objects[0]
                          : kubeapi::Json{{"apiVersion", "v1"},
                                          {"kind", "List"},
                                          {"items", objects},
                                          {"metadata", {{"resourceVersion", ""}}}};
  if (output == Output::Json) return doc.dump(4) + "\n";
  render::go::json::Decoded v = render::go::json::unmarshal(doc.dump());
  return render::yaml::to_yaml(v.value);
}

}  // namespace ejob::job
