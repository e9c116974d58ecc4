#pragma once
/// The User-Agent of every HTTP request ejob makes (the API server's and schema documents').

namespace ejob::kubeapi {

inline constexpr const char* k_user_agent = "ejob/0.1.0";

}  // namespace ejob::kubeapi
