#include "src/local/requests.hpp"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>

#include "src/local/process.hpp"
#include "src/util/error.hpp"

namespace ejob::local {
namespace {

Json request_json(const Request& r) {
  if (r.kind == Request::Kind::Scale) return {{"op", "scale"}, {"nodes", r.nodes}};
  return {{"op", r.kind == Request::Kind::Notice ? "notice" : "evict"},
          {"index", r.index},
          {"grace", r.grace_s}};
}

Request request_from_json(const Json& j) {
  Request r;
  if (j.at("op") == "scale") {
    r.nodes = j.at("nodes").get<int>();
  } else {
    r.kind = j.at("op") == "notice" ? Request::Kind::Notice : Request::Kind::Evict;
    r.index = j.at("index").get<int>();
    r.grace_s = j.at("grace").get<int>();
  }
  return r;
}

}  // namespace

void send_request(const fs::path& dir, const JobState& state, const Request& request) {
  if (!process_alive(state.supervisor_pid))
    throw Error(ErrorCode::JobFailed, "job \"" + state.name + "\" is " + phase_name(state.phase) +
                                          ": nothing runs it any more");
  static std::atomic<int> sequence{0};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::string id =
      std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()) + "-" +
      std::to_string(::getpid()) + "-" + std::to_string(sequence++);
  fs::create_directories(dir / "requests");
  write_file_atomic(dir / "requests" / (id + ".json"), request_json(request).dump() + "\n");
  ::kill(state.supervisor_pid, SIGUSR1);
}

std::vector<Request> take_requests(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir / "requests", ec))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<Request> requests;
  for (const fs::path& file : files) {
    try {
      requests.push_back(request_from_json(read_json_file(file)));
    } catch (const std::exception&) {
      // A torn or foreign file is no request; it is removed below like the others.
    }
    fs::remove(file, ec);
  }
  return requests;
}

}  // namespace ejob::local
