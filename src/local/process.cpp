#include "src/local/process.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "src/util/error.hpp"

extern char** environ;

namespace ejob::local {
namespace {

/// The environment of a child: ours with `extra` set on top.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (!extra.count(entry.substr(0, entry.find('=')))) env.push_back(entry);
  }
  for (const auto& [key, value] : extra) env.push_back(key + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

[[noreturn]] void exec_child(const Spawn& spawn, int log_fd, pid_t parent) {
  ::setsid();
  if (spawn.dies_with_parent) {
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (::getppid() != parent) ::_exit(143);  // the parent died before the request took
  }
  int null_fd = ::open("/dev/null", O_RDONLY);
  ::dup2(null_fd, 0);
  ::dup2(log_fd, 1);
  ::dup2(log_fd, 2);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the supervisor blocks signals for signalfd
  if (!spawn.workdir.empty() && ::chdir(spawn.workdir.c_str()) != 0) {
    dprintf(2, "ejob: cannot enter %s: %s\n", spawn.workdir.c_str(), std::strerror(errno));
    ::_exit(127);
  }
  std::vector<std::string> argv = spawn.argv;
  std::vector<std::string> env = child_environment(spawn.env);
  ::execve(argv[0].c_str(), c_strings(argv).data(), c_strings(env).data());
  dprintf(2, "ejob: cannot run %s: %s\n", argv[0].c_str(), std::strerror(errno));
  ::_exit(127);
}

/// Field 6 of /proc/PID/stat (the session id) and whether the process is a zombie; the
/// command name (field 2) may hold spaces and parentheses, so fields count from its last ')'.
bool read_session(pid_t pid, pid_t& sid, bool& zombie) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(in, text)) return false;
  size_t close = text.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream rest(text.substr(close + 2));
  char state = 0;
  long ppid = 0, pgrp = 0, session = 0;
  rest >> state >> ppid >> pgrp >> session;
  sid = static_cast<pid_t>(session);
  zombie = state == 'Z' || state == 'X';
  return static_cast<bool>(rest);
}

sockaddr_in loopback(int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

/// A socket connected to 127.0.0.1:port, or -1.
int connect_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(port);
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

HttpReply parse_http(const std::string& raw, int port) {
  HttpReply reply;
  if (raw.compare(0, 5, "HTTP/") != 0 || raw.find(' ') == std::string::npos)
    throw Error(ErrorCode::Transport, "127.0.0.1:" + std::to_string(port) + " answered no HTTP");
  reply.status = std::atoi(raw.c_str() + raw.find(' ') + 1);
  size_t body = raw.find("\r\n\r\n");
  if (body != std::string::npos) reply.body = raw.substr(body + 4);
  return reply;
}

}  // namespace

pid_t spawn_session(const Spawn& spawn) {
  int log_fd = ::open(spawn.log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (log_fd < 0) throw Error(ErrorCode::Io, spawn.log.string() + ": " + std::strerror(errno));
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) exec_child(spawn, log_fd, parent);
  ::close(log_fd);
  if (pid < 0) throw Error(ErrorCode::Io, std::string("fork: ") + std::strerror(errno));
  return pid;
}

std::vector<pid_t> session_members(pid_t sid) {
  std::vector<pid_t> members;
  DIR* proc = ::opendir("/proc");
  if (!proc) return members;
  while (dirent* entry = ::readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    pid_t session = 0;
    bool zombie = false;
    if (*end || pid <= 0 || !read_session(static_cast<pid_t>(pid), session, zombie)) continue;
    if (session == sid && !zombie) members.push_back(static_cast<pid_t>(pid));
  }
  ::closedir(proc);
  return members;
}

int signal_session(pid_t sid, int sig) {
  if (sid <= 1) return 0;
  int count = 0;
  for (pid_t pid : session_members(sid))
    if (::kill(pid, sig) == 0) ++count;
  return count;
}

bool process_alive(pid_t pid) {
  pid_t sid = 0;
  bool zombie = false;
  return pid > 0 && read_session(pid, sid, zombie) && !zombie;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr = loopback(0);
  socklen_t len = sizeof addr;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    if (fd >= 0) ::close(fd);
    throw Error(ErrorCode::Io, std::string("no free port on 127.0.0.1: ") + std::strerror(errno));
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool port_bound(int port) {
  int fd = connect_loopback(port);
  if (fd >= 0) ::close(fd);
  return fd >= 0;
}

HttpReply http_get(int port, const std::string& target, int timeout_ms) {
  const std::string where = "127.0.0.1:" + std::to_string(port);
  int fd = connect_loopback(port);
  if (fd < 0) throw Error(ErrorCode::Transport, where + ": " + std::strerror(errno));
  const std::string request =
      "GET " + target + " HTTP/1.1\r\nHost: " + where + "\r\nConnection: close\r\n\r\n";
  std::string raw;
  bool ok = ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size());
  for (pollfd p{fd, POLLIN, 0}; ok && ::poll(&p, 1, timeout_ms) > 0;) {
    char buf[4096];
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    raw.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  if (!ok || raw.empty()) throw Error(ErrorCode::Transport, where + ": no answer to GET " + target);
  return parse_http(raw, port);
}

std::string find_on_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return ::access(name.c_str(), X_OK) == 0 ? name : "";
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

}  // namespace ejob::local
