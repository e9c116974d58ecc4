#pragma once
/// Base64 as Python's b64encode/b64decode (standard alphabet, '=' padding): the EtcdStore
/// encodes every key and value this way.

#include <string>
#include <string_view>

namespace ejob::agent {

/// Encodes bytes as standard base64 with padding.
std::string b64encode(std::string_view bytes);

/// Decodes standard base64. Throws ejob::Error(Input) for text that is not base64.
std::string b64decode(std::string_view text);

}  // namespace ejob::agent
