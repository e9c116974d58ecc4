#pragma once
/// Processes of a local job. Every simulated node and the job's etcd run in a session of their
/// own (setsid), so "everything a node started" is a kernel fact — the processes whose session
/// id is the node's — even for a worker's own children that moved to another process group.

#include <sys/types.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ejob::local {

/// What to start: argv[0] is a path (not searched), `env` is added to this process's
/// environment (a key with an empty value still set), output appended to `log`.
struct Spawn {
  std::vector<std::string> argv;
  std::map<std::string, std::string> env;
  std::filesystem::path workdir;
  std::filesystem::path log;
  /// The child gets SIGTERM when the process that started it dies (a job's nodes and etcd
  /// with their supervisor: nothing is left running that nobody watches).
  bool dies_with_parent = false;
};

/// Starts `spawn` as the leader of a new session; returns its pid (= its session id). A child
/// that cannot exec writes why into its log and exits 127. Throws ejob::Error(Io) when fork
/// fails or the log cannot be opened.
pid_t spawn_session(const Spawn& spawn);

/// The pids of the live processes in session `sid` (zombies excluded).
std::vector<pid_t> session_members(pid_t sid);

/// Sends `sig` to every process of session `sid`; returns how many were signalled.
int signal_session(pid_t sid, int sig);

/// True while process `pid` exists and is not a zombie.
bool process_alive(pid_t pid);

/// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's choice of an ephemeral one).
int free_port();

/// True when something accepts TCP connections on 127.0.0.1:`port`.
bool port_bound(int port);

/// A plain HTTP/1.1 GET to 127.0.0.1:`port` (etcd's health and v2 keys); returns the status
/// and the body. Throws ejob::Error(Transport) when the connection or the read fails.
struct HttpReply {
  int status = 0;
  std::string body;
};
HttpReply http_get(int port, const std::string& target, int timeout_ms = 2000);

/// The first executable named `name` on PATH, or "" (a name with a slash is taken as a path).
std::string find_on_path(const std::string& name);

}  // namespace ejob::local
