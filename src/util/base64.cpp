#include "src/util/base64.hpp"

#include <array>
#include <cstdint>

namespace ejob {
namespace {

constexpr std::string_view k_alphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::uint8_t k_invalid = 0xFF;

constexpr std::array<std::uint8_t, 256> decode_map() {
  std::array<std::uint8_t, 256> m{};
  for (auto& v : m) v = k_invalid;
  for (std::size_t i = 0; i < k_alphabet.size(); ++i)
    m[static_cast<unsigned char>(k_alphabet[i])] = static_cast<std::uint8_t>(i);
  return m;
}

constexpr auto k_decode = decode_map();

struct CorruptInput {
  std::size_t offset;
};

bool is_newline(char c) { return c == '\n' || c == '\r'; }

void put(std::string& dst, const std::array<std::uint32_t, 4>& q, std::size_t bytes) {
  const std::uint32_t v = q[0] << 18 | q[1] << 12 | q[2] << 6 | q[3];
  dst.push_back(static_cast<char>(v >> 16));
  if (bytes > 1) dst.push_back(static_cast<char>(v >> 8));
  if (bytes > 2) dst.push_back(static_cast<char>(v));
}

/// One quantum of four characters (Go's decodeQuantum for a padded, non-strict encoding);
/// returns where the next one starts. Throws CorruptInput.
std::size_t quantum(std::string& dst, std::string_view src, std::size_t si) {
  std::array<std::uint32_t, 4> q{};
  for (std::size_t j = 0; j < 4; ++j) {
    if (src.size() == si) {
      if (j == 0) return si;
      throw CorruptInput{si - j};
    }
    const auto in = static_cast<unsigned char>(src[si++]);
    if (k_decode[in] != k_invalid) {
      q[j] = k_decode[in];
      continue;
    }
    if (is_newline(static_cast<char>(in))) {
      --j;
      continue;
    }
    if (in != '=' || j < 2) throw CorruptInput{si - 1};
    if (j == 2) {  // "xx==": the second '=' must follow, newlines aside
      while (si < src.size() && is_newline(src[si])) ++si;
      if (si == src.size()) throw CorruptInput{src.size()};
      if (src[si] != '=') throw CorruptInput{si - 1};
      ++si;
    }
    while (si < src.size() && is_newline(src[si])) ++si;
    put(dst, q, j - 1);
    if (si < src.size()) throw CorruptInput{si};  // something after the padding
    return si;
  }
  put(dst, q, 3);
  return si;
}

/// Decodes the leading run of plain four-character quanta (no padding, no newline) in bulk:
/// the whole of most texts. Returns where the rest, for quantum(), starts.
std::size_t plain_quanta(std::string& dst, std::string_view src) {
  std::size_t at = dst.size();
  dst.resize(at + src.size() / 4 * 3);
  std::size_t si = 0;
  for (; si + 4 <= src.size(); si += 4) {
    std::uint32_t v = 0;
    bool plain = true;
    for (std::size_t j = 0; j < 4; ++j) {
      std::uint8_t d = k_decode[static_cast<unsigned char>(src[si + j])];
      plain = plain && d != k_invalid;
      v = v << 6 | (d & 0x3F);
    }
    if (!plain) break;
    dst[at++] = static_cast<char>(v >> 16);
    dst[at++] = static_cast<char>(v >> 8);
    dst[at++] = static_cast<char>(v);
  }
  dst.resize(at);
  return si;
}

}  // namespace

std::string base64_encode(std::string_view bytes) {
  std::string out((bytes.size() + 2) / 3 * 4, '\0');
  std::size_t i = 0;
  std::size_t o = 0;
  const auto byte = [&](std::size_t k) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[k]));
  };
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = byte(i) << 16 | byte(i + 1) << 8 | byte(i + 2);
    for (int s = 18; s >= 0; s -= 6) out[o++] = k_alphabet[(v >> s) & 0x3F];
  }
  out.resize(o);
  const std::size_t rem = bytes.size() - i;
  if (rem > 0) {
    std::uint32_t v = byte(i) << 16;
    if (rem == 2) v |= byte(i + 1) << 8;
    out.push_back(k_alphabet[(v >> 18) & 0x3F]);
    out.push_back(k_alphabet[(v >> 12) & 0x3F]);
    out.push_back(rem == 2 ? k_alphabet[(v >> 6) & 0x3F] : '=');
    out.push_back('=');
  }
  return out;
}

std::string base64_decode(std::string_view text, std::string& error) {
  std::string out;
  out.reserve(text.size() / 4 * 3);
  try {
    std::size_t si = plain_quanta(out, text);
    while (si < text.size()) si = quantum(out, text, si);
  } catch (const CorruptInput& e) {
    error = "illegal base64 data at input byte " + std::to_string(e.offset);
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string error;
  std::string out = base64_decode(text, error);
  if (!error.empty()) return std::nullopt;
  return out;
}

}  // namespace ejob
