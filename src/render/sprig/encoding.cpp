// Sprig's b64enc/b64dec/b32enc/b32dec: Go's encoding/base64 and encoding/base32 standard
// (padded) encodings. A decode error is returned as the string `illegal base64 data at input
// byte N`, as Sprig does, with Go's exact offsets (\r and \n are skipped while decoding).
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

constexpr std::string_view k_b32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

std::array<uint8_t, 256> decode_map(std::string_view alphabet) {
  std::array<uint8_t, 256> m{};
  m.fill(0xFF);
  for (size_t i = 0; i < alphabet.size(); ++i) {
    m[static_cast<unsigned char>(alphabet[i])] = static_cast<uint8_t>(i);
  }
  return m;
}

std::string b64_decode(std::string_view src) {
  std::string error;
  std::string out = base64_decode(src, error);
  return error.empty() ? out : error;
}

std::string b64_encode(std::string_view src) { return base64_encode(src); }

std::string b32_encode(std::string_view src) {
  std::string out;
  for (size_t i = 0; i < src.size(); i += 5) {
    size_t n = std::min<size_t>(5, src.size() - i);
    uint64_t v = 0;
    for (size_t k = 0; k < 5; ++k) {
      v = v << 8 | (k < n ? static_cast<unsigned char>(src[i + k]) : 0);
    }
    static constexpr std::array<size_t, 6> k_chars{0, 2, 4, 5, 7, 8};
    size_t chars = k_chars[n];
    for (size_t k = 0; k < 8; ++k) {
      out.push_back(k < chars ? k_b32[(v >> (35 - 5 * k)) & 0x1F] : '=');
    }
  }
  return out;
}

/// Go's base32 decode (after stripping \r and \n), padded standard encoding.
std::string b32_decode(std::string_view input) {
  static const auto dmap = decode_map(k_b32);
  std::string src;
  for (char c : input) {
    if (c != '\r' && c != '\n') src.push_back(c);
  }
  std::string out;
  size_t olen = src.size();
  std::string_view rest = src;
  auto fail = [&](size_t off) {
    return "illegal base32 data at input byte " + std::to_string(off);
  };
  bool end = false;
  while (!rest.empty() && !end) {
    std::array<uint64_t, 8> dbuf{};
    size_t dlen = 8;
    for (size_t j = 0; j < 8;) {
      if (rest.empty()) return fail(olen - rest.size() - j);
      unsigned char in = static_cast<unsigned char>(rest[0]);
      rest.remove_prefix(1);
      if (in == '=' && j >= 2 && rest.size() < 8) {
        if (rest.size() + j < 7) return fail(olen);
        for (size_t k = 0; k < 7 - j; ++k) {
          if (rest.size() > k && rest[k] != '=') return fail(olen - rest.size() + k - 1);
        }
        dlen = j;
        end = true;
        if (dlen == 1 || dlen == 3 || dlen == 6) return fail(olen - rest.size() - 1);
        break;
      }
      dbuf[j] = dmap[in];
      if (dbuf[j] == 0xFF) return fail(olen - rest.size() - 1);
      ++j;
    }
    uint64_t v = 0;
    for (uint64_t d : dbuf) v = v << 5 | d;
    static constexpr std::array<size_t, 9> k_bytes{0, 0, 1, 0, 2, 3, 0, 4, 5};
    for (size_t k = 0; k < k_bytes[dlen]; ++k) out.push_back(static_cast<char>(v >> (32 - 8 * k)));
  }
  return out;
}

}  // namespace

void register_sprig_encoding(FuncMap& map) {
  auto add = [&](std::string name, std::string (*f)(std::string_view)) {
    map.add(std::move(name),
            fn({P::String}, [f](const FuncArgs& a) { return Value::string(f(a[0].as_string())); }));
  };
  add("b64enc", b64_encode);
  add("b64dec", b64_decode);
  add("b32enc", b32_encode);
  add("b32dec", b32_decode);
}

}  // namespace ejob::render::sprig
