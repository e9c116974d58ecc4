#include "ejob/agent/store_codec.hpp"

#include <openssl/evp.h>

#include <vector>

#include "ejob/util/error.hpp"

namespace ejob::agent {

std::string b64encode(std::string_view bytes) {
  std::vector<unsigned char> out(4 * ((bytes.size() + 2) / 3) + 1);
  int n = EVP_EncodeBlock(out.data(), reinterpret_cast<const unsigned char*>(bytes.data()),
                          static_cast<int>(bytes.size()));
  return std::string(reinterpret_cast<char*>(out.data()), static_cast<size_t>(n));
}

std::string b64decode(std::string_view text) {
  if (text.size() % 4 != 0)
    throw Error(ErrorCode::Input, "not base64: '" + std::string(text) + "'");
  std::vector<unsigned char> out(3 * (text.size() / 4) + 1);
  int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                          static_cast<int>(text.size()));
  if (n < 0) throw Error(ErrorCode::Input, "not base64: '" + std::string(text) + "'");
  // EVP_DecodeBlock keeps the zero bytes that padding stands for; drop them.
  size_t pad = 0;
  for (size_t i = text.size(); i > 0 && text[i - 1] == '='; --i) ++pad;
  return std::string(reinterpret_cast<char*>(out.data()), static_cast<size_t>(n) - pad);
}

}  // namespace ejob::agent
