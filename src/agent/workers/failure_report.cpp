#include "src/agent/workers/failure_report.hpp"

#include <ctime>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "src/agent/base/agent_signals.hpp"
#include "src/util/error.hpp"

namespace ejob::agent {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return "";
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string format_time(std::time_t t) {
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d_%H:%M:%S", &tm);
  return buf;
}

/// The traceback line: the worker's recorded message, the signal, or torchrun's hint.
std::string traceback(const WorkerFailure& f) {
  std::string content = read_file(f.error_file);
  if (!content.empty()) {
    try {
      nlohmann::json j = nlohmann::json::parse(content);
      const auto& m = j.at("message");
      if (m.is_string()) return m.get<std::string>();
      std::string text = m.value("message", "");
      if (m.contains("extraInfo") && m["extraInfo"].contains("py_callstack"))
        text = m["extraInfo"]["py_callstack"].get<std::string>();
      return text;
    } catch (const nlohmann::json::exception&) {
      return content;
    }
  }
  if (f.exit.exit_code < 0)
    return "Signal " + std::to_string(-f.exit.exit_code) + " (" + signal_name(-f.exit.exit_code) +
           ") received by PID " + std::to_string(f.exit.pid);
  return "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html";
}

std::string describe(size_t index, const WorkerFailure& f, const std::string& host) {
  std::string file = read_file(f.error_file).empty() ? "<N/A>" : f.error_file;
  std::string tb = traceback(f);
  std::string indented;
  for (char c : tb) indented += c == '\n' ? std::string("\n  ") : std::string(1, c);
  return "[" + std::to_string(index) + "]:\n  time      : " + format_time(f.exit.when) +
         "\n  host      : " + host + "\n  rank      : " + std::to_string(f.global_rank) +
         " (local_rank: " + std::to_string(f.exit.local_rank) +
         ")\n  exitcode  : " + std::to_string(f.exit.exit_code) +
         " (pid: " + std::to_string(f.exit.pid) + ")\n  error_file: " + file +
         "\n  traceback : " + indented + "\n";
}

}  // namespace

const WorkerFailure& root_cause(const std::vector<WorkerFailure>& failures) {
  const WorkerFailure* best = &failures.front();
  for (const auto& f : failures)
    if (f.exit.when < best->exit.when) best = &f;
  return *best;
}

std::string format_failure_summary(const std::string& script, const std::string& host,
                                   const std::vector<WorkerFailure>& failures) {
  const std::string rule(60, '=');
  const std::string thin(60, '-');
  const WorkerFailure& root = root_cause(failures);
  std::string others;
  size_t index = 1;
  for (const auto& f : failures)
    if (&f != &root) others += describe(index++, f, host);
  if (others.empty()) others = "  <NO_OTHER_FAILURES>\n";
  return rule + "\n" + script + " FAILED\n" + thin + "\nFailures:\n" + others + thin +
         "\nRoot Cause (first observed failure):\n" + describe(0, root, host) + rule + "\n";
}

void write_agent_error_file(const std::string& path, const WorkerFailure& root) {
  nlohmann::json out;
  std::string content = read_file(root.error_file);
  try {
    out = content.empty() ? nlohmann::json() : nlohmann::json::parse(content);
  } catch (const nlohmann::json::exception&) {
    out = nlohmann::json();
  }
  if (out.is_object() && out.contains("message") && out["message"].is_object()) {
    if (!out["message"].contains("errorCode")) out["message"]["errorCode"] = root.exit.exit_code;
  } else {
    out = {{"message",
            {{"message", traceback(root)},
             {"errorCode", root.exit.exit_code},
             {"extraInfo", {{"timestamp", std::to_string(root.exit.when)}}}}}};
  }
  std::ofstream file(path);
  file << out.dump();
  if (!file) throw Error(ErrorCode::Io, "cannot write the error file " + path);
}

}  // namespace ejob::agent
