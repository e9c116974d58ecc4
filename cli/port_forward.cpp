/// `ejob port-forward [pod/]POD [LOCAL:]REMOTE... [-n NS] [--address ADDR]`: what
/// `kubectl port-forward` does, over WebSocket (src/kubeapi/port_forward.hpp): for each port
/// pair, listens on ADDR:LOCAL (LOCAL empty or 0: a free port; REMOTE alone: the same number)
/// and prints `Forwarding from ADDR:LOCAL -> REMOTE`, then forwards every connection to the
/// pod's port until SIGINT or SIGTERM. A local port that cannot be bound fails the command
/// before anything is forwarded. A connection that fails is reported on stderr; the others go
/// on.

#include <csignal>
#include <iostream>
#include <memory>
#include <mutex>
#include <vector>

#include "cli/commands.hpp"
#include "cli/job.hpp"
#include "cli/kube_flags.hpp"
#include "src/job/pod_port_forward.hpp"
#include "src/util/error.hpp"

namespace ejob::cli {

using namespace ejob::job;  // the job layer: pods, views, status, waiting
namespace {

struct PortForwardFlags {
  KubeFlags kube;
  std::string pod;
  std::vector<std::string> ports;
  std::string address = "127.0.0.1";
};

/// A port number from the command line; `allow_zero` for the local side.
int parse_port(const std::string& text, bool allow_zero, const std::string& arg) {
  int port = -1;
  if (!text.empty() && text.size() <= 5 &&
      text.find_first_not_of("0123456789") == std::string::npos)
    port = std::stoi(text);
  if (port < (allow_zero ? 0 : 1) || port > 65535)
    throw Error(ErrorCode::Usage, "port-forward: " + arg + " is not a port number (" +
                                      (allow_zero ? "0" : "1") + " to 65535)");
  return port;
}

/// [LOCAL:]REMOTE as kubectl reads it: "8080" is 8080:8080, ":8080" a free local port.
std::pair<int, int> parse_ports(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  if (colon == std::string::npos) {
    const int port = parse_port(spec, false, "\"" + spec + "\"");
    return {port, port};
  }
  const std::string local = spec.substr(0, colon);
  const int remote = parse_port(spec.substr(colon + 1), false, "\"" + spec + "\"");
  return {local.empty() ? 0 : parse_port(local, true, "\"" + spec + "\""), remote};
}

/// Blocks SIGINT and SIGTERM in this thread (and the threads it starts) and waits for one.
class StopSignals {
 public:
  StopSignals() {
    sigemptyset(&m_set);
    sigaddset(&m_set, SIGINT);
    sigaddset(&m_set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &m_set, &m_old);
  }
  ~StopSignals() { pthread_sigmask(SIG_SETMASK, &m_old, nullptr); }
  StopSignals(const StopSignals&) = delete;
  StopSignals& operator=(const StopSignals&) = delete;

  void wait() const {
    int sig = 0;
    sigwait(&m_set, &sig);
  }

 private:
  sigset_t m_set;
  sigset_t m_old;
};

/// The pod's name from POD, pod/POD or pods/POD (kubectl's TYPE/NAME, for pods only).
std::string pod_name(const std::string& arg) {
  const std::size_t slash = arg.find('/');
  if (slash == std::string::npos) return arg;
  const std::string type = arg.substr(0, slash);
  if ((type != "pod" && type != "pods" && type != "po") || slash + 1 == arg.size())
    throw Error(ErrorCode::Usage, "port-forward: \"" + arg +
                                      "\" is not a pod (POD or pod/POD; ejob forwards to pods)");
  return arg.substr(slash + 1);
}

void run_port_forward(const PortForwardFlags& f) {
  const std::string pod = pod_name(f.pod);
  std::vector<std::pair<int, int>> pairs;
  for (const std::string& spec : f.ports) pairs.push_back(parse_ports(spec));
  const std::string ns = job_namespace(f.kube);
  KubeSession session = open_session(f.kube);
  StopSignals signals;  // before the forwarders' threads start, so they inherit the mask
  std::mutex err_mutex;
  const auto report = [&](const std::string& message) {
    std::lock_guard lock(err_mutex);
    std::cerr << "ejob: port-forward: " << message << std::endl;
  };
  PodPortForward forward(session, ns, pod, pairs, f.address, report);
  for (std::size_t i = 0; i < pairs.size(); ++i)
    std::cout << "Forwarding from " << f.address << ":" << forward.local_port(i) << " -> "
              << pairs[i].second << std::endl;
  signals.wait();
  forward.stop();
}

}  // namespace

void register_port_forward(CLI::App& app) {
  auto flags = std::make_shared<PortForwardFlags>();
  CLI::App* cmd = app.add_subcommand("port-forward", "Forward local ports to a pod's ports");
  cmd->add_option("pod", flags->pod, "Pod name or pod/NAME (e.g. a job's etcd pod)")->required();
  cmd->add_option("ports", flags->ports,
                  "[LOCAL:]REMOTE, one or more (LOCAL empty or 0: a free port)")
      ->required();
  add_kube_flags(*cmd, flags->kube);
  cmd->add_option("--address", flags->address, "Local IPv4 address to listen on");
  cmd->callback([flags] { run_port_forward(*flags); });
}

}  // namespace ejob::cli
