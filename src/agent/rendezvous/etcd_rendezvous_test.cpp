#include "src/agent/rendezvous/etcd_rendezvous.hpp"

#include <catch2/catch.hpp>
#include <functional>
#include <future>

#include "src/agent/etcd/etcd_store.hpp"
#include "src/util/error.hpp"
#include "tests/agent/etcd_process.hpp"

using namespace ejob::agent;
using ejob::agent::testing::EtcdProcess;

namespace {

EtcdClientOptions options_for(const EtcdProcess& etcd) {
  EtcdClientOptions o;
  o.host = "127.0.0.1";
  o.port = etcd.port();
  return o;
}

EtcdSettings settings(int timeout_s, int last_call_s) {
  EtcdSettings s;
  s.timeout_s = timeout_s;
  s.last_call_timeout_s = last_call_s;
  return s;
}

std::string state_of(EtcdClient& c, const std::string& run) {
  return c.get("/torchelastic/p2p/run_" + run + "/rdzv/active_version").node.value;
}

}  // namespace

TEST_CASE("etcd rendezvous: two agents form a fixed-size round") {
  EtcdProcess etcd;
  EtcdRendezvous a(options_for(etcd), settings(30, 30), "fixed", 2, 2);
  EtcdRendezvous b(options_for(etcd), settings(30, 30), "fixed", 2, 2);
  auto fa = std::async(std::launch::async, [&] { return a.next_rendezvous(); });
  RendezvousResult rb = b.next_rendezvous();
  RendezvousResult ra = fa.get();
  CHECK(ra.version == "1");
  CHECK(rb.version == "1");
  CHECK(ra.world_size == 2);
  CHECK(rb.world_size == 2);
  CHECK(ra.rank + rb.rank == 1);
  std::string k0 = "/torchelastic/p2p/run_fixed/rdzv/v_1/rank_0";
  std::string k1 = "/torchelastic/p2p/run_fixed/rdzv/v_1/rank_1";
  std::string state = state_of(a.client(), "fixed");
  bool order01 =
      state == R"({"status": "final", "version": "1", "participants": [0, 1], "keep_alives": [")" +
                   k0 + R"(", ")" + k1 + R"("], "num_workers_waiting": 0})";
  bool order10 =
      state == R"({"status": "final", "version": "1", "participants": [0, 1], "keep_alives": [")" +
                   k1 + R"(", ")" + k0 + R"("], "num_workers_waiting": 0})";
  CHECK((order01 || order10));
  CHECK(a.client().get(k0).node.ttl.has_value());
  CHECK(a.num_nodes_waiting() == 0);

  a.set_closed();
  CHECK(a.is_closed());
  CHECK(state_of(a.client(), "fixed").rfind(R"({"status": "closed", "version": "1", )", 0) == 0);
}

TEST_CASE("etcd rendezvous: elastic round freezes after the last call") {
  EtcdProcess etcd;
  EtcdRendezvous a(options_for(etcd), settings(30, 1), "elastic", 1, 3);
  EtcdRendezvous b(options_for(etcd), settings(30, 1), "elastic", 1, 3);
  auto fa = std::async(std::launch::async, [&] { return a.next_rendezvous(); });
  auto fb = std::async(std::launch::async, [&] { return b.next_rendezvous(); });
  RendezvousResult ra = fa.get();
  RendezvousResult rb = fb.get();
  CHECK(ra.world_size == 2);
  CHECK(rb.world_size == 2);
  CHECK(ra.version == rb.version);
}

TEST_CASE("etcd rendezvous: a late joiner is counted, and the round is replaced at once") {
  EtcdProcess etcd;
  EtcdRendezvous a(options_for(etcd), settings(30, 1), "late", 1, 2);
  RendezvousResult first = a.next_rendezvous();
  CHECK(first.world_size == 1);
  EtcdRendezvous b(options_for(etcd), settings(30, 1), "late", 1, 2);
  auto fb = std::async(std::launch::async, [&] { return b.next_rendezvous(); });
  while (a.num_nodes_waiting() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK(a.num_nodes_waiting() == 1);
  // a re-enters: with everyone waiting it releases its keep-alive instead of waiting 10 s.
  RendezvousResult ra = a.next_rendezvous();
  RendezvousResult rb = fb.get();
  CHECK(ra.version == "2");
  CHECK(rb.version == "2");
  CHECK(ra.world_size == 2);
  CHECK(rb.world_size == 2);
}

TEST_CASE("etcd rendezvous: a leaving agent deletes its keep-alive and destroys the round") {
  EtcdProcess etcd;
  EtcdRendezvous a(options_for(etcd), settings(30, 30), "leave", 1, 2);
  EtcdRendezvous b(options_for(etcd), settings(30, 30), "leave", 1, 2);
  auto fa = std::async(std::launch::async, [&] { return a.next_rendezvous(); });
  RendezvousResult rb = b.next_rendezvous();
  RendezvousResult ra = fa.get();
  REQUIRE(ra.world_size == 2);
  std::string mine = "/torchelastic/p2p/run_leave/rdzv/v_1/rank_" + std::to_string(ra.rank);
  std::string theirs = "/torchelastic/p2p/run_leave/rdzv/v_1/rank_" + std::to_string(rb.rank);
  a.leave("1");
  CHECK(a.client().get(mine).is(etcd_error::key_not_found));
  CHECK(a.client().get(theirs).ok());  // the other's key is the other's to drop
  CHECK(a.client()
            .get("/torchelastic/p2p/run_leave/rdzv/active_version")
            .is(etcd_error::key_not_found));
  // A newcomer creates round 2 at once (a short last call: min 1 < max 2).
  EtcdRendezvous c(options_for(etcd), settings(30, 1), "leave", 1, 2);
  RendezvousResult rc = c.next_rendezvous();
  CHECK(rc.version == "2");
  CHECK(rc.world_size == 1);
  a.leave("1");  // a round that is not the active one is left alone
  CHECK(state_of(a.client(), "leave").find(R"("version": "2")") != std::string::npos);
}

namespace {

/// Three agents (min 2, max 3, a last call of an hour) form round 1; one leaves it as after a
/// notice; the two others then try to form round 2.
void leave_one_of_three(bool fast_reform, int timeout_s,
                        const std::function<void(EtcdRendezvous&, EtcdRendezvous&)>& next) {
  EtcdProcess etcd;
  EtcdSettings s = settings(timeout_s, 3600);
  s.fast_reform = fast_reform;
  EtcdRendezvous a(options_for(etcd), s, "reform", 2, 3);
  EtcdRendezvous b(options_for(etcd), s, "reform", 2, 3);
  EtcdRendezvous c(options_for(etcd), s, "reform", 2, 3);
  auto fa = std::async(std::launch::async, [&] { return a.next_rendezvous(); });
  auto fb = std::async(std::launch::async, [&] { return b.next_rendezvous(); });
  RendezvousResult rc = c.next_rendezvous();
  REQUIRE(fa.get().world_size == 3);
  REQUIRE(fb.get().world_size == 3);
  c.leave("1");
  CHECK(c.client()
            .get("/torchelastic/p2p/run_reform/rdzv/v_1/left/rank_" + std::to_string(rc.rank))
            .ok());
  next(a, b);
}

}  // namespace

TEST_CASE(
    "etcd rendezvous: after a node left, the others freeze the next round without the "
    "last call") {
  leave_one_of_three(true, 60, [](EtcdRendezvous& a, EtcdRendezvous& b) {
    // Only fast re-form completes this round: its last call lasts an hour.
    auto fa = std::async(std::launch::async, [&] { return a.next_rendezvous(); });
    RendezvousResult rb = b.next_rendezvous();
    RendezvousResult ra = fa.get();
    CHECK(ra.version == "2");
    CHECK(rb.version == "2");
    CHECK(ra.world_size == 2);
    CHECK(ra.rank + rb.rank == 1);
  });
}

TEST_CASE("etcd rendezvous: with fast_reform off the next round waits for its last call") {
  leave_one_of_three(false, 3, [](EtcdRendezvous& a, EtcdRendezvous& b) {
    auto fa = std::async(std::launch::async, [&] { return a.next_rendezvous(); });
    CHECK_THROWS_AS(b.next_rendezvous(), ejob::Error);
    CHECK_THROWS_AS(fa.get(), ejob::Error);
  });
}

TEST_CASE("etcd rendezvous: a closed run refuses new agents") {
  EtcdProcess etcd;
  EtcdRendezvous a(options_for(etcd), settings(30, 0), "done", 1, 1);
  a.next_rendezvous();
  a.set_closed();
  EtcdRendezvous b(options_for(etcd), settings(30, 0), "done", 1, 1);
  try {
    b.next_rendezvous();
    FAIL("no error");
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Closed);
    CHECK(e.message() ==
          "rendezvous for run_id=done is closed (a run with this id already finished; use "
          "another --rdzv_id or delete /torchelastic/p2p/run_done)");
  }
}

TEST_CASE("etcd rendezvous: a malformed state is reported, retried and ends in a timeout") {
  EtcdProcess etcd;
  EtcdRendezvous a(options_for(etcd), settings(2, 0), "bad", 1, 1);
  EtcdWrite garbage;
  garbage.value = R"({"status": "final", "version": 7})";
  a.client().write("/torchelastic/p2p/run_bad/rdzv/active_version", garbage);
  try {
    a.next_rendezvous();
    FAIL("no error");
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Timeout);
    CHECK(
        e.message() ==
        R"(rendezvous for run_id=bad timed out after 2 s; last failure: malformed rendezvous state )"
        R"((version must be a string): {"status": "final", "version": 7})");
  }
}

TEST_CASE("etcd store: base64 keys, blocking get, add and synchronize") {
  EtcdProcess etcd;
  EtcdRendezvous a(options_for(etcd), settings(30, 0), "store", 1, 1);
  RendezvousResult r = a.next_rendezvous();
  std::string dir = a.setup_store(r.version);
  CHECK(dir == "/torchelastic/p2p/run_store/rdzv/v_1/kv");
  EtcdStore store(a.client(), dir, std::chrono::seconds(5));
  store.set("MASTER_ADDR", "localhost");
  CHECK(a.client().get(dir + "/TUFTVEVSX0FERFI=").node.value == "bG9jYWxob3N0");
  CHECK(store.get({"MASTER_ADDR"}) == std::vector<std::string>{"localhost"});
  CHECK(store.add("counter", 2) == 2);
  CHECK(store.add("counter", 3) == 5);

  EtcdClient other_client(options_for(etcd));
  EtcdStore other(other_client, dir, std::chrono::seconds(5));
  auto later = std::async(std::launch::async, [&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    other.set("MASTER_PORT", "43761");
  });
  CHECK(store.get({"MASTER_ADDR", "MASTER_PORT"}) ==
        std::vector<std::string>{"localhost", "43761"});
  later.get();

  auto peer = std::async(std::launch::async, [&] { return synchronize(other, "1", 1, 2, "p/x"); });
  CHECK(synchronize(store, "0", 0, 2, "p/x") == std::vector<std::string>{"0", "1"});
  CHECK(peer.get() == std::vector<std::string>{"0", "1"});

  EtcdStore impatient(a.client(), dir, std::chrono::milliseconds(300));
  CHECK_THROWS_WITH(impatient.get({"never"}), "timed out after 0 s waiting for store keys: never");
}
