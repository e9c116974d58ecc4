#pragma once
/// torchrun's log directory layout: `<base>/<run_id>_<random>/attempt_<restart>/<local_rank>/`
/// holding `error.json` (TORCHELASTIC_ERROR_FILE) and, when redirected, `stdout.log` and
/// `stderr.log`. The base is --log_dir, else a new `/tmp/torchelastic_<random>`.

#include <optional>
#include <string>

namespace ejob::agent {

/// The run's log directory.
class LogDir {
 public:
  /// Creates `<base>/<run_id>_<random>` (and the base when needed). Throws ejob::Error(Io).
  LogDir(const std::optional<std::string>& base, const std::string& run_id);

  /// The run directory.
  [[nodiscard]] const std::string& path() const { return m_path; }
  /// Recreates `attempt_<restart>/<0..nproc-1>/` empty and returns the attempt directory.
  std::string prepare_attempt(int restart, int nproc);

 private:
  std::string m_path;
};

/// mkdtemp() with a prefix inside `dir`; returns the new directory. Throws ejob::Error(Io).
std::string make_temp_dir(const std::string& dir, const std::string& prefix);

}  // namespace ejob::agent
