#include "src/agent/store/store_codec.hpp"

#include "src/util/base64.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

std::string b64encode(std::string_view bytes) { return base64_encode(bytes); }

std::string b64decode(std::string_view text) {
  std::string error;
  std::string out = base64_decode(text, error);
  if (!error.empty())
    throw Error(ErrorCode::Input, "not base64: '" + std::string(text) + "' (" + error + ")");
  return out;
}

}  // namespace ejob::agent
