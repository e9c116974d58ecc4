#include "src/agent/workers/failure_report.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ejob::agent;

namespace {
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("failure report: torchrun's summary with the earliest failure as root cause") {
  setenv("TZ", "UTC", 1);
  tzset();
  std::vector<WorkerFailure> failures = {
      {{1, 4242, -15, 1700000005}, 3, "/nonexistent/error.json"},
      {{0, 4241, -9, 1700000000}, 2, "/nonexistent/error.json"},
  };
  CHECK(format_failure_summary("train.py", "node-0", failures) ==
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "[1]:\n"
        "  time      : 2023-11-14_22:13:25\n"
        "  host      : node-0\n"
        "  rank      : 3 (local_rank: 1)\n"
        "  exitcode  : -15 (pid: 4242)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 15 (SIGTERM) received by PID 4242\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n"
        "[0]:\n"
        "  time      : 2023-11-14_22:13:20\n"
        "  host      : node-0\n"
        "  rank      : 2 (local_rank: 0)\n"
        "  exitcode  : -9 (pid: 4241)\n"
        "  error_file: <N/A>\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 4241\n"
        "============================================================\n");
}

TEST_CASE("failure report: the worker's error file becomes the agent's, with errorCode") {
  auto dir = std::filesystem::temp_directory_path() / "ejob-failure-report-test";
  std::filesystem::create_directories(dir);
  std::string worker_file = (dir / "error.json").string();
  std::ofstream(worker_file)
      << R"({"message": {"message": "ValueError: bad", "extraInfo": {"py_callstack": "Traceback...", "timestamp": "1"}}})";
  WorkerFailure f{{0, 7, 1, 1700000000}, 0, worker_file};
  std::string agent_file = (dir / "agent.json").string();
  write_agent_error_file(agent_file, f);
  CHECK(
      slurp(agent_file) ==
      R"({"message":{"errorCode":1,"extraInfo":{"py_callstack":"Traceback...","timestamp":"1"},"message":"ValueError: bad"}})");
  CHECK(format_failure_summary("t.py", "h", {f}).find("  traceback : Traceback...\n") !=
        std::string::npos);

  WorkerFailure plain{{0, 8, 2, 1700000000}, 0, (dir / "none.json").string()};
  write_agent_error_file(agent_file, plain);
  CHECK(
      slurp(agent_file) ==
      R"({"message":{"errorCode":2,"extraInfo":{"timestamp":"1700000000"},"message":"To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"}})");
  std::filesystem::remove_all(dir);
}
