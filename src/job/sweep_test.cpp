#include "src/job/sweep.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

namespace ejob::job {
namespace {

ErrorCode code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode::Internal;
}

}  // namespace

TEST_CASE("sweep: KEY=V1,V2 axes and their cross product, first axis slowest") {
  const SweepAxis lr = parse_sweep("lr=0.1,0.01");
  CHECK(lr.key == "lr");
  CHECK(lr.values == std::vector<std::string>{"0.1", "0.01"});
  const auto points = sweep_points({lr, parse_sweep("batch=32,64,128")});
  REQUIRE(points.size() == 6);
  CHECK(point_text(points[0]) == "lr=0.1 batch=32");
  CHECK(point_text(points[2]) == "lr=0.1 batch=128");
  CHECK(point_text(points[5]) == "lr=0.01 batch=128");
  for (const char* bad : {"lr", "=1", "lr=", "lr=1,,2", "l r=1"})
    CHECK(code_of([&] { parse_sweep(bad); }) == ErrorCode::Usage);
  CHECK(code_of([&] { sweep_points({lr, lr}); }) == ErrorCode::Usage);
  const SweepAxis many = parse_sweep("seed=1,2,3,4,5,6,7,8,9,10,11");
  CHECK(code_of([&] { sweep_points({many, many, parse_sweep("x=1")}); }) == ErrorCode::Usage);
}

TEST_CASE("sweep: chart keys are set, other keys go to the script, every job is labelled") {
  render::go::Map chart;
  chart["gpus"] = render::go::Value::integer(0);
  chart["env"] = render::go::Value::map(render::go::Map{});
  chart["labels"] = render::go::Value::map(render::go::Map{});
  const JobRequest r =
      point_request({}, chart, {{"gpus", "2"}, {"env.LR", "0.1"}, {"lr", "0.1"}}, "sw-abcde");
  CHECK(r.sources.set == std::vector<std::string>{"gpus=2", "env.LR=0.1"});
  CHECK(r.extra_script_args == std::vector<std::string>{"--lr=0.1"});
  CHECK(r.sources.set_string == std::vector<std::string>{"labels.ejob\\.sweep=sw-abcde"});
  CHECK(new_sweep_id().size() == 8);
  CHECK(new_sweep_id().rfind("sw-", 0) == 0);
}

TEST_CASE("sweep: the outcome names the jobs that exist and those not created") {
  std::vector<SweepJob> jobs(2);
  jobs[0].point = {{"lr", "0.1"}};
  jobs[0].name = "train-aaaaa";
  jobs[1].point = {{"lr", "x"}};
  jobs[1].error = std::make_exception_ptr(Error(ErrorCode::Conflict, "taken"));
  auto outcome = sweep_outcome("sw-1", jobs);
  REQUIRE(outcome);
  try {
    std::rethrow_exception(outcome);
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Conflict);
    CHECK(std::string(e.what()) ==
          "sweep sw-1: 1 of 2 jobs exist (train-aaaaa); not created:\n  lr=x: taken");
  }
  jobs.pop_back();
  CHECK_FALSE(sweep_outcome("sw-1", jobs));
  jobs[0].result = "preempted";
  jobs[0].error = std::make_exception_ptr(Error(ErrorCode::Preempted, "evicted"));
  jobs.push_back(jobs[0]);
  jobs[1].result = "failed";
  jobs[1].error = std::make_exception_ptr(Error(ErrorCode::JobFailed, "exit 1"));
  try {
    std::rethrow_exception(sweep_outcome("sw-1", jobs));
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::JobFailed);  // the worst: failed beats preempted
  }
}

}  // namespace ejob::job
