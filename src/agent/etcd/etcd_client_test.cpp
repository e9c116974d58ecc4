#include "src/agent/etcd/etcd_client.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "src/util/error.hpp"
#include "tests/agent/etcd_process.hpp"

using namespace ejob::agent;
using ejob::agent::testing::EtcdProcess;
using ejob::agent::testing::EtcdTls;

namespace {

EtcdClientOptions options_for(const EtcdProcess& etcd) {
  EtcdClientOptions o;
  o.host = "127.0.0.1";
  o.port = etcd.port();
  return o;
}

}  // namespace

TEST_CASE("etcd client: form encoding follows Python's urlencode") {
  CHECK(form_encode(R"({"status": "setup"})") == "%7B%22status%22%3A+%22setup%22%7D");
  CHECK(form_encode("a-b_c.d~e/f") == "a-b_c.d~e%2Ff");
}

TEST_CASE("etcd client: a body that is not etcd JSON is a transport error") {
  EtcdResult r;
  r.http_status = 502;
  try {
    parse_etcd_body("<html>bad gateway</html>", r);
    FAIL("no error");
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Transport);
    CHECK(e.message() ==
          "etcd answered HTTP 502 with a body that is not etcd v2 JSON: <html>bad gateway</html>");
  }
}

// Found by tests/fuzz/etcd_json_fuzz.cpp: nlohmann's type_error escaped (and ended the agent),
// and a float where an integer belongs was converted with undefined behaviour.
TEST_CASE("etcd client: JSON whose fields have other types than etcd's is a transport error") {
  const std::pair<std::string, std::string> cases[] = {
      {R"({"errorCode":"100"})", "errorCode is not an integer"},
      {R"({"action":"get","node":{"key":"/k","ttl":1e300}})", "ttl is not an integer"},
      {R"({"action":"get","node":{"key":7}})", "key is not a string"},
      {R"({"action":"get","node":{"key":"/d","nodes":[1]}})", "a node is not an object"},
      {R"({"action":"get","node":{"dir":"yes"}})", "dir is not a boolean"},
  };
  for (const auto& [body, why] : cases) {
    EtcdResult r;
    r.http_status = 200;
    try {
      parse_etcd_body(body, r);
      FAIL("no error for " + body);
    } catch (const ejob::Error& e) {
      CHECK(e.code() == ejob::ErrorCode::Transport);
      CHECK(e.message() ==
            "etcd answered HTTP 200 with a body that is not etcd v2 JSON (" + why + "): " + body);
    }
  }
}

TEST_CASE("etcd client: create, compare-and-swap and delete against a real etcd") {
  EtcdProcess etcd;
  EtcdClient c(options_for(etcd));
  CHECK(c.machines() ==
        std::vector<std::string>{"http://127.0.0.1:" + std::to_string(etcd.port())});

  EtcdWrite create;
  create.value = R"({"status": "setup"})";
  create.prev_exist = false;
  create.ttl = 5;
  EtcdResult r = c.write("/p/run_x/rdzv/active_version", create);
  REQUIRE(r.ok());
  CHECK(r.action == "create");
  CHECK(r.node.value == R"({"status": "setup"})");
  CHECK(r.node.ttl == 5);
  CHECK(r.etcd_index > 0);

  CHECK(c.write("/p/run_x/rdzv/active_version", create).is(etcd_error::node_exists));

  EtcdWrite cas;
  cas.value = R"({"status": "joinable", "version": "1", "participants": []})";
  cas.prev_value = R"({"status": "other"})";
  CHECK(c.write("/p/run_x/rdzv/active_version", cas).is(etcd_error::compare_failed));
  cas.prev_value = R"({"status": "setup"})";
  r = c.write("/p/run_x/rdzv/active_version", cas);
  REQUIRE(r.ok());
  CHECK(r.action == "compareAndSwap");
  CHECK_FALSE(r.node.ttl.has_value());

  CHECK(
      c.remove("/p/run_x/rdzv/active_version", std::string("nope")).is(etcd_error::compare_failed));
  CHECK(c.remove("/p/run_x/rdzv/active_version", *cas.value).ok());
  CHECK(c.get("/p/run_x/rdzv/active_version").is(etcd_error::key_not_found));
}

TEST_CASE("etcd client: directories, empty keys, listing and prevIndex") {
  EtcdProcess etcd;
  EtcdClient c(options_for(etcd));
  EtcdWrite dir;
  dir.dir = true;
  dir.prev_exist = false;
  REQUIRE(c.write("/p/v_1", dir).ok());
  CHECK(c.write("/p/v_1", dir).is(etcd_error::node_exists));
  EtcdWrite keep;
  keep.ttl = 10;
  REQUIRE(c.write("/p/v_1/rank_0", keep).ok());
  EtcdWrite refresh;
  refresh.ttl = 10;
  refresh.refresh = true;
  refresh.prev_exist = true;
  CHECK(c.write("/p/v_1/rank_0", refresh).ok());
  CHECK(c.write("/p/v_1/rank_9", refresh).is(etcd_error::key_not_found));
  EtcdResult list = c.get("/p/v_1");
  REQUIRE(list.ok());
  REQUIRE(list.node.nodes.size() == 1);
  CHECK(list.node.nodes[0].key == "/p/v_1/rank_0");
  CHECK(list.node.nodes[0].value.empty());

  EtcdWrite counter;
  counter.value = "0";
  counter.prev_exist = false;
  EtcdResult r = c.write("/p/version_counter", counter);
  REQUIRE(r.ok());
  EtcdWrite bump;
  bump.value = "1";
  bump.prev_exist = true;
  bump.prev_index = r.node.modified_index + 100;
  CHECK(c.write("/p/version_counter", bump).is(etcd_error::compare_failed));
  bump.prev_index = r.node.modified_index;
  CHECK(c.write("/p/version_counter", bump).ok());
}

TEST_CASE("etcd client: a watch sees the next event, times out, and can be cancelled") {
  EtcdProcess etcd;
  EtcdClient c(options_for(etcd));
  EtcdWrite v;
  v.value = "a";
  EtcdResult first = c.write("/w/key", v);
  REQUIRE(first.ok());

  EtcdResult timed_out = c.watch("/w/key", first.etcd_index + 1, false, 200);
  CHECK(timed_out.outcome == EtcdOutcome::TimedOut);

  std::thread writer([&] {
    EtcdClient other(options_for(etcd));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EtcdWrite w;
    w.value = "b c";
    other.write("/w/key", w);
  });
  EtcdResult seen = c.watch("/w", first.etcd_index + 1, true, 10000);
  writer.join();
  REQUIRE(seen.ok());
  CHECK(seen.node.key == "/w/key");
  CHECK(seen.node.value == "b c");

  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    c.cancel();
  });
  EtcdResult now = c.get("/w/key");
  EtcdResult cancelled = c.watch("/w/key", now.etcd_index + 1, false, 60000);
  canceller.join();
  CHECK(cancelled.outcome == EtcdOutcome::Cancelled);
  c.reset_cancel();
  CHECK(c.get("/w/key").ok());
}

TEST_CASE("etcd client: an unreachable etcd is a transport error naming the endpoint") {
  EtcdClientOptions o;
  o.host = "127.0.0.1";
  o.port = ejob::agent::testing::free_port();
  EtcdClient c(o);
  try {
    c.get("/x");
    FAIL("no error");
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Transport);
    CHECK(e.message() == "etcd at http://127.0.0.1:" + std::to_string(o.port) +
                             ": GET /v2/keys/x: cannot connect to 127.0.0.1 port " +
                             std::to_string(o.port) + ": Connection refused");
  }
}

TEST_CASE("etcd client: HTTPS with a CA and a client certificate") {
  EtcdProcess etcd(EtcdTls::ClientCerts);
  EtcdClientOptions o = options_for(etcd);
  o.protocol = "https";
  o.cacert = etcd.ca_file();
  o.cert = etcd.client_cert();
  o.key = etcd.client_key();
  EtcdClient c(o);
  EtcdWrite v;
  v.value = "secure";
  REQUIRE(c.write("/tls", v).ok());
  CHECK(c.get("/tls").node.value == "secure");

  EtcdClientOptions no_cert = o;
  no_cert.cert.clear();
  no_cert.key.clear();
  EtcdClient anonymous(no_cert);
  CHECK_THROWS_AS(anonymous.get("/tls"), ejob::Error);
}
