#pragma once
/// The state behind a WebSocket, shared by websocket.cpp (frames, session) and
/// websocket_handshake.cpp (connection, upgrade). Not for use outside those two files.

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include "src/kubeapi/websocket.hpp"

namespace ejob::kubeapi {

using Clock = std::chrono::steady_clock;

struct WebSocket::Impl {
  std::unique_ptr<RawConnection> conn;  ///< reset = connection dropped
  int sock = -1;                        ///< the connection's socket
  std::string server;                   ///< the API server's URL, for messages
  std::string protocol;                 ///< the chosen subprotocol
  std::string in;                       ///< bytes received; those from in_pos on are not parsed yet
  std::size_t in_pos = 0;
  std::string fragments;  ///< the message being reassembled
  MessageType fragment_type = MessageType::Binary;
  bool in_fragment = false;
  bool close_sent = false;   ///< our close frame went out
  bool peer_closed = false;  ///< the server's close frame arrived (or the session failed)
  bool eof = false;          ///< the connection ended
  std::uint16_t close_code = 0;
  std::string close_reason;

  /// Reads every byte available now into `in`; false at the end of the connection.
  bool pull();
  /// poll() on the socket; false on timeout.
  bool wait(short events, int timeout_ms, short& revents) const;
  /// Writes all of `bytes`, reading ahead into `in` while the socket is full.
  void send_raw(std::string_view bytes);
  /// Writes one masked frame.
  void send_frame(std::uint8_t opcode, std::string_view payload);
  /// Handles the complete frames in `in`: a message or Closed, nullopt when more is needed.
  std::optional<Received> process(Message& out);
  /// receive() of the public object.
  Received receive(Message& out, std::chrono::milliseconds timeout);
  /// Handles a control frame (close, ping, pong).
  void on_control(std::uint8_t opcode, bool fin, const std::string& payload);
  /// Adds a data frame to the message being reassembled; true when `out` got a whole one.
  bool on_data(std::uint8_t opcode, bool fin, std::string& payload, Message& out);
  /// Records the server's close frame and answers it.
  void on_close_frame(const std::string& payload);
  /// Closes with 1002 and throws the protocol error.
  [[noreturn]] void fail(const std::string& what);
};

/// `n` bytes from the cryptographic random generator.
std::string random_bytes(std::size_t n);

}  // namespace ejob::kubeapi
