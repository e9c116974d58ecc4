#include "src/job/post_renderer.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "src/render/go/fmt.hpp"
#include "src/util/error.hpp"

extern char** environ;

namespace ejob::job {
namespace {

namespace fs = std::filesystem;
using render::go::go_quote;

/// Go's exec.LookPath check of one candidate: a regular file with an execute bit, else the
/// reason.
std::string not_executable(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return "stat " + path + ": " + std::strerror(errno);
  if (S_ISDIR(st.st_mode) || (st.st_mode & 0111) == 0) return std::strerror(EACCES);
  return "";
}

[[noreturn]] void lookup_failed(const std::string& name, const std::string& why) {
  throw Error(ErrorCode::Usage, "invalid argument " + go_quote(name) +
                                    " for \"--post-renderer\" flag: unable to find binary at " +
                                    name + ": exec: " + go_quote(name) + ": " + why);
}

/// Reads and writes the child's pipes until both outputs end.
void pump(int in, int out, int err, const std::string& input, std::string& stdout_text,
          std::string& stderr_text) {
  size_t written = 0;
  if (input.empty()) close(in), in = -1;
  while (out >= 0 || err >= 0) {
    pollfd fds[3] = {{in, POLLOUT, 0}, {out, POLLIN, 0}, {err, POLLIN, 0}};
    if (poll(fds, 3, -1) < 0 && errno != EINTR) break;
    if (in >= 0 && (fds[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(in, input.data() + written, input.size() - written);
      if (n > 0) written += static_cast<size_t>(n);
      if ((n < 0 && errno != EAGAIN && errno != EINTR) || written == input.size())
        close(in), in = -1;
    }
    for (int k = 1; k < 3; ++k) {
      int& fd = k == 1 ? out : err;
      if (fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char buf[65536];
      ssize_t n = read(fd, buf, sizeof buf);
      if (n > 0) (k == 1 ? stdout_text : stderr_text).append(buf, static_cast<size_t>(n));
      if (n == 0 || (n < 0 && errno != EINTR)) close(fd), fd = -1;
    }
  }
  if (in >= 0) close(in);
}

}  // namespace

std::string find_post_renderer(const std::string& name) {
  std::string found;
  if (name.find('/') != std::string::npos) {
    if (std::string why = not_executable(name); !why.empty()) lookup_failed(name, why);
    found = name;
  } else {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    for (size_t start = 0; found.empty() && start <= dirs.size();) {
      size_t colon = std::min(dirs.find(':', start), dirs.size());
      std::string dir = dirs.substr(start, colon - start);
      std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
      if (not_executable(candidate).empty()) found = candidate;
      start = colon + 1;
    }
    if (found.empty()) lookup_failed(name, "executable file not found in $PATH");
  }
  return fs::absolute(found).lexically_normal().string();
}

std::string run_post_renderer(const std::string& binary, const std::vector<std::string>& args,
                              const std::string& manifests) {
  int in[2], out[2], err[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
    throw Error(ErrorCode::Io, std::string("pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  std::vector<char*> argv{const_cast<char*>(binary.c_str())};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, binary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(in[0]), close(out[1]), close(err[1]);
  std::string text, errors;
  if (rc == 0) {
    // A post-renderer that stops reading must not kill us with SIGPIPE (restored after).
    void (*previous)(int) = std::signal(SIGPIPE, SIG_IGN);
    fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);  // never block on a full pipe
    pump(in[1], out[0], err[0], manifests, text, errors);
    std::signal(SIGPIPE, previous);
  } else {
    close(in[1]), close(out[0]), close(err[0]);
  }
  int status = 0;
  if (rc == 0) waitpid(pid, &status, 0);
  std::string why = rc != 0               ? std::string(std::strerror(rc))
                    : WIFSIGNALED(status) ? "signal: " + std::string(strsignal(WTERMSIG(status)))
                    : WEXITSTATUS(status) != 0
                        ? "exit status " + std::to_string(WEXITSTATUS(status))
                        : "";
  if (why.empty()) return text;
  throw Error(ErrorCode::Input,
              "error while running post render on files: error while running "
              "command " +
                  binary + ". error output:\n" + errors + ": " + why);
}

}  // namespace ejob::job
