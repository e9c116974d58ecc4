#include "src/job/job_pods.hpp"

#include <catch2/catch.hpp>

#include "src/job/job_view.hpp"
#include "src/job/job_wait.hpp"
#include "src/kubeapi/exec_plugin.hpp"
#include "src/util/error.hpp"

namespace ejob::job {
namespace {

using kubeapi::Json;

Json pod_with(Json status, Json spec = Json::object()) {
  return {{"metadata",
           {{"name", "bert-worker-1"}, {"uid", "u1"}, {"labels", {{"replica-index", "1"}}}}},
          {"spec", spec},
          {"status", status}};
}

TEST_CASE("job pods: names, indexes and owners") {
  CHECK(short_pod_name("bert", "bert-worker-10") == "worker-10");
  CHECK(short_pod_name("bert", "bert-etcd") == "etcd");
  CHECK(short_pod_name("bert", "bertha-worker-0") == "bertha-worker-0");
  CHECK(short_pod_name("bert", "bert-") == "bert-");
  CHECK(replica_index(pod_with({})) == 1);
  CHECK(replica_index(Json{{"metadata", {{"labels", {{"replica-index", "x1"}}}}}}) == -1);
  CHECK(replica_index(Json{{"metadata", {{"labels", {{"replica-index", "-2"}}}}}}) == -1);
  CHECK(replica_index(Json::object()) == -1);
  // training-operator's label, and a Job's completion index (a TrainJob's nodes).
  CHECK(replica_index(
            Json{{"metadata", {{"labels", {{"training.kubeflow.org/replica-index", "3"}}}}}}) == 3);
  const Json node = {{"metadata",
                      {{"name", "bert-node-0-2-x7k2q"},
                       {"labels",
                        {{"batch.kubernetes.io/job-completion-index", "2"},
                         {"jobset.sigs.k8s.io/replicatedjob-name", "node"}}}}}};
  CHECK(replica_index(node) == 2);
  CHECK(pod_label("bert", node) == "node-2");
  CHECK(pod_label("bert", pod_with({})) == "worker-1");
  const Json owned = {{"metadata", {{"ownerReferences", {{{"uid", "j1"}}, {{"uid", "j2"}}}}}}};
  CHECK(owned_by(owned, "j2"));
  CHECK_FALSE(owned_by(owned, "j3"));
  CHECK_FALSE(owned_by(owned, ""));
  CHECK_FALSE(owned_by(Json::object(), "j1"));
}

TEST_CASE("log_container: asked for, the default-container annotation, else the first") {
  const Json spec = {{"containers", {{{"name", "a"}}, {{"name", "b"}}}}};
  Json pod = pod_with({}, spec);
  CHECK(log_container(pod, "") == "a");
  CHECK(log_container(pod, "b") == "b");
  pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] = "b";
  CHECK(log_container(pod, "") == "b");
  pod["metadata"]["annotations"]["kubectl.kubernetes.io/default-container"] = "gone";
  CHECK(log_container(pod, "") == "a");
  try {
    log_container(pod, "c");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    CHECK(std::string(e.what()) ==
          "container c is not valid for pod bert-worker-1: choose one of [a b]");
  }
}

TEST_CASE("container_state: waiting, running, terminated, restarts") {
  const auto state_of = [](Json container_status) {
    container_status["name"] = "w";
    return container_state(pod_with({{"containerStatuses", {container_status}}}), "w");
  };
  ContainerState s = container_state(pod_with(Json::object()), "w");
  CHECK(s.phase == ContainerState::Phase::Waiting);
  CHECK(s.reason == "PodInitializing");
  s = state_of({{"state", {{"waiting", {{"reason", "ImagePullBackOff"}}}}}, {"restartCount", 0}});
  CHECK(s.phase == ContainerState::Phase::Waiting);
  CHECK(s.reason == "ImagePullBackOff");
  s = state_of({{"state", {{"running", Json::object()}}}, {"restartCount", 3}});
  CHECK(s.phase == ContainerState::Phase::Running);
  CHECK(s.restarts == 3);
  s = state_of({{"state", {{"terminated", {{"reason", "OOMKilled"}, {"exitCode", 137}}}}}});
  CHECK(s.phase == ContainerState::Phase::Terminated);
  CHECK(s.reason == "OOMKilled");
  CHECK(s.exit_code == 137);
  CHECK(pod_restarts(pod_with(
            {{"containerStatuses", {{{"restartCount", 2}}, {{"restartCount", 1}}}}})) == 3);
}

TEST_CASE("disruption_of: kubelet evictions and DisruptionTarget conditions") {
  CHECK_FALSE(disruption_of(pod_with({{"phase", "Running"}})));
  CHECK(*disruption_of(pod_with({{"reason", "Evicted"}, {"message", "low memory"}})) ==
        "Evicted: low memory");
  const Json cond = {{"type", "DisruptionTarget"},
                     {"status", "True"},
                     {"reason", "TerminationByKubelet"},
                     {"message", "node shutdown"}};
  CHECK(*disruption_of(pod_with({{"conditions", {cond}}})) ==
        "TerminationByKubelet: node shutdown");
  Json off = cond;
  off["status"] = "False";
  CHECK_FALSE(disruption_of(pod_with({{"conditions", {off}}})));
}

TEST_CASE("LineSplitter: whole lines across chunks") {
  LineSplitter s;
  CHECK(s.add("ab").empty());
  CHECK(s.add("c\nd\n\ne") == std::vector<std::string>{"abc", "d", ""});
  CHECK(s.rest() == "e");
  CHECK(s.rest().empty());
}

TEST_CASE("describe: events of the job and its pods, gone workers included, oldest first") {
  const Json job = {{"metadata", {{"name", "bert"}, {"uid", "j1"}}}};
  auto ev = [](const char* kind, const char* name, const char* uid, const char* time) {
    return Json{{"involvedObject", {{"kind", kind}, {"name", name}, {"uid", uid}}},
                {"lastTimestamp", time}};
  };
  const std::vector<Json> all = {ev("ElasticJob", "bert", "j1", "2026-01-01T00:00:05Z"),
                                 ev("Pod", "bert-worker-12", "p9", "2026-01-01T00:00:01Z"),
                                 ev("Pod", "bert-etcd", "e1", "2026-01-01T00:00:03Z"),
                                 ev("Service", "bert-etcd-service", "s1", "2026-01-01T00:00:04Z"),
                                 ev("Pod", "bert-worker-x", "p8", "2026-01-01T00:00:02Z"),
                                 ev("Pod", "bertha-worker-0", "p7", "2026-01-01T00:00:02Z"),
                                 ev("ElasticJob", "bert", "older-job", "2026-01-01T00:00:02Z")};
  std::vector<std::string> names;
  for (const Json& e : job_events(job, all)) names.push_back(e["involvedObject"]["name"]);
  CHECK(names ==
        std::vector<std::string>{"bert-worker-12", "bert-etcd", "bert-etcd-service", "bert"});
}

TEST_CASE("describe: evictions once per pod, oldest first, unknown times last") {
  JobView v;
  v.job = {{"metadata", {{"name", "bert"}, {"uid", "j1"}}}};
  v.workers = {pod_with({{"reason", "Evicted"}, {"message", "low memory"}})};
  v.events = {{{"involvedObject", {{"kind", "Pod"}, {"name", "bert-worker-1"}, {"uid", "u1"}}},
               {"reason", "Evicted"},
               {"message", "same pod, from the kubelet"},
               {"lastTimestamp", "2026-01-01T00:50:00Z"}},
              {{"involvedObject", {{"kind", "Pod"}, {"name", "bert-worker-3"}, {"uid", "u3"}}},
               {"reason", "TaintManagerEviction"},
               {"message", "Marking for deletion Pod elastic-job/bert-worker-3"},
               {"lastTimestamp", "2026-01-01T00:40:00Z"}},
              {{"involvedObject", {{"kind", "Pod"}, {"name", "bert-worker-0"}, {"uid", "u0"}}},
               {"reason", "Killing"},
               {"lastTimestamp", "2026-01-01T00:30:00Z"}}};
  const std::vector<Eviction> found = job_evictions(v);
  REQUIRE(found.size() == 2);
  CHECK(found[0].pod == "worker-3");
  CHECK(found[0].time == "2026-01-01T00:40:00Z");
  CHECK(found[0].why == "TaintManagerEviction: Marking for deletion Pod elastic-job/bert-worker-3");
  CHECK(found[1].pod == "worker-1");
  CHECK(found[1].time.empty());
  CHECK(found[1].why == "Evicted: low memory");
}

TEST_CASE("parse_wait_timeout: seconds or a Go duration, 0 for no limit") {
  using std::chrono::milliseconds;
  CHECK(parse_wait_timeout("300", "--timeout") == milliseconds(300'000));
  CHECK(parse_wait_timeout("1h30m", "--timeout") == milliseconds(5'400'000));
  CHECK(parse_wait_timeout("1500ms", "--timeout") == milliseconds(1'500));
  CHECK_FALSE(parse_wait_timeout("0", "--timeout"));
  CHECK_FALSE(parse_wait_timeout("0s", "--timeout"));
  for (const char* bad : {"", "-5", "-1m", "soon", "5 m"}) {
    try {
      parse_wait_timeout(bad, "--timeout");
      FAIL("no error for " << bad);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Usage);
      CHECK_THAT(e.what(), Catch::StartsWith("--timeout takes seconds or a duration"));
    }
  }
}

}  // namespace
}  // namespace ejob::job
