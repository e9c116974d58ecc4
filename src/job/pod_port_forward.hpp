#pragma once
/// `ejob port-forward`'s work on the cluster: checks that the pod runs, then forwards each
/// local port to the pod's port through the API server (src/kubeapi/port_forward.hpp), as
/// `kubectl port-forward` does.

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/job/kube_session.hpp"
#include "src/kubeapi/port_forward.hpp"

namespace ejob::job {

/// The forwarders of one command, listening from construction until stop().
class PodPortForward {
 public:
  /// `pairs`: (local, remote) ports, local 0 for a free one. ejob::Error(NotFound) names a
  /// missing pod, Conflict one that is not Running (it has no port to reach yet; kubectl
  /// refuses it up front too); a local port that cannot be bound fails before any forwards.
  /// `on_error` is told about each failed connection, from that connection's thread.
  PodPortForward(KubeSession& session, const std::string& ns, const std::string& pod,
                 const std::vector<std::pair<int, int>>& pairs, const std::string& address,
                 std::function<void(const std::string&)> on_error);

  /// The local port pair `i` listens on.
  [[nodiscard]] int local_port(std::size_t i) const { return m_forwarders[i]->local_port(); }

  /// Stops listening and ends every forwarded connection.
  void stop();

 private:
  std::vector<std::unique_ptr<kubeapi::PortForwarder>> m_forwarders;
};

}  // namespace ejob::job
