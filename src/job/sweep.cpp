#include "src/job/sweep.hpp"

#include <algorithm>
#include <future>
#include <set>

#include "src/job/naming.hpp"
#include "src/util/error.hpp"

namespace ejob::job {

namespace {

constexpr size_t k_max_jobs = 100;  ///< a typo (`--sweep seed=1..1000`) should not start 1000 jobs

[[noreturn]] void bad_sweep(const std::string& text, const std::string& why) {
  throw Error(ErrorCode::Usage, "--sweep: \"" + text + "\" " + why +
                                    " (use KEY=V1,V2,...; repeat --sweep for more keys)");
}

/// Whether the chart's values have `key`'s first step (`env` for `env.LR`).
bool is_chart_key(const render::go::Map& chart_values, const std::string& key) {
  return chart_values.count(key.substr(0, key.find('.'))) > 0;
}

}  // namespace

SweepAxis parse_sweep(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) bad_sweep(text, "has no KEY=");
  SweepAxis axis{text.substr(0, eq), {}};
  for (size_t start = eq + 1;;) {
    const size_t comma = text.find(',', start);
    std::string value = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (value.empty()) bad_sweep(text, "has an empty value");
    axis.values.push_back(std::move(value));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (char c : axis.key)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      bad_sweep(text, "has a key that is neither a chart value nor a script flag name");
  return axis;
}

std::vector<SweepPoint> sweep_points(const std::vector<SweepAxis>& axes) {
  std::set<std::string> keys;
  size_t total = 1;
  for (const SweepAxis& a : axes) {
    if (!keys.insert(a.key).second)
      throw Error(ErrorCode::Usage, "--sweep: " + a.key + " is swept twice; give its values once");
    total *= a.values.size();
    if (total > k_max_jobs)
      throw Error(ErrorCode::Usage,
                  "--sweep: more than " + std::to_string(k_max_jobs) + " jobs; split the sweep");
  }
  std::vector<SweepPoint> points = {{}};
  for (const SweepAxis& a : axes) {
    std::vector<SweepPoint> next;
    for (const SweepPoint& p : points)
      for (const std::string& v : a.values) {
        SweepPoint q = p;
        q.emplace_back(a.key, v);
        next.push_back(std::move(q));
      }
    points = std::move(next);
  }
  return points;
}

std::string point_text(const SweepPoint& point) {
  std::string out;
  for (const auto& [k, v] : point) out += (out.empty() ? "" : " ") + k + "=" + v;
  return out;
}

std::string new_sweep_id() {
  // A job name's suffix is the same kind of draw: 36^5 ids, per namespace a handful.
  const std::string name = unique_job_name("sw", {k_max_label, "NAME"});
  return name;
}

JobRequest point_request(JobRequest base, const render::go::Map& chart_values,
                         const SweepPoint& point, const std::string& id) {
  for (const auto& [key, value] : point) {
    if (is_chart_key(chart_values, key))
      base.sources.set.push_back(key + "=" + value);
    else
      base.extra_script_args.push_back("--" + key + "=" + value);
  }
  if (chart_values.count("labels")) base.sources.set_string.push_back("labels.ejob\\.sweep=" + id);
  return base;
}

}  // namespace ejob::job

namespace ejob::job {
namespace {

std::string error_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
  return "unknown error";
}

ErrorCode error_code(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    return x.code();
  } catch (...) {
  }
  return ErrorCode::Internal;
}

/// How bad a wait's end is: not created, failed, timed out, preempted, succeeded.
int severity(const SweepJob& j) {
  if (j.name.empty()) return 4;
  if (!j.error) return 0;
  switch (error_code(j.error)) {
    case ErrorCode::Preempted: return 1;
    case ErrorCode::Timeout: return 2;
    default: return 3;
  }
}

std::string result_word(const std::exception_ptr& e) {
  if (!e) return "succeeded";
  switch (error_code(e)) {
    case ErrorCode::Preempted: return "preempted";
    case ErrorCode::Timeout: return "timed out";
    case ErrorCode::NotFound: return "deleted";
    default: return "failed";
  }
}

}  // namespace

std::vector<kubeapi::Json> sweep_jobs(std::vector<kubeapi::Json> jobs, const std::string& id) {
  std::erase_if(jobs, [&](const kubeapi::Json& j) {
    const kubeapi::Json& labels =
        j.value("metadata", kubeapi::Json::object()).value("labels", kubeapi::Json::object());
    return !labels.is_object() || labels.value(k_sweep_label, "") != id;
  });
  return jobs;
}

std::vector<SweepJob> submit_sweep(Backend& backend, const std::vector<JobRequest>& requests,
                                   const std::vector<SweepPoint>& points,
                                   const std::function<RenderObjects(const JobRequest&)>& render,
                                   const SubmitOptions& options, bool concurrent) {
  std::vector<SweepJob> jobs(requests.size());
  auto submit_one = [&](size_t i) {
    jobs[i].point = points[i];
    try {
      jobs[i].name = backend.submit(render(requests[i]), options).name;
    } catch (...) {
      jobs[i].error = std::current_exception();
    }
  };
  std::vector<std::future<void>> running;
  for (size_t i = 0; i < requests.size(); ++i) {
    if (concurrent)
      running.push_back(std::async(std::launch::async, submit_one, i));
    else
      submit_one(i);
  }
  for (auto& r : running) r.get();
  return jobs;
}

void wait_sweep(Backend& backend, std::vector<SweepJob>& jobs, const WaitOptions& options) {
  std::vector<std::future<void>> waits;
  for (SweepJob& j : jobs)
    if (!j.name.empty())
      waits.push_back(std::async(std::launch::async, [&backend, &j, options] {
        try {
          backend.wait(j.name, options, [](const std::string&) {});
        } catch (...) {
          j.error = std::current_exception();
        }
        j.result = result_word(j.error);
      }));
  for (auto& w : waits) w.get();
}

std::exception_ptr sweep_outcome(const std::string& id, const std::vector<SweepJob>& jobs) {
  const SweepJob* worst = nullptr;
  std::string made, missing;
  for (const SweepJob& j : jobs) {
    if (!worst || severity(j) > severity(*worst)) worst = &j;
    if (j.name.empty())
      missing += "\n  " + point_text(j.point) + ": " + error_text(j.error);
    else
      made += (made.empty() ? "" : ", ") + j.name;
  }
  if (!worst || severity(*worst) == 0) return nullptr;
  if (!missing.empty())
    return std::make_exception_ptr(
        Error(error_code(worst->error),
              "sweep " + id + ": " +
                  std::to_string(jobs.size() -
                                 std::count_if(jobs.begin(), jobs.end(),
                                               [](const SweepJob& j) { return j.name.empty(); })) +
                  " of " + std::to_string(jobs.size()) + " jobs exist (" +
                  (made.empty() ? "none" : made) + "); not created:" + missing));
  return std::make_exception_ptr(
      Error(error_code(worst->error), "sweep " + id + ": " + worst->name + " (" +
                                          point_text(worst->point) + ") " + worst->result + ": " +
                                          error_text(worst->error)));
}

}  // namespace ejob::job
