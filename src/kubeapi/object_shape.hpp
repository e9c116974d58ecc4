#pragma once
// The types of the fields ejob reads from the API server's objects, checked where an answer
// comes in, so that a server or proxy that sends `metadata.name: 5` is named with the request
// and the field, instead of failing deep inside a command that reads it.

#include <nlohmann/json.hpp>
#include <string>

namespace ejob::kubeapi {

using Json = nlohmann::json;

/// Checks that the fields of `object` that ejob reads have the type Kubernetes gives them
/// (metadata's strings, labels and annotations, status conditions, a job's counts). A field
/// that is null is removed, as Kubernetes reads null as unset, and an object without metadata
/// gets an empty one. Throws an ErrorCode::Api error
/// naming `what` (the request: "GET /api/v1/...") and the field's path (from `prefix`, e.g.
/// "items[3].") on a field of the wrong type. A Status (kind: Status) is left as it is.
void check_object_shape(Json& object, const std::string& what, const std::string& prefix = "");

}  // namespace ejob::kubeapi
