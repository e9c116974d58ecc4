#include "src/agent/workers/log_dir.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>
#include <vector>

#include "src/util/error.hpp"

namespace ejob::agent {

std::string make_temp_dir(const std::string& dir, const std::string& prefix) {
  // Like Python's tempfile.mkdtemp: 8 random characters from [a-z0-9_].
  static const char* alphabet = "abcdefghijklmnopqrstuvwxyz0123456789_";
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string name = dir + "/" + prefix;
    for (int i = 0; i < 8; ++i) name += alphabet[rd() % 37];
    if (::mkdir(name.c_str(), 0700) == 0) return name;
    if (errno != EEXIST) break;
  }
  throw Error(ErrorCode::Io, "cannot create a directory in " + dir + ": " + std::strerror(errno));
}

LogDir::LogDir(const std::optional<std::string>& base, const std::string& run_id) {
  std::string root;
  if (base) {
    std::error_code ec;
    std::filesystem::create_directories(*base, ec);
    if (ec) throw Error(ErrorCode::Io, "cannot create --log_dir " + *base + ": " + ec.message());
    root = *base;
  } else {
    root = make_temp_dir(std::filesystem::temp_directory_path().string(), "torchelastic_");
  }
  m_path = make_temp_dir(root, run_id + "_");
}

std::string LogDir::prepare_attempt(int restart, int nproc) {
  std::filesystem::path attempt =
      std::filesystem::path(m_path) / ("attempt_" + std::to_string(restart));
  std::error_code ec;
  std::filesystem::remove_all(attempt, ec);
  for (int r = 0; r < nproc; ++r) {
    std::filesystem::create_directories(attempt / std::to_string(r), ec);
    if (ec) throw Error(ErrorCode::Io, "cannot create " + attempt.string() + ": " + ec.message());
  }
  return attempt.string();
}

}  // namespace ejob::agent
