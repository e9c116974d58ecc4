#pragma once
/// Rendered manifests (what `ejob template` prints) as API objects, and objects back as
/// text for `-o json|yaml`. YAML is read as kubectl reads it (sigs.k8s.io/yaml: YAML 1.1
/// scalars, then JSON), through the renderer's loader, so numbers and booleans come out as
/// Helm and kubectl would send them.

#include <string>
#include <vector>

#include "src/kubeapi/client.hpp"

namespace ejob::job {

/// The objects of a multi-document YAML text; empty documents are skipped. Throws
/// ejob::Error(Input) `YAML parse error on document N: error converting YAML to JSON: …`
/// (sigs.k8s.io/yaml's wording) for a document that cannot be read.
std::vector<kubeapi::Json> parse_manifests(const std::string& text);

/// Output format of -o.
enum class Output { Text, Name, Json, Yaml, Wide };

/// Parses an -o value among `allowed` ("name", "json", "yaml", "wide"); throws
/// ejob::Error(Usage) naming the flag otherwise.
Output parse_output(const std::string& value, const std::vector<std::string>& allowed);

/// How format_objects groups the objects: one alone and several as a v1 List (kubectl
/// get NAME), or always a List (kubectl get KIND).
enum class Grouping { OneAlone, AlwaysList };

/// Objects as kubectl prints them with -o json/yaml, without metadata.managedFields unless
/// `managed_fields` (kubectl hides them since 1.21; --show-managed-fields shows them).
std::string format_objects(std::vector<kubeapi::Json> objects, Output output,
                           bool managed_fields = false, Grouping grouping = Grouping::OneAlone);

}  // namespace ejob::job
