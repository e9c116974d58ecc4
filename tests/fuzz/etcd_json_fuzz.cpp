// etcd's JSON answers as the agent reads them: the v2 keys API's bodies (parse_etcd_body), and
// the values other agents store in etcd: the etcd rendezvous state (parse_rdzv_state) and a
// worker group's role info (parse_role_info). The input goes to all three.
#include <string>

#include "src/agent/etcd/etcd_client.hpp"
#include "src/agent/rendezvous/rank_assignment.hpp"
#include "src/agent/rendezvous/rdzv_state.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(ejob::fuzz::as_text(data, size));
  ejob::fuzz::refusals_expected([&] {
    ejob::agent::EtcdResult result;
    result.http_status = 200;
    ejob::agent::parse_etcd_body(text, result);
  });
  ejob::fuzz::refusals_expected([&] {
    const auto state = ejob::agent::parse_rdzv_state(text);
    (void)ejob::agent::to_json(state);
  });
  ejob::fuzz::refusals_expected([&] {
    const auto info = ejob::agent::parse_role_info(text);
    (void)ejob::agent::to_json(info);
  });
  return 0;
}
