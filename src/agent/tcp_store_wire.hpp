#pragma once
/// torch 1.13's TCPStore wire format (protocols/torch-c10d.md §3), shared by our client and
/// server: one query byte, then byte strings as u64 little-endian length + bytes, integers as
/// i64 little-endian; no handshake. torch 2.x renumbered the queries (§8) and is not spoken here.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ejob::agent::tcp_store {

/// Query codes of torch 1.13 (c10d::detail::QueryType).
enum class Query : std::uint8_t {
  Set = 0,
  CompareSet = 1,
  Get = 2,
  Add = 3,
  Check = 4,
  Wait = 5,
  GetNumKeys = 6,
  WatchKey = 7,
  DeleteKey = 8,
};

/// One-byte replies: CHECK answers Ready/NotReady, WAIT answers StopWaiting, WATCH_KEY answers
/// CallbackRegistered and later sends events.
enum class Status : std::uint8_t {
  Ready = 0,
  NotReady = 1,
  StopWaiting = 0,
  CallbackRegistered = 3
};

/// Watch event types sent on a WATCH_KEY connection.
enum class WatchEvent : std::uint8_t { Updated = 0, Created = 1, Deleted = 2 };

/// Appends a u64 little-endian length and the bytes.
void put_bytes(std::string& out, std::string_view bytes);
/// Appends an i64 little-endian.
void put_i64(std::string& out, std::int64_t value);

/// Reads the wire format from a buffer that may hold only part of a command: each read
/// returns nullopt when the buffer ends first, and the caller retries the whole command
/// once more bytes arrived.
class WireReader {
 public:
  explicit WireReader(std::string_view buffer) : m_buf(buffer) {}
  std::optional<std::uint8_t> byte();
  std::optional<std::int64_t> i64();
  std::optional<std::string> bytes();
  /// Bytes consumed so far.
  [[nodiscard]] std::size_t consumed() const { return m_pos; }

 private:
  std::string_view m_buf;
  std::size_t m_pos = 0;
};

/// The longest key or value accepted (a longer length is a peer speaking something else).
inline constexpr std::uint64_t k_max_bytes = 1ULL << 30;

}  // namespace ejob::agent::tcp_store
