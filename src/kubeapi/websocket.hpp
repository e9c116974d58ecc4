#pragma once
/// A WebSocket client (RFC 6455) to the API server, for the subresources that stream both
/// ways (pods/portforward). The connection is the Transport's (Transport::connect: its cluster
/// settings — the CA and client certificate parsed once, insecure-skip-tls-verify,
/// tls-server-name, proxy-url — and its credentials: token, exec plugin, basic auth; a 401
/// refreshes them once, as Transport does); this class writes the HTTP/1.1 upgrade and the
/// frames itself.
///
/// Handshake: GET with `Upgrade: websocket`, a random 16-byte Sec-WebSocket-Key and the offered
/// subprotocols; only `101` with `Sec-WebSocket-Accept` = base64(SHA-1(key + RFC GUID)) and a
/// subprotocol from the offer (or none) is accepted. Any other status becomes the ApiError of
/// its Status body (api_error.hpp), e.g. 404 NotFound for an unknown pod.
///
/// Frames: client frames are masked with a fresh random key each; server frames must not be.
/// Text and binary messages may arrive fragmented (continuation frames) and are delivered
/// whole; pings are answered with pongs carrying the same payload; pongs are ignored; a close
/// frame is answered with a close frame and ends the session. Messages above 64 MiB are
/// refused. While send() waits for the socket to take more bytes it keeps reading (into a
/// buffer), so two peers that both send a lot cannot block each other.
///
/// One thread at a time may use a WebSocket. No curl type appears in this header.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "src/kubeapi/transport.hpp"

namespace ejob::kubeapi {

enum class MessageType { Text, Binary };

/// One whole (reassembled) data message.
struct Message {
  MessageType type = MessageType::Binary;
  std::string data;
};

/// What receive() found.
enum class Received {
  Message,  ///< a data message was stored in `out`
  Timeout,  ///< nothing complete arrived in time
  Closed,   ///< the peer closed (close frame or end of the connection)
};

/// How long the opening handshake may take (TCP, TLS and the 101 answer).
inline constexpr std::chrono::milliseconds k_websocket_handshake_timeout{30'000};

class WebSocket {
 public:
  /// Opens a WebSocket to `target` (path and query) on the transport's API server, offering
  /// `protocols` in order. Throws ejob::Error(Transport) when the server cannot be reached,
  /// the TLS handshake fails or the answer is not a valid WebSocket upgrade; ApiError for a
  /// non-101 status; ejob::Error(Auth) when credentials cannot be obtained.
  static std::unique_ptr<WebSocket> open(Transport& transport, const std::string& target,
                                         const std::vector<std::string>& protocols);

  ~WebSocket();
  WebSocket(const WebSocket&) = delete;
  WebSocket& operator=(const WebSocket&) = delete;

  /// The subprotocol the server chose ("" when it named none).
  [[nodiscard]] const std::string& protocol() const;

  /// Sends one message as a single masked frame. Throws ejob::Error(Transport) when the
  /// connection is broken or already closed.
  void send(MessageType type, std::string_view data);

  /// Waits up to `timeout` (negative: without limit, zero: only what already arrived) for the
  /// next data message, answering pings on the way. Throws ejob::Error(Transport) for a
  /// protocol violation by the server (after closing with status 1002) or a broken read.
  Received receive(Message& out, std::chrono::milliseconds timeout);

  /// Sends a close frame (when none was sent yet), waits briefly for the server's, and drops
  /// the connection. Never throws; safe to call twice.
  void close(std::uint16_t code = 1000, std::string_view reason = "");

  /// The status code of the server's close frame (1005 when it gave none, 1006 when the
  /// connection ended without a close frame, 0 while open).
  [[nodiscard]] std::uint16_t close_code() const;
  /// The reason text of the server's close frame.
  [[nodiscard]] const std::string& close_reason() const;

  /// The connection's socket, for poll(): readable means receive() may have news. send()
  /// may read ahead, so call receive(…, 0) until it answers Timeout before polling again.
  [[nodiscard]] int socket() const;

  struct Impl;

 private:
  explicit WebSocket(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

/// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + RFC 6455 GUID)).
std::string websocket_accept(std::string_view key);

/// One frame as a client sends it (FIN set, masked with `mask`); exposed for tests.
std::string websocket_frame(std::uint8_t opcode, std::string_view payload,
                            const std::uint8_t (&mask)[4]);

}  // namespace ejob::kubeapi
