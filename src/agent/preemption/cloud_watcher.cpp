#include "src/agent/preemption/cloud_watcher.hpp"

#include "src/agent/preemption/aws_instance_action.hpp"
#include "src/agent/preemption/azure_events.hpp"
#include "src/agent/preemption/gce_preempted.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {

std::unique_ptr<CloudWatcher> make_cloud_watcher(Cloud cloud, MetadataHttp& http) {
  switch (cloud) {
    case Cloud::Azure: return std::make_unique<AzureWatcher>(http);
    case Cloud::Aws: return std::make_unique<AwsWatcher>(http);
    case Cloud::Gce: return std::make_unique<GceWatcher>(http);
  }
  return nullptr;
}

void metadata_failure(const MetadataHttp& http, const std::string& request,
                      const MetadataReply& reply) {
  std::string body = reply.body.substr(0, 200);
  throw Error(ErrorCode::Transport, request + " at " + http.where() + ": " + reply.describe() +
                                        (body.empty() ? "" : " (" + body + ")"));
}

}  // namespace ejob::agent
