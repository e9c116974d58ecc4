#pragma once
/// Debian's /usr/bin/python3 (torch 1.13), or the python3 of the Debian 13 root (torch 2.6,
/// scripts/peers.sh; run there by in_torch2_root.sh), as a real peer for the agent's tests: a
/// script from tests/agent run with arguments, its stdout read line by line, its stdin
/// written; the process is killed and reaped on destruction.

#include <sys/types.h>

#include <string>
#include <vector>

namespace ejob::agent::testing {

/// Which torch runs the script.
enum class Torch { V1_13, V2_6 };

/// One running Python script.
class PythonPeer {
 public:
  /// Starts `python3 tests/agent/<script> args...` (for 2.6 the script's text is passed with
  /// `-c`: the root does not see this tree). Throws std::runtime_error when it cannot.
  PythonPeer(const std::string& script, const std::vector<std::string>& args,
             Torch torch = Torch::V1_13);
  ~PythonPeer();
  PythonPeer(const PythonPeer&) = delete;
  PythonPeer& operator=(const PythonPeer&) = delete;

  /// The next line of its stdout (without the newline). Throws std::runtime_error at EOF or
  /// after `timeout_s` seconds.
  std::string read_line(int timeout_s = 60);
  /// Writes to its stdin.
  void write(const std::string& text);
  /// Closes its stdin and waits for the exit status (throws after `timeout_s`).
  int wait(int timeout_s = 60);

 private:
  pid_t m_pid = -1;
  int m_stdin = -1;
  int m_stdout = -1;
  std::string m_buffer;
};

/// Runs a script to the end and returns its whole stdout; throws when it exits non-zero.
std::string run_python(const std::string& script, const std::vector<std::string>& args,
                       Torch torch = Torch::V1_13);

}  // namespace ejob::agent::testing
