#include "src/local/state.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "src/util/error.hpp"

namespace ejob::local {
namespace {

constexpr const char* k_phase_names[] = {"Starting", "Running", "Succeeded", "Failed", "Stopped"};

Phase phase_from_name(const std::string& name, const std::string& origin) {
  for (int i = 0; i < 5; ++i)
    if (name == k_phase_names[i]) return static_cast<Phase>(i);
  throw Error(ErrorCode::Io, origin + ": unknown phase \"" + name + "\"");
}

void write_all(int fd, const std::string& text, const fs::path& path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorCode::Io, path.string() + ": " + std::strerror(errno));
    done += static_cast<size_t>(n);
  }
}

Json node_to_json(const NodeState& n) {
  Json j = {{"index", n.index},         {"pid", n.pid},
            {"status", n.status},       {"restarts", n.restarts},
            {"evictions", n.evictions}, {"notices", n.notices},
            {"started", n.started},     {"finished", n.finished}};
  j["exitCode"] = n.exit_code ? Json(*n.exit_code) : Json(nullptr);
  return j;
}

NodeState node_from_json(const Json& j) {
  NodeState n;
  n.index = j.at("index").get<int>();
  n.pid = j.at("pid").get<pid_t>();
  n.status = j.at("status").get<std::string>();
  n.restarts = j.at("restarts").get<int>();
  n.evictions = j.value("evictions", 0);
  n.notices = j.value("notices", 0);
  if (!j.at("exitCode").is_null()) n.exit_code = j.at("exitCode").get<int>();
  n.started = j.value("started", "");
  n.finished = j.value("finished", "");
  return n;
}

JobState job_from_json(const Json& j, const std::string& origin) {
  JobState s;
  s.name = j.at("name").get<std::string>();
  s.phase = phase_from_name(j.at("phase").get<std::string>(), origin);
  s.message = j.value("message", "");
  s.exit_code = j.value("exitCode", 0);
  s.supervisor_pid = j.at("supervisorPid").get<pid_t>();
  s.etcd_pid = j.at("etcdPid").get<pid_t>();
  s.etcd_endpoint = j.at("etcdEndpoint").get<std::string>();
  s.engine = j.value("engine", "elasticjob");  // written before there were engines
  s.rdzv_endpoint = j.value("rdzvEndpoint", "");
  s.min_nodes = j.at("minNodes").get<int>();
  s.max_nodes = j.at("maxNodes").get<int>();
  s.desired_nodes = j.at("desiredNodes").get<int>();
  for (const Json& n : j.at("nodes")) s.nodes.push_back(node_from_json(n));
  s.created = j.value("created", "");
  s.finished = j.value("finished", "");
  return s;
}

}  // namespace

std::string phase_name(Phase phase) { return k_phase_names[static_cast<int>(phase)]; }

bool is_final(Phase phase) { return phase >= Phase::Succeeded; }

fs::path state_root() {
  const char* xdg = std::getenv("XDG_STATE_HOME");
  if (xdg && *xdg == '/') return fs::path(xdg) / "ejob" / "local";
  const char* home = std::getenv("HOME");
  if (!home || !*home)
    throw Error(ErrorCode::Io, "neither XDG_STATE_HOME nor HOME is set: no place for local jobs");
  return fs::path(home) / ".local" / "state" / "ejob" / "local";
}

fs::path job_dir(const std::string& name) { return state_root() / name; }

void write_file_atomic(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(ErrorCode::Io, tmp.string() + ": " + std::strerror(errno));
  try {
    write_all(fd, text, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    throw Error(ErrorCode::Io, path.string() + ": " + std::strerror(errno));
}

Json read_json_file(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::Io, path.string() + ": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  try {
    return Json::parse(text.str());
  } catch (const Json::exception& e) {
    throw Error(ErrorCode::Io, path.string() + ": damaged (not JSON: " + e.what() + ")");
  }
}

Json to_json(const JobState& s) {
  Json nodes = Json::array();
  for (const NodeState& n : s.nodes) nodes.push_back(node_to_json(n));
  return {{"name", s.name},
          {"phase", phase_name(s.phase)},
          {"message", s.message},
          {"exitCode", s.exit_code},
          {"supervisorPid", s.supervisor_pid},
          {"etcdPid", s.etcd_pid},
          {"etcdEndpoint", s.etcd_endpoint},
          {"engine", s.engine},
          {"rdzvEndpoint", s.rdzv_endpoint},
          {"minNodes", s.min_nodes},
          {"maxNodes", s.max_nodes},
          {"desiredNodes", s.desired_nodes},
          {"nodes", nodes},
          {"created", s.created},
          {"finished", s.finished}};
}

JobState job_state_from_json(const Json& json, const std::string& origin) {
  try {
    return job_from_json(json, origin);
  } catch (const Json::exception& e) {
    throw Error(ErrorCode::Io, origin + ": damaged (" + e.what() + ")");
  }
}

JobState load_state(const fs::path& dir) {
  const fs::path path = dir / "state.json";
  return job_state_from_json(read_json_file(path), path.string());
}

void save_state(const fs::path& dir, const JobState& state) {
  write_file_atomic(dir / "state.json", to_json(state).dump(2) + "\n");
}

void append_event(const fs::path& dir, const Event& e) {
  const Json j = {{"time", e.time}, {"type", e.type}, {"reason", e.reason}, {"message", e.message}};
  const std::string line = j.dump() + "\n";
  const fs::path path = dir / "events.jsonl";
  // One write(2) of a whole line with O_APPEND: lines of concurrent writers never interleave.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) throw Error(ErrorCode::Io, path.string() + ": " + std::strerror(errno));
  write_all(fd, line, path);
  ::close(fd);
}

std::vector<Event> read_events(const fs::path& dir) {
  std::vector<Event> events;
  std::ifstream in(dir / "events.jsonl");
  for (std::string line; std::getline(in, line);) {
    Json j = Json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) continue;
    events.push_back(
        {j.value("time", ""), j.value("type", ""), j.value("reason", ""), j.value("message", "")});
  }
  return events;
}

std::string now_rfc3339() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string rendezvous_text(const JobState& s) {
  if (s.engine == "pytorchjob") return "c10d store " + s.rdzv_endpoint + " on node 0";
  if (s.engine == "trainjob") return "static, master " + s.rdzv_endpoint + " (node 0)";
  return "etcd " + s.etcd_endpoint;
}

}  // namespace ejob::local
