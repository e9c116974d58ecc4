#include "ejob/agent/tcp_store_wire.hpp"

#include "ejob/util/error.hpp"

namespace ejob::agent::tcp_store {

void put_i64(std::string& out, std::int64_t value) {
  auto u = static_cast<std::uint64_t>(value);
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}

void put_bytes(std::string& out, std::string_view bytes) {
  put_i64(out, static_cast<std::int64_t>(bytes.size()));
  out.append(bytes);
}

std::optional<std::uint8_t> WireReader::byte() {
  if (m_pos >= m_buf.size()) return std::nullopt;
  return static_cast<std::uint8_t>(m_buf[m_pos++]);
}

std::optional<std::int64_t> WireReader::i64() {
  if (m_buf.size() - m_pos < 8) return std::nullopt;
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(m_buf[m_pos + i]);
  m_pos += 8;
  return static_cast<std::int64_t>(v);
}

std::optional<std::string> WireReader::bytes() {
  std::size_t start = m_pos;
  auto length = i64();
  if (!length) return std::nullopt;
  auto n = static_cast<std::uint64_t>(*length);
  if (n > k_max_bytes)
    throw Error(ErrorCode::Input, "a TCPStore string of " + std::to_string(n) + " bytes");
  if (m_buf.size() - m_pos < n) {
    m_pos = start;
    return std::nullopt;
  }
  std::string out(m_buf.substr(m_pos, n));
  m_pos += n;
  return out;
}

}  // namespace ejob::agent::tcp_store
