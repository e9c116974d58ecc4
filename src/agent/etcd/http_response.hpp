#pragma once
/// An HTTP/1.1 response read incrementally from a byte stream: the status line, the headers,
/// and a body framed by Content-Length, chunked transfer coding, or the end of the connection.
/// Only what etcd's HTTP API sends is needed, but every framing RFC 9112 allows is read, and
/// anything else is refused with a message (never guessed at).

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ejob::agent {

/// A complete response.
struct HttpResponse {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  ///< names lower-cased, in order
  std::string body;
  bool keep_alive = true;  ///< the connection may carry the next request

  /// The first header of this (lower-case) name, or nullptr.
  [[nodiscard]] const std::string* header(std::string_view name) const;
};

/// Feeds bytes in; says when the response is complete. Throws ejob::Error(Transport) on a
/// malformed response.
class HttpResponseReader {
 public:
  /// Consumes `bytes`; true once the whole response has been read (later bytes are ignored).
  bool feed(std::string_view bytes);
  /// The peer closed the connection: true when that ends a body read to the end; throws when
  /// the response is incomplete.
  bool finish_at_eof();
  /// Whether any byte of a response has arrived (a reused connection that closes before that
  /// is a stale keep-alive connection, and the request may be sent again).
  [[nodiscard]] bool started() const { return m_started; }
  [[nodiscard]] const HttpResponse& response() const { return m_response; }
  [[nodiscard]] HttpResponse take() { return std::move(m_response); }

 private:
  enum class State { Head, Length, ChunkSize, ChunkData, ChunkEnd, Trailer, UntilClose, Done };
  bool step();
  bool read_head();
  void parse_head(std::string_view head);
  void choose_framing();
  bool read_length();
  bool read_chunk_size();
  bool read_chunk_data();
  bool read_line(std::string& line);

  State m_state = State::Head;
  std::string m_buffer;
  std::size_t m_remaining = 0;
  bool m_started = false;
  HttpResponse m_response;
};

}  // namespace ejob::agent
