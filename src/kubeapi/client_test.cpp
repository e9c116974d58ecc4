#include "src/kubeapi/client.hpp"

#include <atomic>
#include <catch2/catch.hpp>
#include <thread>

#include "src/kubeapi/api_error.hpp"
#include "tests/kube/objects.hpp"
#include "tests/kube/test_server.hpp"

using namespace ejob;
using namespace ejob::kubeapi;
using ejob::testing::TestServer;
using nlohmann::json;

namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ApiError& e) {
    return std::to_string(exit_code(e.code())) + " " + e.reason() + ": " + e.message();
  } catch (const Error& e) {
    return std::to_string(exit_code(e.code())) + ": " + e.message();
  }
  return "(no error)";
}

json pod(const std::string& name, const json& labels = json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "main"}, {"image", "busybox"}}}}}}};
}

/// A server and an admin client on it.
struct Fixture {
  TestServer server;
  Transport transport{server.config("admin-cert"), {}};
  Client client{transport};
  ResourceInfo pods = client.resource("v1", "Pod");
};

}  // namespace

TEST_CASE("client: discovery of a custom resource is asked once per client") {
  Fixture f;
  CHECK_FALSE(f.client.find_resource("elastic.pytorch.org/v1alpha1", "ElasticJob"));
  f.client.apply(ejob::testing::elasticjob_crd());
  f.server.control("sync");
  Client c(f.transport);
  f.server.control("requests/reset");
  auto res = c.find_resource("elastic.pytorch.org/v1alpha1", "ElasticJob");
  REQUIRE(res);
  CHECK(res->plural == "elasticjobs");
  CHECK(res->namespaced);
  c.resource("elastic.pytorch.org/v1alpha1", "ElasticJob");
  CHECK(f.server.requests().size() == 1);
  CHECK(error_of([&] { c.resource("elastic.pytorch.org/v1alpha1", "Nope"); }) ==
        "8: the server does not serve kind Nope in elastic.pytorch.org/v1alpha1");
}

TEST_CASE("client: Status bodies become errors with code, reason and causes") {
  Fixture f;
  CHECK(error_of([&] { f.client.get(f.pods, "default", "nope"); }) ==
        "8 NotFound: pods \"nope\" not found");
  f.client.create(pod("a"));
  CHECK(error_of([&] { f.client.create(pod("a")); }) ==
        "7 AlreadyExists: pods \"a\" already exists");
  try {
    f.client.create(pod("Bad_Name"));
    FAIL("no error");
  } catch (const ApiError& e) {
    CHECK(e.http_status() == 422);
    CHECK(e.code() == ErrorCode::Api);
    REQUIRE(e.causes().size() == 1);
    CHECK(e.causes()[0].field == "metadata.name");
  }
  CHECK_FALSE(f.client.try_get(f.pods, "default", "nope"));
}

// Found by tests/fuzz/kube_api_fuzz.cpp: nlohmann's type_error escaped from a Status body
// whose fields have other types (the error it carries was lost to a crash).
TEST_CASE("client: a Status body with fields of other types still becomes its error") {
  const ApiError e = error_from_status(409, R"({"kind":"Status","message":7,"reason":"Conflict",
                                 "details":{"name":["x"],"causes":[{"field":1}]}})");
  CHECK(e.code() == ErrorCode::Conflict);
  CHECK(e.message() == "the server answered HTTP 409 Conflict");
  CHECK(e.reason() == "Conflict");
  CHECK(error_from_status(500, R"({"kind":1})").message() ==
        "the server answered HTTP 500: {\"kind\":1}");
}

TEST_CASE("client: list follows continue tokens and applies selectors") {
  Fixture f;
  for (int i = 0; i < 5; ++i)
    f.client.create(pod("p" + std::to_string(i), {{"app", i % 2 ? "odd" : "even"}}));
  f.server.control("requests/reset");
  ListResult all = f.client.list(f.pods, "default", {"", "", 2});
  CHECK(all.items.size() == 5);
  CHECK(f.server.requests().size() == 3);
  CHECK(f.client.list(f.pods, "default", {"app=odd"}).items.size() == 2);
  CHECK(f.client.list(f.pods, "default", {"app in (odd,even)", "metadata.name!=p0"}).items.size() ==
        4);
  CHECK(f.client.list(f.pods, "", {}).items.size() == 5);
}

TEST_CASE("client: server-side apply reports conflicts with the manager and a hint") {
  Fixture f;
  f.client.apply(pod("web"), Force::No, DryRun::None, "other-tool");
  json mine = pod("web");
  mine["spec"]["containers"][0]["image"] = "busybox:2";
  CHECK(error_of([&] { f.client.apply(mine); }) ==
        "7: applying Pod/web conflicts: field manager \"other-tool\" owns .spec.containers (rerun "
        "with "
        "--force-conflicts to take these fields over, or remove them from your manifest)");
  json applied = f.client.apply(mine, Force::Yes);
  CHECK(applied["spec"]["containers"][0]["image"] == "busybox:2");
  // Applying the same configuration again changes nothing.
  CHECK(f.client.apply(mine)["metadata"]["resourceVersion"] ==
        applied["metadata"]["resourceVersion"]);
}

TEST_CASE("client: delete honours propagation policy through owner references") {
  Fixture f;
  json owner = f.client.create(pod("owner"));
  json dep = pod("dep");
  dep["metadata"]["ownerReferences"] = {{{"apiVersion", "v1"},
                                         {"kind", "Pod"},
                                         {"name", "owner"},
                                         {"uid", owner["metadata"]["uid"]}}};
  f.client.create(dep);
  // Orphan: the owner stays Terminating until the garbage collector has taken its
  // dependents' references off, then goes.
  const auto terminating = f.client.remove(f.pods, "default", "owner", Propagation::Orphan);
  REQUIRE(terminating);
  CHECK((*terminating)["metadata"]["finalizers"] == json::array({"orphan"}));
  f.server.control("sync");
  json kept = f.client.get(f.pods, "default", "dep");
  CHECK_FALSE(kept["metadata"].contains("ownerReferences"));
  CHECK_FALSE(f.client.remove(f.pods, "default", "owner"));
  owner = f.client.create(pod("owner"));
  dep["metadata"]["name"] = "dep2";
  dep["metadata"]["ownerReferences"][0]["uid"] = owner["metadata"]["uid"];
  f.client.create(dep);
  f.client.remove(f.pods, "default", "owner", Propagation::Background);
  f.server.control("sync");  // the collector deletes dependents after the owner has gone
  CHECK_FALSE(f.client.try_get(f.pods, "default", "dep2"));
  CHECK(error_of([&] {
          f.client.remove(f.pods, "default", "dep", Propagation::Background, DryRun::None,
                          "wrong-uid");
        })
            .rfind("7 Conflict: Operation cannot be fulfilled on pods \"dep\": Precondition failed",
                   0) == 0);
}

TEST_CASE("client: watch delivers changes and re-lists after 410 Gone") {
  Fixture f;
  f.client.create(pod("w1"));
  std::vector<std::string> seen;
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Transport t(f.server.config("admin-cert"), {});
    Client c(t);
    c.create(pod("w2"));
    c.remove(c.resource("v1", "Pod"), "default", "w1");
  });
  f.client.watch(f.pods, "default", {}, [&](const WatchEvent& e) {
    seen.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
    return seen.size() < 3;
  });
  writer.join();
  CHECK(seen == std::vector<std::string>{"ADDED w1", "ADDED w2", "DELETED w1"});
  // A version the server forgot: 410, then the client lists again and goes on.
  const std::string old = f.client.list(f.pods, "default").resource_version;
  f.client.create(pod("w3"));
  f.server.control("compact");
  seen.clear();
  WatchOptions o;
  o.resource_version = old;
  f.client.watch(f.pods, "default", o, [&](const WatchEvent& e) {
    seen.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
    return seen.size() < 2;
  });
  CHECK(seen == std::vector<std::string>{"ADDED w2", "ADDED w3"});
}

TEST_CASE("client: watch survives a truncated stream") {
  Fixture f;
  f.client.create(pod("t1"));
  f.server.control(
      "faults", {{"kinds", {"truncate"}}, {"times", 1}, {"path", "/pods$"}, {"methods", {"GET"}}});
  std::vector<std::string> seen;
  WatchOptions o;
  o.resource_version = "0";  // the server sends the current objects, then truncates
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    Transport t(f.server.config("admin-cert"), {});
    Client(t).create(pod("t2"));
  });
  f.client.watch(f.pods, "default", o, [&](const WatchEvent& e) {
    seen.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
    return e.object["metadata"]["name"] != "t2";
  });
  writer.join();
  CHECK(seen.front() == "ADDED t1");
  CHECK(seen.back() == "ADDED t2");
}

TEST_CASE("client: a watch that a hung server holds open and silent is renewed") {
  // The server answers the watch and then says nothing, past the timeoutSeconds asked for,
  // with the connection open (a hung apiserver): the client gives up on that stream a little
  // after the timeout and watches again from the same version.
  Fixture f;
  const std::string from = f.client.list(f.pods, "default").resource_version;
  f.server.control("faults",
                   {{"kinds", {"stall"}}, {"times", 1}, {"path", "/pods$"}, {"methods", {"GET"}}});
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    Transport t(f.server.config("admin-cert"), {});
    Client(t).create(pod("s1"));
  });
  WatchOptions o;
  o.resource_version = from;
  o.timeout_seconds = 1;
  std::vector<std::string> seen;
  f.client.watch(f.pods, "default", o, [&](const WatchEvent& e) {
    seen.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
    return false;
  });
  writer.join();
  CHECK(seen == std::vector<std::string>{"ADDED s1"});
  CHECK(f.server.requests().size() >= 2);  // the stalled watch and the one that delivered
}

TEST_CASE("client: a watch and a followed log end when their cancel flag turns true") {
  Fixture f;
  f.client.create(pod("quiet"));
  std::atomic<bool> cancel{false};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  std::vector<std::string> seen;
  WatchOptions w;
  w.cancel = &cancel;
  f.client.watch(f.pods, "default", w, [&](const WatchEvent& e) {
    seen.push_back(e.type + " " + e.object["metadata"]["name"].get<std::string>());
    return true;  // only the flag ends this watch: nothing else happens on the server
  });
  stopper.join();
  CHECK(seen == std::vector<std::string>{"ADDED quiet"});
  // A followed log of a container that writes nothing more ends the same way, quietly.
  cancel = false;
  std::thread stopper2([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    cancel = true;
  });
  LogOptions o;
  o.follow = true;
  o.cancel = &cancel;
  std::string out;
  f.client.logs("default", "quiet", o, [&](std::string_view d) {
    out += d;
    return true;
  });
  stopper2.join();
  CHECK(out.empty());
  // sinceSeconds reaches the server.
  f.server.control(
      "logs",
      {{"namespace", "default"},
       {"pod", "quiet"},
       {"container", "main"},
       {"lines",
        {{{"time", "2020-01-01T00:00:00.000000000Z"}, {"text", "old"}}, {{"text", "new"}}}}});
  LogOptions recent;
  recent.since_seconds = 3600;
  out.clear();
  f.client.logs("default", "quiet", recent, [&](std::string_view d) {
    out += d;
    return true;
  });
  CHECK(out == "new\n");
}

TEST_CASE("client: pod logs with timestamps, tail, sinceTime, follow and previous") {
  Fixture f;
  f.client.create(pod("logger"));
  f.server.control("logs", {{"namespace", "default"},
                            {"pod", "logger"},
                            {"container", "main"},
                            {"lines",
                             {{{"time", "2026-01-01T00:00:01.000000000Z"}, {"text", "one"}},
                              {{"time", "2026-01-01T00:00:02.000000000Z"}, {"text", "two"}},
                              {{"time", "2026-01-01T00:00:03.000000000Z"}, {"text", "three"}}}}});
  auto read = [&](LogOptions o) {
    std::string out;
    f.client.logs("default", "logger", o, [&](std::string_view d) {
      out += d;
      return true;
    });
    return out;
  };
  CHECK(read({}) == "one\ntwo\nthree\n");
  CHECK(read({"main", false, true, false, "", 1}) == "2026-01-01T00:00:03.000000000Z three\n");
  CHECK(read({"", false, false, false, "2026-01-01T00:00:02Z", -1}) == "two\nthree\n");
  CHECK(error_of([&] {
          read({"", false, false, true, "", -1});
        }) == "5 BadRequest: previous terminated container \"main\" in pod \"logger\" not found");
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    f.server.control("logs", {{"namespace", "default"},
                              {"pod", "logger"},
                              {"container", "main"},
                              {"lines", {{{"text", "four"}}}},
                              {"done", true}});
  });
  CHECK(read({"", true, false, false, "", 0}) == "four\n");
  writer.join();
}

TEST_CASE("client: events of an object, eviction and its disruption-budget refusal") {
  Fixture f;
  json p = f.client.create(pod("victim"));
  json ev = {{"apiVersion", "v1"},
             {"kind", "Event"},
             {"metadata", {{"name", "victim.1"}, {"namespace", "default"}}},
             {"involvedObject",
              {{"kind", "Pod"},
               {"name", "victim"},
               {"namespace", "default"},
               {"uid", p["metadata"]["uid"]}}},
             {"reason", "Scheduled"},
             {"message", "assigned"},
             {"lastTimestamp", "2026-01-01T00:00:00Z"}};
  f.client.create(ev);
  ev["metadata"]["name"] = "other.1";
  ev["involvedObject"]["name"] = "other";
  f.client.create(ev);
  auto events = f.client.events_for(p);
  REQUIRE(events.size() == 1);
  CHECK(events[0]["reason"] == "Scheduled");
  f.server.control("config", {{"evict_blocked", {"victim"}}});
  CHECK(error_of([&] { f.client.evict("default", "victim"); }) ==
        "5 TooManyRequests: Cannot evict pod as it would violate the pod's disruption budget.");
  f.server.control("config", {{"evict_blocked", json::array()}});
  f.client.evict("default", "victim");
  CHECK_FALSE(f.client.try_get(f.pods, "default", "victim"));
}

TEST_CASE("client: the ElasticJob controller makes worker pods and headless services") {
  Fixture f;
  f.client.apply(ejob::testing::elasticjob_crd());
  f.server.control("sync");
  json job = f.client.create(ejob::testing::job_objects("bert", 2)[2]);
  f.server.control("sync");
  json w1 = f.client.get(f.pods, "elastic-job", "bert-worker-1");
  CHECK(w1["metadata"]["labels"] == json{{"group-name", "elastic.pytorch.org"},
                                         {"job-name", "bert"},
                                         {"replica-type", "worker"},
                                         {"replica-index", "1"}});
  CHECK(w1["spec"]["containers"][0]["args"] == json{"--rdzv_backend=etcd",
                                                    "--rdzv_endpoint=bert-etcd-service:2379",
                                                    "--rdzv_id=bert", "--nnodes=1:2", "train.py"});
  json svc = f.client.get(f.client.resource("v1", "Service"), "elastic-job", "bert-worker-1");
  CHECK(svc["spec"]["clusterIP"] == "None");
  json status = f.client.get(f.client.resource_of(job), "elastic-job", "bert")["status"];
  CHECK(status["replicaStatuses"]["Worker"]["active"] == 2);
  CHECK(status["conditions"][1]["type"] == "Running");
}

TEST_CASE("client: GET through the pod proxy") {
  Fixture f;
  f.client.create(pod("metrics"));
  CHECK(json::parse(f.client.proxy_get("default", "metrics", 9090, "/healthz")) ==
        json{{"pod", "metrics"}, {"port", "9090"}, {"path", "/healthz"}});
  CHECK(error_of([&] { f.client.proxy_get("default", "nope", 1, "x"); }) ==
        "8 NotFound: pods \"nope\" not found");
}
