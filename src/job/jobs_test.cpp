#include "src/job/jobs.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

namespace ejob::job {
namespace {

/// A backend that records every call and answers from what the test set up: the command
/// logic tested without a server or a process.
class RecordingBackend : public Backend {
 public:
  explicit RecordingBackend(Where where) : m_where(where) {}

  std::vector<std::string> calls;
  std::vector<std::string> existing;  ///< job names remove() finds
  std::vector<Json> jobs;             ///< what list() answers

  [[nodiscard]] Where where() const override { return m_where; }
  Submitted submit(const RenderObjects& render, const SubmitOptions&) override {
    const std::vector<Json> objects = render();
    calls.push_back("submit " + objects.at(0)["metadata"]["name"].get<std::string>());
    return {objects.at(0)["metadata"]["name"], objects, {}, ""};
  }
  std::vector<Json> list() override {
    calls.push_back("list");
    return jobs;
  }
  void wait(const std::string& name, const WaitOptions&, const Report&) override {
    calls.push_back("wait " + name);
  }
  Removed remove(const std::string& name, const RemoveOptions& options) override {
    calls.push_back("remove " + name + (options.keep ? " --keep" : ""));
    const bool found = std::find(existing.begin(), existing.end(), name) != existing.end();
    return {found, name == "held" ? "example.com/hold" : ""};
  }
  void wait_removed(const std::string& name, std::optional<std::chrono::milliseconds>) override {
    calls.push_back("wait_removed " + name);
  }
  void scale(const std::string& name, int nodes) override {
    calls.push_back("scale " + name + " " + std::to_string(nodes));
  }
  std::vector<std::string> evict(const std::string& name, const EvictRequest& r) override {
    calls.push_back("evict " + name + " " + std::to_string(r.worker.value_or(-1)) + " " +
                    std::to_string(r.grace_s.value_or(-1)));
    return {};
  }
  void logs(const std::string& name, const LogRequest& request, LogSink& out) override {
    calls.push_back("logs " + name + (request.options.follow ? " -f" : ""));
    out.lines("worker-0", 0, {"a line"});
  }
  Description describe(const std::string& name) override {
    calls.push_back("describe " + name);
    return JobView{};
  }

 private:
  Where m_where;
};

TEST_CASE("submit_target: --local, --context local or backend: local run here") {
  CHECK(submit_target(false, "", false) == Where::Cluster);
  CHECK(submit_target(true, "", false) == Where::Local);
  CHECK(submit_target(false, "local", false) == Where::Local);
  CHECK(submit_target(false, "prod", true) == Where::Local);
  CHECK(submit_target(false, "prod", false) == Where::Cluster);
}

TEST_CASE("named_target: a local job by that name, unless a cluster context is named") {
  CHECK(named_target("", true) == Where::Local);
  CHECK(named_target("", false) == Where::Cluster);
  CHECK(named_target("local", false) == Where::Local);
  CHECK(named_target("prod", true) == Where::Cluster);
}

TEST_CASE("remove_jobs: every job found is removed before the missing ones are reported") {
  RecordingBackend b(Where::Cluster);
  b.existing = {"a", "held", "c"};
  std::vector<std::string> said;
  auto note = [&](const std::string& name, const Removed& r) {
    said.push_back(name + ":" + r.held_by);
  };
  CHECK_THROWS_WITH(
      remove_jobs(b, {"a", "x", "held", "y", "c"}, {}, true, std::nullopt, note, "in namespace ml"),
      "elasticjob \"x\", \"y\" not found in namespace ml");
  CHECK(b.calls == std::vector<std::string>{"remove a", "remove x", "remove held", "remove y",
                                            "remove c", "wait_removed a", "wait_removed held",
                                            "wait_removed c"});
  CHECK(said == std::vector<std::string>{"a:", "held:example.com/hold", "c:"});
}

TEST_CASE("remove_jobs: no wait unless asked; --keep reaches the backend") {
  RecordingBackend b(Where::Local);
  b.existing = {"a"};
  remove_jobs(
      b, {"a"}, {true}, false, std::nullopt, [](auto&, auto&) {}, "on this machine");
  CHECK(b.calls == std::vector<std::string>{"remove a --keep"});
  try {
    remove_jobs(
        b, {"gone"}, {}, false, std::nullopt, [](auto&, auto&) {}, "on this machine");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::NotFound);
  }
}

TEST_CASE("list_jobs: each backend's jobs, in the backends' order") {
  RecordingBackend cluster(Where::Cluster), local(Where::Local);
  cluster.jobs = {{{"metadata", {{"name", "c1"}}}}, {{"metadata", {{"name", "c2"}}}}};
  local.jobs = {{{"metadata", {{"name", "l1"}}}}};
  std::vector<std::string> names;
  for (const Json& j : list_jobs({&cluster, &local})) names.push_back(j["metadata"]["name"]);
  CHECK(names == std::vector<std::string>{"c1", "c2", "l1"});
  CHECK(list_jobs({}).empty());
}

}  // namespace
}  // namespace ejob::job
