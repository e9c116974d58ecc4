// `ejob describe` of a local job: its files plus the rendezvous round read from its etcd.

#include "src/local/local_jobs.hpp"
#include "src/local/process.hpp"
#include "src/util/error.hpp"

namespace ejob::local {
namespace {

/// torchelastic's etcd rendezvous keeps the active round's state as a JSON string under
/// /torchelastic/p2p/run_ID/rdzv/active_version (docs/agent.md).
void read_round(JobView& v) {
  if (v.state.engine != "elasticjob") {  // c10d or static: no etcd to read a round from
    v.round_note = rendezvous_text(v.state);
    return;
  }
  const std::string& endpoint = v.state.etcd_endpoint;
  if (v.state.etcd_pid == 0 || endpoint.empty()) {
    v.round_note = "etcd is not running";
    return;
  }
  const int port = std::stoi(endpoint.substr(endpoint.rfind(':') + 1));
  try {
    HttpReply r =
        http_get(port, "/v2/keys/torchelastic/p2p/run_" + v.state.name + "/rdzv/active_version");
    if (r.status == 404) {
      v.round_note = "no round yet";
      return;
    }
    Json body = Json::parse(r.body);
    v.round = Json::parse(body.at("node").at("value").get<std::string>());
  } catch (const std::exception& e) {
    v.round_note = std::string("cannot read the round: ") + e.what();
  }
}

}  // namespace

std::vector<Json> rendered_objects(const std::string& name) {
  const fs::path path = job_dir(name) / "objects.json";
  Json objects = read_json_file(path);
  if (!objects.is_array()) throw Error(ErrorCode::Io, path.string() + ": damaged (not a list)");
  return objects.get<std::vector<Json>>();
}

JobView view(const std::string& name) {
  JobView v;
  v.state = get(name);
  const fs::path dir = job_dir(name);
  v.launch = launch_from_json(read_json_file(dir / "launch.json"), (dir / "launch.json").string());
  v.events = read_events(dir);
  read_round(v);
  return v;
}

}  // namespace ejob::local
