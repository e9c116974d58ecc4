#include "src/kubeapi/api_error.hpp"

#include <nlohmann/json.hpp>

namespace ejob::kubeapi {
namespace {

/// The string field `key` of an object, or "" when it is absent or of another type: a Status
/// body is read for its message, and a field of the wrong type must not hide the error it
/// carries (nlohmann's value() would throw type_error instead).
std::string text(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

ErrorCode code_for_status(long http_status) {
  switch (http_status) {
    case 401:
    case 403: return ErrorCode::Auth;
    case 404: return ErrorCode::NotFound;
    case 409: return ErrorCode::Conflict;
    default: return ErrorCode::Api;
  }
}

ApiError error_from_status(long http_status, std::string_view body) {
  const ErrorCode code = code_for_status(http_status);
  nlohmann::json doc = nlohmann::json::parse(body, nullptr, false);
  if (!doc.is_object() || text(doc, "kind") != "Status") {
    std::string text(body.substr(0, 200));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    std::string message = "the server answered HTTP " + std::to_string(http_status);
    if (!text.empty()) message += ": " + text;
    return ApiError(code, message, http_status, "", {});
  }
  StatusDetails details;
  if (const nlohmann::json d = doc.value("details", nlohmann::json()); d.is_object()) {
    details.kind = text(d, "kind");
    details.name = text(d, "name");
    if (const nlohmann::json list = d.value("causes", nlohmann::json()); list.is_array())
      for (const auto& c : list)
        if (c.is_object())
          details.causes.push_back({text(c, "reason"), text(c, "message"), text(c, "field")});
  }
  std::string message = text(doc, "message");
  const std::string reason = text(doc, "reason");
  if (http_status == 401 && (message.empty() || message == "Unauthorized"))
    message = "the server rejected the credentials (401 Unauthorized)";
  if (message.empty())
    message = "the server answered HTTP " + std::to_string(http_status) + " " + reason;
  return ApiError(code, message, http_status, reason, std::move(details));
}

}  // namespace ejob::kubeapi
