#pragma once
/// Kubernetes `Status` bodies as ejob errors. The code follows the HTTP status: 401/403 Auth,
/// 404 NotFound, 409 Conflict (AlreadyExists and Conflict), everything else Api; the message
/// is the Status's message (or, without a Status body, the HTTP status and the first bytes
/// of the body); reason and field causes are kept for callers that act on them.

#include <string>
#include <string_view>
#include <vector>

#include "src/util/error.hpp"

namespace ejob::kubeapi {

/// One entry of Status.details.causes.
struct StatusCause {
  std::string reason;
  std::string message;
  std::string field;
};

/// Status.details: the object the status is about, and the field causes.
struct StatusDetails {
  std::string kind;  ///< the resource, as the server names it: "namespaces", "pods"
  std::string name;
  std::vector<StatusCause> causes;
};

/// An error answered by the API server.
class ApiError : public Error {
 public:
  ApiError(ErrorCode code, std::string message, long http_status, std::string reason,
           StatusDetails details)
      : Error(code, std::move(message)),
        m_http_status(http_status),
        m_reason(std::move(reason)),
        m_details(std::move(details)) {}

  [[nodiscard]] long http_status() const { return m_http_status; }
  /// Status.reason, e.g. "AlreadyExists", "Conflict", "NotFound", "Forbidden".
  [[nodiscard]] const std::string& reason() const { return m_reason; }
  [[nodiscard]] const StatusDetails& details() const { return m_details; }
  [[nodiscard]] const std::vector<StatusCause>& causes() const { return m_details.causes; }

 private:
  long m_http_status;
  std::string m_reason;
  StatusDetails m_details;
};

/// The error for a non-2xx response with this status and body.
ApiError error_from_status(long http_status, std::string_view body);

/// The ejob error code for an HTTP status.
ErrorCode code_for_status(long http_status);

}  // namespace ejob::kubeapi
