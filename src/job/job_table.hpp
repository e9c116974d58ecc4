#pragma once
/// How `ejob list` shows jobs of every engine: each job's status word from its conditions, replica
/// counts and kubectl-style age, laid out as kubectl lays out a table. Pure functions over
/// the objects, so they are easy to test.

#include <chrono>
#include <string>
#include <vector>

#include "src/job/job_pods.hpp"
#include "src/job/job_view.hpp"
#include "src/kubeapi/client.hpp"

namespace ejob::job {

/// kubectl's AGE column (apimachinery's duration.HumanDuration): 0s..119s, 2m..9m59s
/// (seconds shown unless 0), 10m..179m, 3h..7h59m, 8h..47h, 2d..7d23h, 8d..729d, 2y..7y364d,
/// then 8y; "0s" for -1 s (clock skew), "<invalid>" below that.
std::string format_age(std::chrono::seconds age);

/// The age of an object from metadata.creationTimestamp at `now`; "<unknown>" without one.
std::string object_age(const kubeapi::Json& obj, std::chrono::system_clock::time_point now);

/// One row of cells.
using Row = std::vector<std::string>;

/// Which columns `ejob list` shows.
struct TableColumns {
  bool all_namespaces = false;  ///< -A: NAMESPACE first
  bool wide = false;            ///< -o wide: RDZV-ENDPOINT and IMAGE last
};

/// Where a job runs: "local" for a job of this machine (annotation `ejob.io/where: local` on
/// the object ejob makes of it), else "cluster".
std::string job_where(const kubeapi::Json& job);

/// The header: [NAMESPACE] NAME STATUS MIN MAX DESIRED ACTIVE AGE WHERE ENGINE
/// [RDZV-ENDPOINT IMAGE].
Row job_header(const TableColumns& columns);

/// A job's row under job_header: min/max replicas and the Worker replica spec's `replicas`
/// (DESIRED) from the spec (PyTorchJob: elasticPolicy's min/max; TrainJob: numNodes for all
/// three), active workers from status.replicaStatuses.Worker.active (0 when absent; "-" for a
/// TrainJob); "-" for a count the spec lacks; whole numbers even when sent as floats. ENGINE:
/// engine.hpp's name of the job's kind.
Row job_row(const kubeapi::Json& job, const TableColumns& columns,
            std::chrono::system_clock::time_point now);

/// The rows as kubectl prints a table (its tabwriter: each column as wide as its widest cell
/// plus 3 spaces, the last column unpadded), one line per row.
std::string format_table(const std::vector<Row>& rows);

}  // namespace ejob::job
