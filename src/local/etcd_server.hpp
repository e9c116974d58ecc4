#pragma once
/// The job's private etcd: Debian's etcd-server (3.4/3.5) with the v2 API on, on free
/// 127.0.0.1 ports, its data in the job's folder.

#include <sys/types.h>

#include <filesystem>
#include <string>

namespace ejob::local {

struct EtcdServer {
  pid_t pid = 0;
  int client_port = 0;
};

/// Starts etcd and waits until it answers /health (up to `timeout_ms`); a start that lost its
/// ports to another process is tried again on new ones. `client_port`: the port to serve on
/// (an etcd started again after it died: the agents know only that one); 0 = a free one.
/// Throws ejob::Error(Io) with the end of etcd.log when it cannot start.
EtcdServer start_etcd(const std::string& etcd, const std::filesystem::path& dir,
                      int timeout_ms = 20000, int client_port = 0);

/// Stops a process started by this supervisor: SIGTERM to its session, then SIGKILL after
/// `grace_ms`; reaps it.
void stop_session(pid_t pid, int grace_ms);

/// The path of an etcd with the v2 API on PATH, or an ejob::Error(NotFound) naming the Debian
/// package.
std::string find_etcd();

}  // namespace ejob::local
