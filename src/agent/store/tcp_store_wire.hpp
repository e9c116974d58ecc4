#pragma once
/// The TCPStore wire format of torch 1.13 and of torch 2.x (protocols/torch-c10d.md §3, §8),
/// shared by our client and server: one query byte, then byte strings as u64 little-endian
/// length + bytes, integers as i64 little-endian. 1.13 has no handshake; 2.x renumbered the
/// queries, opens every connection with VALIDATE (a u32 magic) and PING (a u32 echoed back),
/// and adds APPEND, MULTI_GET, MULTI_SET and CANCEL_WAIT. The same framing serves both.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ejob::agent::tcp_store {

/// Which torch's store protocol a connection speaks.
enum class Dialect { Torch1, Torch2 };

/// The queries of both dialects (what they mean, not their codes: see query_code()).
enum class Query : std::uint8_t {
  Set,
  CompareSet,
  Get,
  Add,
  Check,
  Wait,
  GetNumKeys,
  WatchKey,  ///< 1.13 only
  DeleteKey,
  Validate,  ///< 2.x only, from here on
  Append,
  MultiGet,
  MultiSet,
  CancelWait,
  Ping,
};

/// The byte that carries `q` in `d` (c10d::detail::QueryType of that torch); nullopt when
/// the dialect has no such query.
std::optional<std::uint8_t> query_code(Dialect d, Query q);
/// The query a byte carries in `d`; nullopt for a byte that dialect does not use.
std::optional<Query> query_of(Dialect d, std::uint8_t code);

/// The u32 a torch 2.x client sends after VALIDATE (c10d::detail::validationMagicNumber).
inline constexpr std::uint32_t k_validate_magic = 0x3C85F7CE;
/// What a torch 2.x connection begins with: VALIDATE (0) and the magic, little-endian. A 1.13
/// client's first command never starts so (it would be a SET of a key 0x3C85F7CE00… long).
inline constexpr std::string_view k_torch2_hello{"\x00\xce\xf7\x85\x3c", 5};

/// One-byte replies: CHECK answers Ready/NotReady, WAIT answers StopWaiting, WATCH_KEY answers
/// CallbackRegistered and later sends events.
enum class Status : std::uint8_t {
  Ready = 0,
  NotReady = 1,
  StopWaiting = 0,
  WaitCanceled = 1,  ///< 2.x: the answer to CANCEL_WAIT
  CallbackRegistered = 3
};

/// Watch event types sent on a WATCH_KEY connection.
enum class WatchEvent : std::uint8_t { Updated = 0, Created = 1, Deleted = 2 };

/// Appends a u64 little-endian length and the bytes.
void put_bytes(std::string& out, std::string_view bytes);
/// Appends an i64 little-endian.
void put_i64(std::string& out, std::int64_t value);
/// Appends a u32 little-endian (VALIDATE's magic, PING's nonce).
void put_u32(std::string& out, std::uint32_t value);

/// Reads the wire format from a buffer that may hold only part of a command: each read
/// returns nullopt when the buffer ends first, and the caller retries the whole command
/// once more bytes arrived.
class WireReader {
 public:
  explicit WireReader(std::string_view buffer) : m_buf(buffer) {}
  std::optional<std::uint8_t> byte();
  std::optional<std::int64_t> i64();
  std::optional<std::uint32_t> u32();
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
