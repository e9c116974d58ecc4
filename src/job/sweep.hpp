#pragma once
/// Sweeps: `ejob submit JOB --sweep lr=0.1,0.01 --sweep batch=32,64` submits the cross product
/// of the values (4 jobs), each a job of its own with a drawn name and the label
/// `ejob.sweep: ID`, so that `ejob list --sweep ID` finds them. A sweep key the chart has
/// (`gpus`, `workers.min`, `env.LR`) is set as `--set` sets it; any other key is a
/// hyperparameter of the script, passed as `--KEY=VALUE` after its arguments.

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/job/backend.hpp"
#include "src/job/job_request.hpp"

namespace ejob::job {

/// The label that names a job's sweep.
inline constexpr const char* k_sweep_label = "ejob.sweep";

/// One `--sweep KEY=V1,V2,...`.
struct SweepAxis {
  std::string key;
  std::vector<std::string> values;
};

/// Parses a --sweep value; ejob::Error(Usage) naming the flag and its form.
SweepAxis parse_sweep(const std::string& text);

/// One job of a sweep: KEY=VALUE per axis.
using SweepPoint = std::vector<std::pair<std::string, std::string>>;

/// Every combination of the axes' values, the first axis varying slowest. ejob::Error(Usage)
/// for a key given twice or more than 100 jobs.
std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes);

/// "a=1 b=2": how tables show a point.
std::string point_text(const SweepPoint& point);

/// A new sweep id: "sw-" and five random [a-z0-9].
std::string new_sweep_id();

/// The request of one point of sweep `id`: `base` with the chart's keys set (`chart_values`:
/// the chart's defaults, to tell them from the script's), the others as script arguments, and
/// the sweep label.
JobRequest point_request(JobRequest base, const render::go::Map& chart_values,
                         const SweepPoint& point, const std::string& id);

/// The jobs among `jobs` labelled as sweep `id`'s.
std::vector<kubeapi::Json> sweep_jobs(std::vector<kubeapi::Json> jobs, const std::string& id);

/// One job of a sweep as it went: created (its name) or not (the error), and once waited for,
/// how it ended.
struct SweepJob {
  SweepPoint point;
  std::string name;          ///< "" when it was not created
  std::exception_ptr error;  ///< why it was not created, or why the wait failed
  std::string result;        ///< after the wait: succeeded, failed, preempted, timed out, ...
};

/// Submits each of `requests` (the points of one sweep) through `backend` — side by side when
/// `concurrent` — rendering each with `render`. Never throws for one job: each SweepJob says.
std::vector<SweepJob> submit_sweep(Backend& backend, const std::vector<JobRequest>& requests,
                                   const std::vector<SweepPoint>& points,
                                   const std::function<RenderObjects(const JobRequest&)>& render,
                                   const SubmitOptions& options, bool concurrent);

/// Waits for every created job of the sweep (side by side), noting each one's result.
void wait_sweep(Backend& backend, std::vector<SweepJob>& jobs, const WaitOptions& options);

/// The error a sweep ends with: none (nullptr) when every job was created (and, once waited
/// for, succeeded); else the worst — a job not created, then failed (1), timed out (9),
/// preempted (10) — with a message naming the jobs that exist and those that were not created.
std::exception_ptr sweep_outcome(const std::string& id, const std::vector<SweepJob>& jobs);

}  // namespace ejob::job
