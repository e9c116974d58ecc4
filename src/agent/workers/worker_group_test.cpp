#include "src/agent/workers/worker_group.hpp"

#include <signal.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "src/agent/base/agent_signals.hpp"

using namespace ejob::agent;

namespace {

WorkerLaunch shell(const std::string& script) {
  WorkerLaunch w;
  w.argv = {"/bin/sh", "-c", script};
  w.env = {{"PATH", "/usr/bin:/bin"}};
  return w;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// True while the process exists and is not a zombie.
bool alive(pid_t pid) {
  std::string stat = slurp("/proc/" + std::to_string(pid) + "/stat");
  size_t close = stat.rfind(')');
  return close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z';
}

}  // namespace

TEST_CASE("worker group: all workers exiting 0 is success") {
  AgentSignals signals;
  WorkerGroup group(signals.fd());
  group.start({shell("exit 0"), shell("exit 0")});
  GroupResult r = group.wait(-1);
  CHECK(r.event == GroupEvent::Succeeded);
  CHECK(r.failed.empty());
}

TEST_CASE("worker group: a failure is reported while the others still run; stop ends them") {
  AgentSignals signals;
  WorkerGroup group(signals.fd());
  group.start({shell("exec sleep 30"), shell("exit 3")});
  GroupResult r = group.wait(-1);
  REQUIRE(r.event == GroupEvent::Failed);
  REQUIRE_FALSE(r.failed.empty());
  std::vector<pid_t> running = group.pids();
  REQUIRE_FALSE(running.empty());
  group.stop(SIGTERM, std::chrono::seconds(5));
  CHECK(group.pids().empty());
  for (pid_t p : running) CHECK_FALSE(alive(p));
  std::vector<int> codes;
  for (const auto& f : group.failed()) codes.push_back(f.exit_code);
  std::sort(codes.begin(), codes.end());
  CHECK(codes == std::vector<int>{-15, 3});
}

TEST_CASE("worker group: death by a signal is reported as minus the signal") {
  AgentSignals signals;
  WorkerGroup group(signals.fd());
  group.start({shell("kill -9 $$")});
  GroupResult r = group.wait(-1);
  REQUIRE(r.event == GroupEvent::Failed);
  REQUIRE(r.failed.size() == 1);
  CHECK(r.failed[0].exit_code == -9);
  CHECK(r.failed[0].local_rank == 0);
}

TEST_CASE("worker group: stop kills the workers' own children through the process group") {
  AgentSignals signals;
  auto dir = std::filesystem::temp_directory_path() / ("ejob-wg-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string pidfile = (dir / "child.pid").string();
  WorkerGroup group(signals.fd());
  group.start({shell("sleep 30 & echo $! > " + pidfile + "; wait")});
  while (slurp(pidfile).empty()) ::usleep(10000);
  pid_t child = std::stoi(slurp(pidfile));
  REQUIRE(alive(child));
  group.stop(SIGTERM, std::chrono::seconds(5));
  CHECK_FALSE(alive(child));
  std::filesystem::remove_all(dir);
}

TEST_CASE("worker group: tee writes the file and prefixes the console; redirect only the file") {
  AgentSignals signals;
  auto dir = std::filesystem::temp_directory_path() / ("ejob-tee-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  WorkerLaunch teed = shell("echo one; printf 'two'; echo err >&2");
  teed.stdout_file = (dir / "out0.log").string();
  teed.tee_stdout = true;
  teed.prefix = "[default0]:";
  WorkerLaunch redirected = shell("echo three");
  redirected.stdout_file = (dir / "out1.log").string();
  WorkerGroup group(signals.fd());
  group.start({teed, redirected});
  CHECK(group.wait(-1).event == GroupEvent::Succeeded);
  CHECK(slurp((dir / "out0.log").string()) == "one\ntwo");
  CHECK(slurp((dir / "out1.log").string()) == "three\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("worker group: a readable watch fd interrupts the wait") {
  AgentSignals signals;
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  WorkerGroup group(signals.fd());
  group.start({shell("exec sleep 30")});
  REQUIRE(::write(fds[1], "x", 1) == 1);
  CHECK(group.wait(fds[0]).event == GroupEvent::Watch);
  group.stop(SIGTERM, std::chrono::seconds(5));
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_CASE("worker group: a forwarded signal to the agent is reported") {
  AgentSignals signals;
  WorkerGroup group(signals.fd());
  group.start({shell("exec sleep 30")});
  ::kill(::getpid(), SIGHUP);
  GroupResult r = group.wait(-1);
  CHECK(r.event == GroupEvent::Signal);
  CHECK(r.signal == SIGHUP);
  group.stop(r.signal, std::chrono::seconds(5));
  CHECK(group.pids().empty());
}

TEST_CASE("worker group: a readable notice fd interrupts the wait, before a watch fd") {
  AgentSignals signals;
  int watch[2], notice[2];
  REQUIRE(::pipe(watch) == 0);
  REQUIRE(::pipe(notice) == 0);
  WorkerGroup group(signals.fd());
  group.start({shell("exec sleep 30")});
  REQUIRE(::write(watch[1], "x", 1) == 1);
  REQUIRE(::write(notice[1], "x", 1) == 1);
  CHECK(group.wait(watch[0], notice[0]).event == GroupEvent::Notice);
  group.stop(SIGTERM, std::chrono::seconds(5));
  for (int fd : {watch[0], watch[1], notice[0], notice[1]}) ::close(fd);
}

TEST_CASE("worker group: signal_workers reaches the worker alone, and await_exit waits for it") {
  AgentSignals signals;
  auto dir = std::filesystem::temp_directory_path() / ("ejob-wgs-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string pidfile = (dir / "child.pid").string();
  std::string marker = (dir / "checkpoint").string();
  WorkerGroup group(signals.fd());
  // A worker that checkpoints on SIGUSR1 and exits, and its child that the signal must spare.
  group.start({shell("trap 'echo saved > " + marker + "; exit 0' USR1; sleep 30 & echo $! > " +
                     pidfile + "; while :; do sleep 0.05; done")});
  while (slurp(pidfile).empty()) ::usleep(10000);
  pid_t child = std::stoi(slurp(pidfile));
  CHECK_FALSE(group.await_exit(std::chrono::milliseconds(50)));
  group.signal_workers(SIGUSR1);
  CHECK(group.await_exit(std::chrono::seconds(10)));
  CHECK(slurp(marker) == "saved\n");
  CHECK(alive(child));  // not in the signal's way; the stop that follows ends it
  group.stop(SIGKILL, std::chrono::milliseconds(0));
  CHECK_FALSE(alive(child));
  std::filesystem::remove_all(dir);
}
