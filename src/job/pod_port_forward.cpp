#include "src/job/pod_port_forward.hpp"

#include "src/job/job_pods.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

PodPortForward::PodPortForward(KubeSession& session, const std::string& ns, const std::string& pod,
                               const std::vector<std::pair<int, int>>& pairs,
                               const std::string& address,
                               std::function<void(const std::string&)> on_error) {
  const kubeapi::Json found = session.client->get(session.client->resource("v1", "Pod"), ns, pod);
  if (const std::string phase = json_text(json_at(found, {"status", "phase"})); phase != "Running")
    throw Error(ErrorCode::Conflict, "pod " + pod + " is not running (status " +
                                         (phase.empty() ? "unknown" : phase) +
                                         "): there is nothing to forward to yet");
  for (const auto& [local, remote] : pairs)
    m_forwarders.push_back(std::make_unique<kubeapi::PortForwarder>(
        *session.transport, kubeapi::ForwardSpec{ns, pod, remote, local, address, on_error}));
}

void PodPortForward::stop() {
  for (auto& forwarder : m_forwarders) forwarder->stop();
}

}  // namespace ejob::job
