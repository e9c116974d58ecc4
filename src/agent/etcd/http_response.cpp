#include "src/agent/etcd/http_response.hpp"

#include <cctype>

#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

/// A head (status line and headers) longer than this is not an HTTP server answering.
constexpr std::size_t max_head_bytes = 64 * 1024;

[[noreturn]] void malformed(const std::string& what) {
  throw Error(ErrorCode::Transport, "malformed HTTP response: " + what);
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

/// Whether a comma-separated header value lists `token` (case-insensitive).
bool lists_token(const std::string* value, std::string_view token) {
  if (value == nullptr) return false;
  std::string_view rest = *value;
  while (!rest.empty()) {
    std::size_t comma = rest.find(',');
    if (lower(trim(rest.substr(0, comma))) == token) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

std::size_t parse_size(std::string_view digits, int base, const char* what) {
  digits = trim(digits);
  if (digits.empty() || digits.size() > 15) malformed(std::string("bad ") + what);
  std::size_t value = 0;
  for (char c : digits) {
    int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
            : base == 16 && std::isxdigit(static_cast<unsigned char>(c))
                ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                : -1;
    if (d < 0) malformed(std::string("bad ") + what + " '" + std::string(digits) + "'");
    value = value * static_cast<std::size_t>(base) + static_cast<std::size_t>(d);
  }
  return value;
}

}  // namespace

const std::string* HttpResponse::header(std::string_view name) const {
  for (const auto& [key, value] : headers)
    if (key == name) return &value;
  return nullptr;
}

bool HttpResponseReader::feed(std::string_view bytes) {
  if (m_state == State::Done) return true;
  if (!bytes.empty()) m_started = true;
  m_buffer.append(bytes);
  while (step()) {
  }
  return m_state == State::Done;
}

bool HttpResponseReader::finish_at_eof() {
  if (m_state == State::UntilClose) {
    m_response.body += m_buffer;
    m_buffer.clear();
    m_state = State::Done;
  }
  if (m_state != State::Done)
    malformed(m_started ? "the connection closed in the middle of the response"
                        : "the connection closed before any response");
  return true;
}

/// One state transition; false when more bytes are needed (or the response is done).
bool HttpResponseReader::step() {
  switch (m_state) {
    case State::Head: return read_head();
    case State::Length: return read_length();
    case State::ChunkSize: return read_chunk_size();
    case State::ChunkData: return read_chunk_data();
    case State::ChunkEnd: {
      std::string line;
      if (!read_line(line)) return false;
      if (!line.empty()) malformed("a chunk is longer than its size");
      m_state = State::ChunkSize;
      return true;
    }
    case State::Trailer: {
      std::string line;
      if (!read_line(line)) return false;
      if (line.empty()) m_state = State::Done;
      return true;
    }
    case State::UntilClose:
      m_response.body += m_buffer;
      m_buffer.clear();
      return false;
    case State::Done: return false;
  }
  return false;
}

bool HttpResponseReader::read_line(std::string& line) {
  std::size_t end = m_buffer.find("\r\n");
  if (end == std::string::npos) {
    if (m_buffer.size() > max_head_bytes) malformed("a line longer than 64 KiB");
    return false;
  }
  line = m_buffer.substr(0, end);
  m_buffer.erase(0, end + 2);
  return true;
}

bool HttpResponseReader::read_head() {
  std::size_t end = m_buffer.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (m_buffer.size() > max_head_bytes) malformed("headers longer than 64 KiB");
    return false;
  }
  parse_head(std::string_view(m_buffer).substr(0, end));
  m_buffer.erase(0, end + 4);
  if (m_response.status >= 100 && m_response.status < 200) {  // 100 Continue and the like
    m_response = HttpResponse{};
    return true;
  }
  choose_framing();
  return true;
}

void HttpResponseReader::parse_head(std::string_view head) {
  std::size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." || status_line[8] != ' ')
    malformed("status line '" + std::string(status_line.substr(0, 80)) + "'");
  m_response.status = static_cast<int>(parse_size(status_line.substr(9, 3), 10, "status code"));
  bool http10 = status_line[7] == '0';
  while (eol != std::string_view::npos) {
    head.remove_prefix(eol + 2);
    eol = head.find("\r\n");
    std::string_view line = head.substr(0, eol);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0)
      malformed("header line '" + std::string(line.substr(0, 80)) + "'");
    m_response.headers.emplace_back(lower(line.substr(0, colon)),
                                    std::string(trim(line.substr(colon + 1))));
  }
  const std::string* connection = m_response.header("connection");
  m_response.keep_alive =
      http10 ? lists_token(connection, "keep-alive") : !lists_token(connection, "close");
}

void HttpResponseReader::choose_framing() {
  int status = m_response.status;
  if (status == 204 || status == 304) {
    m_state = State::Done;
  } else if (const std::string* coding = m_response.header("transfer-encoding")) {
    // chunked is always the last coding when present (RFC 9112 section 6.1)
    std::string codings = lower(trim(*coding));
    bool chunked = codings.size() >= 7 && codings.compare(codings.size() - 7, 7, "chunked") == 0;
    m_state = chunked ? State::ChunkSize : State::UntilClose;
  } else if (const std::string* length = m_response.header("content-length")) {
    m_remaining = parse_size(*length, 10, "Content-Length");
    m_state = m_remaining == 0 ? State::Done : State::Length;
  } else {
    m_state = State::UntilClose;
  }
  if (m_state == State::UntilClose) m_response.keep_alive = false;
}

bool HttpResponseReader::read_length() {
  std::size_t take = std::min(m_remaining, m_buffer.size());
  m_response.body.append(m_buffer, 0, take);
  m_buffer.erase(0, take);
  m_remaining -= take;
  if (m_remaining == 0) m_state = State::Done;
  return m_state == State::Done;
}

bool HttpResponseReader::read_chunk_size() {
  std::string line;
  if (!read_line(line)) return false;
  m_remaining = parse_size(std::string_view(line).substr(0, line.find(';')), 16, "chunk size");
  m_state = m_remaining == 0 ? State::Trailer : State::ChunkData;
  return true;
}

bool HttpResponseReader::read_chunk_data() {
  std::size_t take = std::min(m_remaining, m_buffer.size());
  m_response.body.append(m_buffer, 0, take);
  m_buffer.erase(0, take);
  m_remaining -= take;
  if (m_remaining > 0) return false;
  m_state = State::ChunkEnd;
  return true;
}

}  // namespace ejob::agent
