#include "src/util/error.hpp"

namespace ejob {

int exit_code(ErrorCode code) {
  switch (code) {
    case ErrorCode::Closed:
    case ErrorCode::JobFailed: return 1;
    case ErrorCode::Usage: return 2;
    case ErrorCode::Input:
    case ErrorCode::Io: return 3;
    case ErrorCode::Transport: return 4;
    case ErrorCode::Api: return 5;
    case ErrorCode::Auth: return 6;
    case ErrorCode::Conflict: return 7;
    case ErrorCode::NotFound: return 8;
    case ErrorCode::Timeout: return 9;
    case ErrorCode::Preempted: return 10;
    case ErrorCode::Internal: return 70;
  }
  return 70;
}

std::string format_error(const Error& e) {
  std::string out = "ejob: error: ";
  const Location& w = e.where();
  if (!w.empty()) {
    out += w.file;
    if (w.line > 0) {
      out += ':' + std::to_string(w.line);
      if (w.column > 0) out += ':' + std::to_string(w.column);
    }
    out += ": ";
  }
  out += e.message();
  out += '\n';
  if (!w.source_line.empty()) {
    out += w.source_line;
    out += '\n';
    // The caret sits under the column; tabs are kept so it lines up in a terminal.
    for (int i = 1; i < w.column && i - 1 < static_cast<int>(w.source_line.size()); ++i)
      out += w.source_line[static_cast<size_t>(i - 1)] == '\t' ? '\t' : ' ';
    out += "^\n";
  }
  return out;
}

}  // namespace ejob
