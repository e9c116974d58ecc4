#include "src/job/job_table.hpp"

#include <algorithm>

#include "src/job/engine.hpp"
#include "src/job/job_pods.hpp"
#include "src/kubeapi/exec_plugin.hpp"

namespace ejob::job {

namespace {

using kubeapi::Json;

/// A count cell: whole numbers, "-" when absent or not a number.
std::string count(const Json& j) {
  if (j.is_number_integer()) return std::to_string(j.get<long>());
  if (j.is_number()) return std::to_string(static_cast<long>(j.get<double>()));
  return "-";
}

/// `a` + `unit_a`, then `b` + `unit_b` unless b is 0 (kubectl's "2m5s", "3h").
std::string two_units(long a, const char* unit_a, long b, const char* unit_b) {
  std::string out = std::to_string(a) + unit_a;
  if (b != 0) out += std::to_string(b) + unit_b;
  return out;
}

}  // namespace

std::string format_age(std::chrono::seconds age) {
  const long s = static_cast<long>(age.count());
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return std::to_string(s) + "s";
  const long minutes = s / 60;
  if (minutes < 10) return two_units(minutes, "m", s % 60, "s");
  if (minutes < 180) return std::to_string(minutes) + "m";
  const long hours = s / 3600;
  if (hours < 8) return two_units(hours, "h", minutes % 60, "m");
  if (hours < 48) return std::to_string(hours) + "h";
  if (hours < 24 * 8) return two_units(hours / 24, "d", hours % 24, "h");
  if (hours < 24 * 365 * 2) return std::to_string(hours / 24) + "d";
  if (hours < 24 * 365 * 8) return two_units(hours / 24 / 365, "y", (hours / 24) % 365, "d");
  return std::to_string(hours / 24 / 365) + "y";
}

std::string object_age(const Json& obj, std::chrono::system_clock::time_point now) {
  const std::string created = obj.value("metadata", Json::object()).value("creationTimestamp", "");
  auto t = kubeapi::parse_rfc3339(created);
  if (!t) return "<unknown>";
  return format_age(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
}

std::string job_where(const Json& job) {
  return json_text(json_at(job, {"metadata", "annotations", "ejob.io/where"})) == "local"
             ? "local"
             : "cluster";
}

Row job_header(const TableColumns& columns) {
  Row head = {"NAME", "STATUS", "MIN", "MAX", "DESIRED", "ACTIVE", "AGE", "WHERE", "ENGINE"};
  if (columns.all_namespaces) head.insert(head.begin(), "NAMESPACE");
  if (columns.wide) head.insert(head.end(), {"RDZV-ENDPOINT", "IMAGE"});
  return head;
}

namespace {

/// The spec of the job's Worker replicas: ElasticJob's replicaSpecs or PyTorchJob's
/// pytorchReplicaSpecs; null for a TrainJob, whose trainer says it.
const Json& worker_spec(const Engine& e, const Json& job) {
  return e.id == EngineId::PyTorchJob ? json_at(job, {"spec", "pytorchReplicaSpecs", "Worker"})
                                      : json_at(job, {"spec", "replicaSpecs", "Worker"});
}

/// MIN, MAX, DESIRED and ACTIVE as the job's engine spells them.
Row count_cells(const Engine& e, const Json& job) {
  const Json& active = json_at(job, {"status", "replicaStatuses", "Worker", "active"});
  switch (e.id) {
    case EngineId::PyTorchJob:
      return {count(json_at(job, {"spec", "elasticPolicy", "minReplicas"})),
              count(json_at(job, {"spec", "elasticPolicy", "maxReplicas"})),
              count(json_at(worker_spec(e, job), {"replicas"})),
              count(active.is_null() ? Json(0) : active)};
    case EngineId::TrainJob: {
      // A static world size; its status counts Jobs, not nodes, so ACTIVE is not shown.
      const Json& nodes = json_at(job, {"spec", "trainer", "numNodes"});
      return {count(nodes), count(nodes), count(nodes), "-"};
    }
    case EngineId::ElasticJob: break;
  }
  return {count(json_at(job, {"spec", "minReplicas"})),
          count(json_at(job, {"spec", "maxReplicas"})),
          count(json_at(worker_spec(e, job), {"replicas"})),
          count(active.is_null() ? Json(0) : active)};
}

std::string image_of(const Engine& e, const Json& job) {
  if (e.id == EngineId::TrainJob) return json_text(json_at(job, {"spec", "trainer", "image"}));
  const Json& containers = json_at(worker_spec(e, job), {"template", "spec", "containers"});
  return containers.is_array() && !containers.empty() ? json_text(json_at(containers[0], {"image"}))
                                                      : "";
}

}  // namespace

Row job_row(const Json& job, const TableColumns& columns,
            std::chrono::system_clock::time_point now) {
  const Engine& engine = job_engine(job);
  Row row;
  if (columns.all_namespaces) row.push_back(json_text(json_at(job, {"metadata", "namespace"})));
  row.push_back(json_text(json_at(job, {"metadata", "name"})));
  row.push_back(job_status(job));
  for (std::string& cell : count_cells(engine, job)) row.push_back(std::move(cell));
  row.insert(row.end(), {object_age(job, now), job_where(job), engine.name});
  if (columns.wide) {
    row.push_back(json_text(json_at(job, {"spec", "rdzvEndpoint"})));
    row.push_back(image_of(engine, job));
  }
  return row;
}

std::string format_table(const std::vector<Row>& rows) {
  constexpr std::size_t k_padding = 3;
  std::vector<std::size_t> width;
  for (const Row& r : rows) {
    if (width.size() < r.size()) width.resize(r.size(), 0);
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const Row& r : rows) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      out += r[i];
      if (i + 1 < r.size()) out.append(width[i] - r[i].size() + k_padding, ' ');
    }
    out += '\n';
  }
  return out;
}

}  // namespace ejob::job
