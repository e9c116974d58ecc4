#include "src/agent/rendezvous/rank_assignment.hpp"

#include <catch2/catch.hpp>

#include "src/util/error.hpp"

using namespace ejob::agent;

TEST_CASE("rank assignment: role info JSON as torch writes it") {
  CHECK(to_json(RoleInfo{"default", 0, 1}) ==
        R"({"role": "default", "rank": 0, "local_world_size": 1})");
  RoleInfo r = parse_role_info(R"({"role": "trainer", "rank": 3, "local_world_size": 8})");
  CHECK(r.role == "trainer");
  CHECK(r.rank == 3);
  CHECK(r.local_world_size == 8);
  CHECK_THROWS_WITH(parse_role_info("{}"), "malformed role info from a peer agent: {}");
  // Found by the etcd_json fuzzer: a float out of int's range was converted (undefined).
  CHECK_THROWS_WITH(
      parse_role_info(R"({"role": "t", "rank": 0, "local_world_size": 2.3e59})"),
      "malformed role info from a peer agent (local_world_size must be an integer "
      "from 0 to 1048576): {\"role\": \"t\", \"rank\": 0, \"local_world_size\": 2.3e59}");
  CHECK_THROWS(parse_role_info(R"({"role": "t", "rank": -1, "local_world_size": 1})"));
  CHECK_THROWS(
      parse_role_info(R"({"role": "t", "rank": 18446744073709551615, "local_world_size": 1})"));
  CHECK(parse_role_info(R"({"role": "t", "rank": 1048576, "local_world_size": 0})").rank ==
        1048576);
}

TEST_CASE("rank assignment: global ranks follow group ranks, heterogeneous sizes") {
  std::vector<RoleInfo> infos = {{"default", 0, 2}, {"default", 1, 3}, {"default", 2, 1}};
  WorkerRanks r = assign_ranks(infos, 1);
  CHECK(r.world_size == 6);
  CHECK(r.global_ranks == std::vector<int>{2, 3, 4});
  CHECK(r.role_world_size == 6);
  CHECK(r.role_ranks == std::vector<int>{2, 3, 4});
}

TEST_CASE("rank assignment: role ranks count only agents of the same role") {
  std::vector<RoleInfo> infos = {{"trainer", 0, 2}, {"eval", 1, 1}, {"trainer", 2, 2}};
  WorkerRanks t = assign_ranks(infos, 2);
  CHECK(t.global_ranks == std::vector<int>{3, 4});
  CHECK(t.role_world_size == 4);
  CHECK(t.role_ranks == std::vector<int>{2, 3});
  WorkerRanks e = assign_ranks(infos, 1);
  CHECK(e.global_ranks == std::vector<int>{2});
  CHECK(e.role_world_size == 1);
  CHECK(e.role_ranks == std::vector<int>{0});
}

TEST_CASE("rank assignment: TORCH_ELASTIC_WORKER_IDENTICAL's fast path, as torch 2.x") {
  // _assign_worker_ranks: base = group_rank * local_world_size, role = global.
  WorkerRanks r = identical_ranks(2, 3, 4);
  CHECK(r.world_size == 12);
  CHECK(r.global_ranks == std::vector<int>{8, 9, 10, 11});
  CHECK(r.role_world_size == 12);
  CHECK(r.role_ranks == std::vector<int>{8, 9, 10, 11});
  // The same ranks as the exchange gives for identical agents.
  std::vector<RoleInfo> infos = {{"default", 0, 4}, {"default", 1, 4}, {"default", 2, 4}};
  CHECK(assign_ranks(infos, 2).global_ranks == r.global_ranks);
}
