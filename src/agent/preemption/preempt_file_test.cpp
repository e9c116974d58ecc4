#include "src/agent/preemption/preempt_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "src/agent/preemption/cloud_time.hpp"
#include "src/util/error.hpp"

using namespace ejob::agent;

TEST_CASE("preempt file: the contract's fields, in order") {
  PreemptionNotice n{Cloud::Azure, "Preempt", "A1", *parse_rfc3339("2026-11-28T10:00:30Z")};
  CHECK(preempt_file_json(n, *parse_rfc3339("2026-11-28T10:00:25Z"), "SIGTERM") ==
        R"({"cloud":"azure","event":"Preempt","event_id":"A1","deadline":"2026-11-28T10:00:30Z",)"
        R"("deadline_epoch":1795860030,"exit_by":"2026-11-28T10:00:25Z",)"
        R"("exit_by_epoch":1795860025,"signal":"SIGTERM"})"
        "\n");
}

TEST_CASE("preempt file: the workers' time is the deadline less the grace, or what is left") {
  SysTime now = *parse_rfc3339("2026-11-28T10:00:00Z");
  auto at = [&](int s) { return now + std::chrono::seconds(s); };
  CHECK(exit_by_time(at(30), std::chrono::seconds(5), now) == at(25));
  CHECK(exit_by_time(at(3), std::chrono::seconds(5), now) == at(3));
  CHECK(exit_by_time(at(-2), std::chrono::seconds(5), now) == at(5));
}

TEST_CASE("preempt file: written whole under its name, no temporary left") {
  char dir[] = "/tmp/ejob-preempt-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  std::string path = std::string(dir) + "/preempt.json";
  write_preempt_file(path, "{}\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "{}\n");
  struct stat st {};
  CHECK(::stat((path + ".tmp").c_str(), &st) != 0);
  ::unlink(path.c_str());
  ::rmdir(dir);
  CHECK_THROWS_AS(write_preempt_file(std::string(dir) + "/preempt.json", "{}"), ejob::Error);
}
