#include "src/agent/store/tcp_store_wire.hpp"

#include <iterator>

#include "src/util/error.hpp"

namespace ejob::agent::tcp_store {
namespace {

/// Index: the code; value: the query. 1.13's QueryType, then 2.6's (torch 2.x moved every code
/// up by one to put VALIDATE first, dropped WATCH_KEY and appended the rest).
constexpr Query k_torch1_codes[] = {Query::Set,        Query::CompareSet, Query::Get,
                                    Query::Add,        Query::Check,      Query::Wait,
                                    Query::GetNumKeys, Query::WatchKey,   Query::DeleteKey};
constexpr Query k_torch2_codes[] = {
    Query::Validate, Query::Set,      Query::CompareSet, Query::Get,       Query::Add,
    Query::Check,    Query::Wait,     Query::GetNumKeys, Query::DeleteKey, Query::Append,
    Query::MultiGet, Query::MultiSet, Query::CancelWait, Query::Ping};

template <std::size_t N>
std::optional<std::uint8_t> code_in(const Query (&table)[N], Query q) {
  for (std::size_t i = 0; i < N; ++i)
    if (table[i] == q) return static_cast<std::uint8_t>(i);
  return std::nullopt;
}

}  // namespace

std::optional<std::uint8_t> query_code(Dialect d, Query q) {
  return d == Dialect::Torch1 ? code_in(k_torch1_codes, q) : code_in(k_torch2_codes, q);
}

std::optional<Query> query_of(Dialect d, std::uint8_t code) {
  if (d == Dialect::Torch1)
    return code < std::size(k_torch1_codes) ? std::optional(k_torch1_codes[code]) : std::nullopt;
  return code < std::size(k_torch2_codes) ? std::optional(k_torch2_codes[code]) : std::nullopt;
}

void put_u32(std::string& out, std::uint32_t value) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

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

std::optional<std::uint32_t> WireReader::u32() {
  if (m_buf.size() - m_pos < 4) return std::nullopt;
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<unsigned char>(m_buf[m_pos + i]);
  m_pos += 4;
  return v;
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
