// The WebSocket session: frame codec, message reassembly, control frames and the byte I/O over
// the Transport's RawConnection. The opening handshake is in websocket_handshake.cpp.

#include "src/kubeapi/websocket.hpp"

#include <openssl/evp.h>
#include <openssl/rand.h>
#include <poll.h>

#include <cstring>
#include <optional>

#include "src/kubeapi/websocket_impl.hpp"
#include "src/util/base64.hpp"
#include "src/util/error.hpp"

namespace ejob::kubeapi {
namespace {

constexpr std::uint8_t k_continuation = 0x0;
constexpr std::uint8_t k_text = 0x1;
constexpr std::uint8_t k_binary = 0x2;
constexpr std::uint8_t k_close = 0x8;
constexpr std::uint8_t k_ping = 0x9;
constexpr std::uint8_t k_pong = 0xA;

constexpr std::size_t k_max_message = 64u << 20;
constexpr std::size_t k_read_chunk = 64u << 10;
constexpr std::chrono::milliseconds k_close_wait{1'000};

/// One frame as read from the server.
struct Frame {
  bool fin = false;
  std::uint8_t opcode = 0;
  std::string payload;
};

/// Milliseconds left until `deadline` for poll(): -1 without deadline, never below 0.
int poll_wait(std::optional<Clock::time_point> deadline) {
  if (!deadline) return -1;
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

std::optional<Clock::time_point> deadline_after(std::chrono::milliseconds timeout) {
  if (timeout.count() < 0) return std::nullopt;
  return Clock::now() + timeout;
}

/// XORs `n` bytes with the repeated 4-byte mask, eight bytes at a time (a doubled key covers a
/// word because the mask repeats every four bytes).
void mask_in_place(char* p, std::size_t n, const std::uint8_t (&mask)[4]) {
  std::uint8_t doubled[8];
  for (int k = 0; k < 8; ++k) doubled[k] = mask[k % 4];
  std::uint64_t key8;
  std::memcpy(&key8, doubled, 8);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t word;
    std::memcpy(&word, p + i, 8);
    word ^= key8;
    std::memcpy(p + i, &word, 8);
  }
  for (; i < n; ++i) p[i] = static_cast<char>(p[i] ^ mask[i % 4]);
}

}  // namespace

std::string websocket_accept(std::string_view key) {
  constexpr std::string_view k_guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  const std::string text = std::string(key) + std::string(k_guid);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), digest, &len, EVP_sha1(), nullptr);
  return base64_encode(std::string_view(reinterpret_cast<const char*>(digest), len));
}

std::string random_bytes(std::size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()), static_cast<int>(n)) != 1)
    throw Error(ErrorCode::Internal, "the random number generator failed");
  return out;
}

std::string websocket_frame(std::uint8_t opcode, std::string_view payload,
                            const std::uint8_t (&mask)[4]) {
  std::string out;
  out.reserve(payload.size() + 14);
  out += static_cast<char>(0x80 | opcode);
  const std::size_t n = payload.size();
  if (n < 126) {
    out += static_cast<char>(0x80 | n);
  } else if (n <= 0xFFFF) {
    out += static_cast<char>(0x80 | 126);
    out += static_cast<char>(n >> 8);
    out += static_cast<char>(n & 0xFF);
  } else {
    out += static_cast<char>(0x80 | 127);
    for (int shift = 56; shift >= 0; shift -= 8) out += static_cast<char>((n >> shift) & 0xFF);
  }
  out.append(reinterpret_cast<const char*>(mask), 4);
  const std::size_t start = out.size();
  out.append(payload);
  mask_in_place(out.data() + start, n, mask);
  return out;
}

// ---- bytes on the connection -------------------------------------------------------------------

bool WebSocket::Impl::pull() {
  char buf[k_read_chunk];
  while (true) {
    const long n = conn->receive(buf, sizeof buf);
    if (n < 0) return true;
    if (n == 0) return false;
    in.append(buf, static_cast<std::size_t>(n));
  }
}

bool WebSocket::Impl::wait(short events, int timeout_ms, short& revents) const {
  pollfd p{sock, events, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, timeout_ms);
  } while (rc < 0 && errno == EINTR);
  revents = p.revents;
  return rc > 0;
}

void WebSocket::Impl::send_raw(std::string_view bytes) {
  while (!bytes.empty()) {
    if (const std::size_t n = conn->send(bytes); n > 0) {
      bytes.remove_prefix(n);
      continue;
    }
    // Keep reading while the peer is not taking our bytes: it may be waiting for us to read.
    short revents = 0;
    wait(POLLIN | POLLOUT, -1, revents);
    if ((revents & (POLLIN | POLLHUP | POLLERR)) && !eof && !pull()) eof = true;
  }
}

void WebSocket::Impl::send_frame(std::uint8_t opcode, std::string_view payload) {
  const std::string key = random_bytes(4);
  std::uint8_t mask[4];
  for (int i = 0; i < 4; ++i) mask[i] = static_cast<std::uint8_t>(key[i]);
  send_raw(websocket_frame(opcode, payload, mask));
}

// ---- frames ------------------------------------------------------------------------------------

namespace {

/// Parses one complete frame from the front of `in` and adds its size to `used`; nullopt
/// when more bytes are needed. `error` is set for a frame no server may send.
std::optional<Frame> parse_frame(std::string_view in, std::size_t& used, std::string& error) {
  if (in.size() < 2) return std::nullopt;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(in[i]); };
  Frame f;
  f.fin = (byte(0) & 0x80) != 0;
  f.opcode = byte(0) & 0x0F;
  if (byte(0) & 0x70) error = "a frame with reserved bits set";
  if (byte(1) & 0x80) error = "a masked frame";
  std::uint64_t len = byte(1) & 0x7F;
  std::size_t pos = 2;
  if (len == 126 || len == 127) {
    const std::size_t width = len == 126 ? 2 : 8;
    if (in.size() < pos + width) return std::nullopt;
    len = 0;
    for (std::size_t i = 0; i < width; ++i) len = (len << 8) | byte(pos + i);
    pos += width;
  }
  if (len > k_max_message) error = "a frame of " + std::to_string(len) + " bytes";
  if (!error.empty()) return std::nullopt;
  if (in.size() < pos + len) return std::nullopt;
  f.payload = std::string(in.substr(pos, static_cast<std::size_t>(len)));
  used += pos + static_cast<std::size_t>(len);
  return f;
}

}  // namespace

[[noreturn]] void WebSocket::Impl::fail(const std::string& what) {
  if (!close_sent && !eof) {
    try {
      close_sent = true;
      send_frame(k_close, std::string("\x03\xEA", 2));  // 1002: protocol error
    } catch (const Error&) {
      // the connection is being dropped anyway
    }
  }
  peer_closed = true;
  if (close_code == 0) close_code = 1006;
  throw Error(ErrorCode::Transport, "WebSocket protocol error: " + server + " sent " + what);
}

void WebSocket::Impl::on_close_frame(const std::string& payload) {
  if (payload.size() == 1) fail("a close frame of one byte");
  close_code = 1005;
  if (payload.size() >= 2) {
    close_code = static_cast<std::uint16_t>((static_cast<std::uint8_t>(payload[0]) << 8) |
                                            static_cast<std::uint8_t>(payload[1]));
    close_reason = payload.substr(2);
  }
  if (!close_sent) {
    close_sent = true;
    try {
      send_frame(k_close, payload.substr(0, 2));
    } catch (const Error&) {
      // the peer may already have dropped the connection; it closed first
    }
  }
  peer_closed = true;
}

void WebSocket::Impl::on_control(std::uint8_t opcode, bool fin, const std::string& payload) {
  if (!fin || payload.size() > 125) fail("a fragmented or long control frame");
  if (opcode == k_close) {
    on_close_frame(payload);
  } else if (opcode == k_ping) {
    if (!close_sent) send_frame(k_pong, payload);
  } else if (opcode != k_pong) {
    fail("a frame with opcode " + std::to_string(opcode));
  }
}

bool WebSocket::Impl::on_data(std::uint8_t opcode, bool fin, std::string& payload, Message& out) {
  if (opcode == k_continuation) {
    if (!in_fragment) fail("a continuation frame outside a message");
  } else if (opcode == k_text || opcode == k_binary) {
    if (in_fragment) fail("a new message inside a fragmented one");
    in_fragment = true;
    fragment_type = opcode == k_text ? MessageType::Text : MessageType::Binary;
    fragments.clear();
  } else {
    fail("a frame with opcode " + std::to_string(opcode));
  }
  if (fragments.size() + payload.size() > k_max_message) fail("a message above 64 MiB");
  fragments += payload;
  if (!fin) return false;
  in_fragment = false;
  out.type = fragment_type;
  out.data = std::move(fragments);
  fragments.clear();
  return true;
}

std::optional<Received> WebSocket::Impl::process(Message& out) {
  while (!peer_closed) {
    std::string error;
    std::size_t used = 0;
    std::optional<Frame> f = parse_frame(std::string_view(in).substr(in_pos), used, error);
    if (!error.empty()) fail(error);
    in_pos += used;
    if (!f) {
      in.erase(0, in_pos);  // once per batch of frames, not once per frame
      in_pos = 0;
      return std::nullopt;
    }
    if (f->opcode >= k_close) {
      on_control(f->opcode, f->fin, f->payload);
    } else if (on_data(f->opcode, f->fin, f->payload, out)) {
      return Received::Message;
    }
  }
  return Received::Closed;
}

Received WebSocket::Impl::receive(Message& out, std::chrono::milliseconds timeout) {
  const auto deadline = deadline_after(timeout);
  while (true) {
    if (auto r = process(out)) return *r;
    if (eof) {
      peer_closed = true;
      if (close_code == 0) close_code = 1006;
      return Received::Closed;
    }
    short revents = 0;
    if (!wait(POLLIN, poll_wait(deadline), revents)) return Received::Timeout;
    if (!pull()) eof = true;
  }
}

// ---- the public object -------------------------------------------------------------------------

WebSocket::WebSocket(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

WebSocket::~WebSocket() { close(); }

const std::string& WebSocket::protocol() const { return m_impl->protocol; }

void WebSocket::send(MessageType type, std::string_view data) {
  if (m_impl->close_sent || m_impl->peer_closed || m_impl->eof)
    throw Error(ErrorCode::Transport, "the WebSocket to " + m_impl->server + " is closed");
  m_impl->send_frame(type == MessageType::Text ? k_text : k_binary, data);
}

Received WebSocket::receive(Message& out, std::chrono::milliseconds timeout) {
  return m_impl->receive(out, timeout);
}

void WebSocket::close(std::uint16_t code, std::string_view reason) {
  Impl& s = *m_impl;
  if (!s.conn) return;
  try {
    if (!s.close_sent && !s.eof) {
      std::string payload;
      payload += static_cast<char>(code >> 8);
      payload += static_cast<char>(code & 0xFF);
      payload.append(reason.substr(0, 123));
      s.close_sent = true;
      s.send_frame(k_close, payload);
    }
    // The server answers with its close frame; data still in flight is dropped.
    Message ignored;
    const auto deadline = Clock::now() + k_close_wait;
    while (!s.peer_closed && Clock::now() < deadline)
      s.receive(ignored,
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
  } catch (const Error&) {
    // closing never fails: the connection is dropped below either way
  }
  s.conn.reset();
}

std::uint16_t WebSocket::close_code() const { return m_impl->close_code; }

const std::string& WebSocket::close_reason() const { return m_impl->close_reason; }

int WebSocket::socket() const { return m_impl->sock; }

}  // namespace ejob::kubeapi
