#pragma once
/// What the group-rank-0 agent publishes as MASTER_ADDR/MASTER_PORT (§1.7): its fully
/// qualified host name as Python's socket.getfqdn(socket.gethostname()) finds it, and a port
/// that was free a moment ago (bound on localhost port 0, then released — racy by design).

#include <string>

namespace ejob::agent {

/// socket.getfqdn(gethostname()): the first of the resolved name and its aliases containing
/// a dot, else the resolved name; the plain host name when it does not resolve.
std::string fq_hostname();

/// A TCP port free on localhost right now. Throws ejob::Error(Io) when none can be bound.
int free_local_port();

}  // namespace ejob::agent
