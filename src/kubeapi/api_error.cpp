#include "src/kubeapi/api_error.hpp"

#include <nlohmann/json.hpp>

namespace ejob::kubeapi {

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
  if (!doc.is_object() || doc.value("kind", "") != "Status") {
    std::string text(body.substr(0, 200));
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
    std::string message = "the server answered HTTP " + std::to_string(http_status);
    if (!text.empty()) message += ": " + text;
    return ApiError(code, message, http_status, "", {});
  }
  StatusDetails details;
  if (const nlohmann::json d = doc.value("details", nlohmann::json()); d.is_object()) {
    details.kind = d.value("kind", "");
    details.name = d.value("name", "");
    if (const nlohmann::json list = d.value("causes", nlohmann::json()); list.is_array())
      for (const auto& c : list)
        if (c.is_object())
          details.causes.push_back(
              {c.value("reason", ""), c.value("message", ""), c.value("field", "")});
  }
  std::string message = doc.value("message", "");
  const std::string reason = doc.value("reason", "");
  if (http_status == 401 && (message.empty() || message == "Unauthorized"))
    message = "the server rejected the credentials (401 Unauthorized)";
  if (message.empty())
    message = "the server answered HTTP " + std::to_string(http_status) + " " + reason;
  return ApiError(code, message, http_status, reason, std::move(details));
}

}  // namespace ejob::kubeapi
