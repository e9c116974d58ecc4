#include "src/job/job_table.hpp"

#include <catch2/catch.hpp>

namespace ejob::job {

namespace {

using kubeapi::Json;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

Json with_conditions(std::initializer_list<std::pair<const char*, const char*>> conditions) {
  Json list = Json::array();
  for (const auto& [type, status] : conditions)
    list.push_back({{"type", type}, {"status", status}});
  return {{"status", {{"conditions", list}}}};
}

TEST_CASE("job_status: the first true condition in order of precedence") {
  CHECK(job_status(Json::object()) == "Pending");
  CHECK(job_status(with_conditions({})) == "Pending");
  CHECK(job_status(with_conditions({{"Created", "True"}})) == "Created");
  CHECK(job_status(with_conditions({{"Created", "True"}, {"Running", "True"}})) == "Running");
  CHECK(job_status(with_conditions({{"Running", "True"}, {"Created", "True"}})) == "Running");
  CHECK(job_status(with_conditions({{"Created", "True"}, {"Running", "False"}})) == "Created");
  CHECK(job_status(with_conditions({{"Running", "True"}, {"Restarting", "True"}})) == "Restarting");
  CHECK(job_status(with_conditions({{"Running", "True"}, {"Failed", "True"}})) == "Failed");
  CHECK(job_status(with_conditions({{"Failed", "True"}, {"Succeeded", "True"}})) == "Succeeded");
  CHECK(job_status(with_conditions({{"Running", "Unknown"}})) == "Pending");
  // Kubeflow's operators suspend jobs (runPolicy.suspend, TrainJob spec.suspend).
  CHECK(job_status(with_conditions({{"Suspended", "True"}})) == "Suspended");
  CHECK(job_status(with_conditions({{"Running", "True"}, {"Suspended", "True"}})) == "Running");
  // A TrainJob (and a JobSet) says Complete where the others say Succeeded.
  CHECK(job_status(with_conditions({{"Created", "True"}, {"Complete", "True"}})) == "Succeeded");
  CHECK(job_status(with_conditions({{"Failed", "True"}, {"Complete", "False"}})) == "Failed");
  // ... and has no Running condition: its jobs' active count says it runs.
  CHECK(job_status(Json{{"status", {{"jobsStatus", {{{"name", "node"}, {"active", 1}}}}}}}) ==
        "Running");
  CHECK(job_status(Json{{"status", {{"jobsStatus", {{{"name", "node"}, {"active", 0}}}}}}}) ==
        "Pending");
}

TEST_CASE("format_age: kubectl's AGE column (duration.HumanDuration)") {
  CHECK(format_age(seconds(-2)) == "<invalid>");
  CHECK(format_age(seconds(-1)) == "0s");
  CHECK(format_age(seconds(0)) == "0s");
  CHECK(format_age(seconds(42)) == "42s");
  CHECK(format_age(seconds(119)) == "119s");
  CHECK(format_age(seconds(120)) == "2m");
  CHECK(format_age(seconds(303)) == "5m3s");
  CHECK(format_age(seconds(599)) == "9m59s");
  CHECK(format_age(minutes(10)) == "10m");
  CHECK(format_age(minutes(17) + seconds(59)) == "17m");
  CHECK(format_age(minutes(179) + seconds(59)) == "179m");
  CHECK(format_age(hours(3)) == "3h");
  CHECK(format_age(hours(3) + minutes(12) + seconds(30)) == "3h12m");
  CHECK(format_age(hours(7) + minutes(59)) == "7h59m");
  CHECK(format_age(hours(8) + minutes(30)) == "8h");
  CHECK(format_age(hours(47) + minutes(59)) == "47h");
  CHECK(format_age(hours(48)) == "2d");
  CHECK(format_age(hours(52)) == "2d4h");
  CHECK(format_age(hours(24 * 8 - 1)) == "7d23h");
  CHECK(format_age(hours(24 * 8)) == "8d");
  CHECK(format_age(hours(24 * 729)) == "729d");
  CHECK(format_age(hours(24 * 730)) == "2y");
  CHECK(format_age(hours(24 * 731)) == "2y1d");
  CHECK(format_age(hours(24 * (365 * 8 - 1))) == "7y364d");
  CHECK(format_age(hours(24 * 365 * 8)) == "8y");
  CHECK(format_age(hours(24 * 365 * 30 + 100)) == "30y");
}

TEST_CASE("object_age: from metadata.creationTimestamp") {
  const Json job = {{"metadata", {{"creationTimestamp", "2026-01-02T03:04:05Z"}}}};
  const auto created =
      std::chrono::sys_days{std::chrono::year{2026} / 1 / 2} + hours(3) + minutes(4) + seconds(5);
  CHECK(object_age(job, created) == "0s");
  CHECK(object_age(job, created + seconds(90)) == "90s");
  CHECK(object_age(job, created + hours(26)) == "26h");
  CHECK(object_age(Json::object(), created) == "<unknown>");
  CHECK(object_age({{"metadata", {{"creationTimestamp", "yesterday"}}}}, created) == "<unknown>");
}

/// An ElasticJob as the controller reports it.
Json job(const std::string& name, const std::string& ns) {
  return Json::parse(R"({
    "metadata": {"name": ")" +
                     name + R"(", "namespace": ")" + ns + R"(",
                 "creationTimestamp": "2026-01-02T03:04:05Z"},
    "spec": {"minReplicas": 1, "maxReplicas": 4.0, "rdzvEndpoint": ")" +
                     name + R"(-etcd:2379",
             "replicaSpecs": {"Worker": {"replicas": 2, "template": {"spec": {
               "containers": [{"name": "elasticjob-worker", "image": "train:1"}]}}}}},
    "status": {"conditions": [{"type": "Running", "status": "True"}],
               "replicaStatuses": {"Worker": {"active": 2}}}
  })");
}

const auto k_now =
    std::chrono::sys_days{std::chrono::year{2026} / 1 / 2} + hours(3) + minutes(9) + seconds(5);

TEST_CASE("job_header and job_row: the columns of `ejob list`") {
  CHECK(job_header({}) ==
        Row{"NAME", "STATUS", "MIN", "MAX", "DESIRED", "ACTIVE", "AGE", "WHERE", "ENGINE"});
  CHECK(job_row(job("bert-x7k2p", "ml"), {}, k_now) ==
        Row{"bert-x7k2p", "Running", "1", "4", "2", "2", "5m", "cluster", "elasticjob"});
  CHECK(job_header({true, true}) == Row{"NAMESPACE", "NAME", "STATUS", "MIN", "MAX", "DESIRED",
                                        "ACTIVE", "AGE", "WHERE", "ENGINE", "RDZV-ENDPOINT",
                                        "IMAGE"});
  CHECK(job_row(job("bert-x7k2p", "ml"), {true, true}, k_now) ==
        Row{"ml", "bert-x7k2p", "Running", "1", "4", "2", "2", "5m", "cluster", "elasticjob",
            "bert-x7k2p-etcd:2379", "train:1"});
}

TEST_CASE("job_row: a PyTorchJob's elasticPolicy and a TrainJob's numNodes") {
  const Json pj = Json::parse(R"({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob",
    "metadata": {"name": "gpt", "creationTimestamp": "2026-01-02T03:04:05Z"},
    "spec": {"elasticPolicy": {"minReplicas": 2, "maxReplicas": 8},
             "pytorchReplicaSpecs": {"Worker": {"replicas": 4, "template": {"spec": {
               "containers": [{"name": "pytorch", "image": "train:2"}]}}}}},
    "status": {"replicaStatuses": {"Worker": {"active": 3}}}})");
  CHECK(job_row(pj, {false, true}, k_now) ==
        Row{"gpt", "Pending", "2", "8", "4", "3", "5m", "cluster", "pytorchjob", "", "train:2"});
  const Json tj = Json::parse(R"({"apiVersion": "trainer.kubeflow.org/v1alpha1",
    "kind": "TrainJob", "metadata": {"name": "t5", "creationTimestamp": "2026-01-02T03:04:05Z"},
    "spec": {"trainer": {"numNodes": 2, "image": "train:3"}},
    "status": {"conditions": [{"type": "Complete", "status": "True"}]}})");
  CHECK(job_row(tj, {false, true}, k_now) ==
        Row{"t5", "Succeeded", "2", "2", "2", "-", "5m", "cluster", "trainjob", "", "train:3"});
}

TEST_CASE("job_where: the annotation ejob puts on a local job's object") {
  Json local = job("digits-x7k2p", "");
  local["metadata"]["annotations"]["ejob.io/where"] = "local";
  CHECK(job_where(local) == "local");
  CHECK(job_where(job("bert-x7k2p", "ml")) == "cluster");
}

TEST_CASE("job_row: missing counts are '-', no status is Pending with 0 active") {
  const Json bare = {{"metadata", {{"name", "new"}}}, {"spec", {{"minReplicas", 2}}}};
  CHECK(job_row(bare, {false, true}, k_now) ==
        Row{"new", "Pending", "2", "-", "-", "0", "<unknown>", "cluster", "elasticjob", "", ""});
}

TEST_CASE("format_table: columns three spaces apart, the last one unpadded") {
  CHECK(format_table({}) == "");
  CHECK(format_table({{"NAME", "AGE"}}) == "NAME   AGE\n");
  const std::vector<Row> rows = {job_header({}), job_row(job("bert-x7k2p", "ml"), {}, k_now),
                                 job_row(job("a", "ml"), {}, k_now + hours(3))};
  CHECK(format_table(rows) ==
        "NAME         STATUS    MIN   MAX   DESIRED   ACTIVE   AGE    WHERE     ENGINE\n"
        "bert-x7k2p   Running   1     4     2         2        5m     cluster   elasticjob\n"
        "a            Running   1     4     2         2        3h5m   cluster   elasticjob\n");
}

}  // namespace
}  // namespace ejob::job
