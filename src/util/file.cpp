#include "src/util/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace ejob {

namespace {

/// Closes a descriptor when it goes out of scope, keeping the errno of what failed before.
struct Descriptor {
  int fd;
  ~Descriptor() {
    const int saved = errno;
    if (fd >= 0) ::close(fd);
    errno = saved;
  }
};

/// Reads from `fd` into `out` from `at` on until the end, growing `out` when it fills up.
bool read_to_end(int fd, std::string& out, size_t at) {
  while (true) {
    if (at == out.size()) out.resize(out.empty() ? 4096 : out.size() * 2);
    const ssize_t n = ::read(fd, out.data() + at, out.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) break;
    at += static_cast<size_t>(n);
  }
  out.resize(at);
  return true;
}

}  // namespace

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) return std::nullopt;
  struct stat st {};
  if (::fstat(file.fd, &st) != 0) return std::nullopt;
  std::string out;
  // one byte more than the size, so that reaching the end takes no second buffer
  if (S_ISREG(st.st_mode) && st.st_size > 0) out.resize(static_cast<size_t>(st.st_size) + 1);
  if (!read_to_end(file.fd, out, 0)) return std::nullopt;
  return out;
}

}  // namespace ejob
