#include "src/job/cluster_submit.hpp"

#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "src/kubeapi/api_error.hpp"
#include "tests/kube/objects.hpp"
#include "tests/kube/test_server.hpp"

using namespace ejob;
using namespace ejob::kubeapi;
using namespace ejob::job::cluster;
using ejob::testing::SilentPort;
using ejob::testing::TestServer;
using nlohmann::json;

namespace {

TransportOptions fast() {
  TransportOptions o;
  o.backoff_base = std::chrono::milliseconds(2);
  o.max_attempts = 8;
  return o;
}

void install_crd(Client& c, TestServer& server) {
  c.apply(ejob::testing::elasticjob_crd());
  server.control("sync");
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return std::to_string(exit_code(e.code())) + ": " + e.message();
  }
  return "(no error)";
}

/// Names of the stored objects of `kind` in elastic-job.
std::vector<std::string> stored(TestServer& server, const std::string& kind) {
  std::vector<std::string> names;
  for (const json& o : server.objects())
    if (o["kind"] == kind && o["metadata"].value("namespace", "") == "elastic-job")
      names.push_back(o["metadata"]["name"]);
  std::sort(names.begin(), names.end());
  return names;
}

SubmitOptions options(NameChoice naming = NameChoice::Drawn) {
  SubmitOptions o;
  o.naming = naming;
  o.name_space = "elastic-job";
  return o;
}

}  // namespace

TEST_CASE("submit: without the CRD the error names ejob install-crds; nothing is made") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client c(t);
  CHECK(error_of([&] {
          submit_job(
              c, [] { return ejob::testing::job_objects("bert-x1"); }, options());
        }) ==
        "8: the cluster does not serve ElasticJob (elastic.pytorch.org/v1alpha1): its CRD is not "
        "installed; "
        "install it with `ejob install-crds`");
  // The discovery and the ElasticJob's create go out together; the create finds no such
  // resource (404) and makes nothing.
  std::multiset<std::string> seen;
  for (const auto& r : server.requests())
    seen.insert(r.value("method", "") + " " + r.value("path", "") + " " +
                std::to_string(r.value("status", 0)));
  CHECK(seen ==
        std::multiset<std::string>{
            "GET /apis/elastic.pytorch.org/v1alpha1 404",
            "POST /apis/elastic.pytorch.org/v1alpha1/namespaces/elastic-job/elasticjobs 404"});
  for (const auto& o : server.objects()) CHECK(o.value("kind", "") == "Namespace");
}

TEST_CASE("submit: a failing exec plugin runs once for the concurrent first requests") {
  TestServer server;
  const std::string plugin = server.dir() + "/slow-fail.sh";
  // Slow enough that the CRD check and the ElasticJob's create both wait for this one run.
  {
    std::ofstream(plugin) << "#!/bin/sh\n"
                             "n=$(cat \"$0.count\" 2>/dev/null || echo 0); echo $((n+1)) > "
                             "\"$0.count\"\nsleep 1\necho 'login required' >&2\nexit 3\n";
  }
  chmod(plugin.c_str(), 0755);
  RestConfig cfg = server.config("admin-token");
  cfg.token.clear();
  cfg.exec = ExecConfig{"client.authentication.k8s.io/v1", plugin, {}, {}, "Never", false};
  Transport t(cfg, fast());
  Client c(t);
  CHECK(error_of([&] {
          submit_job(
              c, [] { return ejob::testing::job_objects("bert-x1"); }, options());
        }) == "6: exec plugin \"" + plugin + "\" failed with exit status 3");
  std::ifstream count(plugin + ".count");
  int runs = 0;
  count >> runs;
  CHECK(runs == 1);  // no second run for the other request, none for a rollback
  CHECK(server.requests().empty());
}

TEST_CASE("submit: a hung server costs one request timeout, and one more for the rollback") {
  // The create and the CRD check side by side, each one attempt that uses the whole timeout
  // (not max_create_attempts creates of a timeout each); then the rollback's look at whether
  // the create made the job after all, at the resource it was sent to (no discovery again).
  SilentPort hung;
  TransportOptions o = fast();
  o.request_timeout = std::chrono::milliseconds(300);
  Transport t(hung.config(), o);
  Client c(t);
  const std::string e = error_of([&] {
    submit_job(
        c, [] { return ejob::testing::job_objects("bert-x1"); }, options(NameChoice::Exact));
  });
  CHECK(e.rfind("4: GET http://127.0.0.1:" + std::to_string(hung.port()) + "/apis/", 0) == 0);
  CHECK(t.requests_sent() == 3);
  // Hung before the TLS handshake ends: the create was never sent, so there is nothing to
  // look for afterwards.
  RestConfig tls = hung.config();
  tls.server = "https://127.0.0.1:" + std::to_string(hung.port());
  tls.insecure = true;
  Transport u(tls, o);
  Client d(u);
  CHECK(error_of([&] {
          submit_job(
              d, [] { return ejob::testing::job_objects("bert-x1"); }, options(NameChoice::Exact));
        }).rfind("4: ", 0) == 0);
  CHECK(u.requests_sent() == 2);
}

TEST_CASE("submit: creates the job, then its owned objects, in objects + 1 requests") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client c(t);
  install_crd(c, server);
  server.control("requests/reset");
  Client fresh(t);  // discovery is per run: a new client asks again
  SubmitResult r = submit_job(
      fresh, [] { return ejob::testing::job_objects("bert-x1"); }, options());
  CHECK(server.requests().size() == 4);
  CHECK(r.redraws == 0);
  const std::string uid = r.job["metadata"]["uid"];
  REQUIRE(r.objects.size() == 3);
  for (size_t i : {0, 1}) {
    const json refs = r.objects[i]["metadata"]["ownerReferences"];
    REQUIRE(refs.size() == 1);
    CHECK(refs[0]["uid"] == uid);
    CHECK(refs[0]["kind"] == "ElasticJob");
    CHECK(refs[0]["name"] == "bert-x1");
  }
  CHECK(qualified_name(r.objects[0]) == "service/bert-x1-etcd-service");
  CHECK(qualified_name(r.job) == "elasticjob.elastic.pytorch.org/bert-x1");
  server.control("sync");
  CHECK(stored(server, "Pod") ==
        std::vector<std::string>{"bert-x1-etcd", "bert-x1-worker-0", "bert-x1-worker-1"});
  // Deleting the job removes everything it owns.
  c.remove(c.resource("elastic.pytorch.org/v1alpha1", "ElasticJob"), "elastic-job", "bert-x1");
  server.control("sync");  // the garbage collector's part
  CHECK(stored(server, "Pod").empty());
  CHECK(stored(server, "Service").empty());
}

TEST_CASE("submit: a taken drawn name is re-drawn and the existing job left alone") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client c(t);
  install_crd(c, server);
  const json theirs = c.create(ejob::testing::job_objects("bert-aaaaa")[2]);
  int calls = 0;
  SubmitResult r = submit_job(
      c, [&] { return ejob::testing::job_objects(calls++ ? "bert-bbbbb" : "bert-aaaaa"); },
      options());
  CHECK(r.redraws == 1);
  CHECK(r.job["metadata"]["name"] == "bert-bbbbb");
  const json still = c.get(c.resource_of(theirs), "elastic-job", "bert-aaaaa");
  CHECK(still["metadata"]["uid"] == theirs["metadata"]["uid"]);
  CHECK(still["metadata"]["resourceVersion"] != "");
}

TEST_CASE("submit: an exact name that is taken is refused") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client c(t);
  install_crd(c, server);
  c.create(ejob::testing::job_objects("bert")[2]);
  CHECK(
      error_of([&] {
        submit_job(
            c, [] { return ejob::testing::job_objects("bert"); }, options(NameChoice::Exact));
      }) ==
      "7: ElasticJob bert already exists in namespace elastic-job; choose another --name, or drop "
      "--exact-name to get a unique suffix");
}

TEST_CASE("submit: a dependent whose name is taken rolls back what this submit created") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client c(t);
  install_crd(c, server);
  const json foreign = c.create(ejob::testing::job_objects("bert")[0]);  // someone's Service
  CHECK(error_of([&] {
          submit_job(
              c, [] { return ejob::testing::job_objects("bert"); }, options(NameChoice::Exact));
        }) ==
        "7: Service bert-etcd-service already exists in namespace elastic-job and was not made by "
        "ejob for "
        "this job; nothing was created");
  server.control("sync");
  CHECK(stored(server, "Service") == std::vector<std::string>{"bert-etcd-service"});
  CHECK(stored(server, "Pod").empty());
  CHECK(stored(server, "ElasticJob").empty());
  CHECK(c.get(c.resource_of(foreign), "elastic-job", "bert-etcd-service")["metadata"]["uid"] ==
        foreign["metadata"]["uid"]);
}

TEST_CASE("submit: a user who may not create is told so and nothing is left") {
  TestServer server;
  Transport admin(server.config("admin-cert"), fast());
  Client a(admin);
  install_crd(a, server);
  Transport t(server.config("viewer-token"), fast());
  Client c(t);
  CHECK(error_of([&] {
          submit_job(
              c, [] { return ejob::testing::job_objects("bert"); }, options());
        }) ==
        "6: elasticjobs.elastic.pytorch.org is forbidden: User \"viewer\" cannot create resource "
        "\"elasticjobs\" in API group \"elastic.pytorch.org\" in the namespace \"elastic-job\"");
  CHECK(stored(server, "ElasticJob").empty());
}

TEST_CASE("submit: --dry-run=server creates nothing") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client c(t);
  install_crd(c, server);
  SubmitOptions o = options();
  o.dry_run = DryRun::All;
  SubmitResult r = submit_job(
      c, [] { return ejob::testing::job_objects("bert"); }, o);
  CHECK(r.objects.size() == 3);
  CHECK(stored(server, "ElasticJob").empty());
  CHECK(stored(server, "Service").empty());
}

TEST_CASE("submit: under 20% injected faults every submit converges or cleans up, 20 runs") {
  TestServer server;
  Transport t(server.config("admin-cert"), fast());
  Client setup(t);
  install_crd(setup, server);
  server.control(
      "faults",
      {{"rate", 0.2}, {"seed", 7}, {"kinds", {"429", "500", "503", "drop", "drop_after"}}});
  int ok = 0;
  int failed = 0;
  for (int run = 0; run < 20; ++run) {
    const std::string name = "job-" + std::to_string(run);
    Client c(t);
    try {
      submit_job(
          c, [&] { return ejob::testing::job_objects(name); }, options(NameChoice::Exact));
      ++ok;
    } catch (const Error&) {
      ++failed;
    }
  }
  server.control("faults", json::object());
  server.control("sync");
  // Each job is either complete (job, etcd Service and Pod, owned) or entirely absent.
  std::map<std::string, int> per_job;
  for (const json& o : server.objects()) {
    const json labels = o["metadata"].value("labels", json::object());
    if (labels.contains("app.kubernetes.io/instance") && o["kind"] != "ElasticJob")
      per_job[labels["app.kubernetes.io/instance"]]++;
    if (o["kind"] == "ElasticJob") per_job[o["metadata"]["name"]] += 100;
  }
  int complete = 0;
  for (const auto& [name, count] : per_job) {
    INFO(name);
    CHECK(count == 102);
    ++complete;
  }
  CHECK(complete == ok);
  CHECK(ok + failed == 20);
  CHECK(ok >= 15);
  WARN("fault runs: " << ok << " converged, " << failed << " cleaned up");
}

TEST_CASE("submit: failures under heavy faults leave nothing behind") {
  TestServer server;
  TransportOptions o = fast();
  o.max_attempts = 2;
  Transport t(server.config("admin-cert"), o);
  Client setup(t);
  install_crd(setup, server);
  server.control("faults", {{"rate", 0.5},
                            {"seed", 3},
                            {"kinds", {"500", "503", "drop", "drop_after"}},
                            {"methods", {"POST"}}});
  int failed = 0;
  for (int run = 0; run < 10; ++run) {
    Client c(t);
    SubmitOptions so = options(NameChoice::Exact);
    so.max_create_attempts = 1;
    try {
      submit_job(
          c, [&] { return ejob::testing::job_objects("job-" + std::to_string(run)); }, so);
    } catch (const Error&) {
      ++failed;
      server.control("faults", json::object());
      server.control("sync");
      CHECK(stored(server, "ElasticJob").size() == static_cast<size_t>(run - failed + 1));
      server.control("faults", {{"rate", 0.5},
                                {"seed", 3 + run},
                                {"kinds", {"500", "503", "drop", "drop_after"}},
                                {"methods", {"POST"}}});
    }
  }
  server.control("faults", json::object());
  server.control("sync");
  CHECK(failed > 0);
  CHECK(stored(server, "ElasticJob").size() == static_cast<size_t>(10 - failed));
  CHECK(stored(server, "Service").size() ==
        3 * static_cast<size_t>(10 - failed));  // etcd + 2 workers
}
