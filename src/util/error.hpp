#pragma once
/// ejob's one error model (STYLE.md §4): code below cli/ throws ejob::Error; cli::run catches it
/// once, prints `ejob: error: …` and maps the code to a documented exit status (exit_code()).
/// Library exceptions (yaml-cpp, nlohmann::json, curl) are converted at their adapter.

#include <stdexcept>
#include <string>
#include <string_view>

namespace ejob {

/// What kind of failure; each maps to one exit status (docs/exit-codes.md).
enum class ErrorCode {
  Usage,      ///< bad command line: unknown flag, malformed flag value       -> 2
  Input,      ///< bad user input: chart, values, job file, template error    -> 3
  Io,         ///< a local file could not be read or written                  -> 3
  Transport,  ///< network/TLS failure talking to a server                    -> 4
  Api,        ///< the API server answered with an error Status               -> 5
  Auth,       ///< 401/403, failed credential plugin                           -> 6
  Conflict,   ///< name taken, server-side-apply conflict                     -> 7
  NotFound,   ///< object or CRD missing                                       -> 8
  Timeout,    ///< a wait or rendezvous ran out of time                        -> 9
  Closed,     ///< rendezvous closed                                           -> 1
  JobFailed,  ///< the job a command waited for failed                         -> 1
  Preempted,  ///< the job failed after its workers were preempted or evicted  -> 10
  Internal,   ///< a bug in ejob                                               -> 70
};

/// Where an error points: a file and a 1-based line/column (0 = unknown), or a flag/key name.
struct Location {
  std::string file;
  int line = 0;
  int column = 0;
  std::string source_line;  ///< the text of that line, for the caret display

  [[nodiscard]] bool empty() const { return file.empty(); }
};

/// The one exception type of ejob. `message` reads as a sentence fragment without a trailing
/// period; `where` is optional.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string message, Location where = {})
      : std::runtime_error(message),
        m_code(code),
        m_message(std::move(message)),
        m_where(std::move(where)) {}

  [[nodiscard]] ErrorCode code() const { return m_code; }
  [[nodiscard]] const std::string& message() const { return m_message; }
  [[nodiscard]] const Location& where() const { return m_where; }

 private:
  ErrorCode m_code;
  std::string m_message;
  Location m_where;
};

/// The process exit status for an error code (the only place that decides it).
int exit_code(ErrorCode code);

/// Renders an error for the terminal: `ejob: error: FILE:LINE:COL: message`, then, when the
/// source line is known, that line and a caret under the column.
std::string format_error(const Error& e);

}  // namespace ejob
