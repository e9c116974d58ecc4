#include "src/local/state.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>

#include "src/local/requests.hpp"
#include "src/util/error.hpp"

namespace ejob::local {
namespace {

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("ejob-local-test-" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST_CASE("state.json: written whole and read back") {
  TempDir dir;
  JobState s;
  s.name = "dg";
  s.phase = Phase::Running;
  s.etcd_endpoint = "127.0.0.1:2379";
  s.nodes.push_back({0, 42, "running", 1, 0, 0, std::nullopt, "2026-01-01T00:00:00Z", ""});
  s.nodes.push_back({1, 0, "failed", 0, 1, 1, 137, "", ""});
  save_state(dir.path, s);
  const JobState back = load_state(dir.path);
  CHECK(back.name == "dg");
  CHECK(back.phase == Phase::Running);
  REQUIRE(back.nodes.size() == 2);
  CHECK(back.nodes[0].pid == 42);
  CHECK(!back.nodes[0].exit_code);
  CHECK(back.nodes[1].exit_code == 137);
  CHECK(back.nodes[1].evictions == 1);
  CHECK(back.nodes[1].notices == 1);
  CHECK(fs::directory_iterator(dir.path) != fs::directory_iterator());
  for (const auto& e : fs::directory_iterator(dir.path))
    CHECK(e.path().filename() == "state.json");  // no temporary file left
}

TEST_CASE("state files: state.json and events.jsonl are the owner's alone (0600)") {
  TempDir dir;
  JobState s;
  s.name = "dg";
  save_state(dir.path, s);
  append_event(dir.path, {"2026-01-01T00:00:00Z", "Normal", "Started", "x"});
  for (const char* name : {"state.json", "events.jsonl"})
    CHECK(fs::status(dir.path / name).permissions() ==
          (fs::perms::owner_read | fs::perms::owner_write));
}

TEST_CASE("state.json: damage is reported with the file's path") {
  TempDir dir;
  std::ofstream(dir.path / "state.json") << R"({"name": "dg", "phase": )";
  CHECK_THROWS_WITH(load_state(dir.path),
                    Catch::Contains((dir.path / "state.json").string() + ": damaged"));
  std::ofstream(dir.path / "state.json") << R"({"name": "dg", "phase": "Dancing"})";
  CHECK_THROWS_WITH(load_state(dir.path), Catch::Contains("unknown phase \"Dancing\""));
  std::ofstream(dir.path / "state.json") << R"({"name": "dg", "phase": "Running"})";
  CHECK_THROWS_WITH(load_state(dir.path), Catch::Contains("damaged"));
  CHECK_THROWS_AS(load_state(dir.path / "none"), Error);
}

TEST_CASE("events.jsonl: appended lines; a torn last line is skipped") {
  TempDir dir;
  append_event(dir.path, {"t1", "Normal", "NodeStarted", "started worker-0"});
  append_event(dir.path, {"t2", "Warning", "NodeRestarted", "worker-0 exited 137"});
  std::ofstream(dir.path / "events.jsonl", std::ios::app) << R"({"time": "t3", "ty)";
  const std::vector<Event> events = read_events(dir.path);
  REQUIRE(events.size() == 2);
  CHECK(events[1].reason == "NodeRestarted");
}

TEST_CASE("requests: a dead supervisor takes none; files are read in order and removed") {
  TempDir dir;
  JobState s;
  s.name = "dg";
  s.phase = Phase::Succeeded;
  s.supervisor_pid = 0;
  CHECK_THROWS_WITH(send_request(dir.path, s, {Request::Kind::Scale, 2, 0, 0}),
                    Catch::Contains("nothing runs it any more"));
  s.supervisor_pid = ::getpid();  // SIGUSR1 to ourselves: ignore it for the test
  ::signal(SIGUSR1, SIG_IGN);
  send_request(dir.path, s, {Request::Kind::Scale, 2, 0, 0});
  send_request(dir.path, s, {Request::Kind::Evict, 0, 1, 5});
  std::ofstream(dir.path / "requests" / "zz.json") << "{";
  const std::vector<Request> r = take_requests(dir.path);
  REQUIRE(r.size() == 2);
  CHECK(r[0].kind == Request::Kind::Scale);
  CHECK(r[0].nodes == 2);
  CHECK(r[1].kind == Request::Kind::Evict);
  CHECK(r[1].index == 1);
  CHECK(r[1].grace_s == 5);
  CHECK(fs::is_empty(dir.path / "requests"));
}

}  // namespace
}  // namespace ejob::local
