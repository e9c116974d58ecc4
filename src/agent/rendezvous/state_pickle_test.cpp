#include "src/agent/rendezvous/state_pickle.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "src/agent/store/store_codec.hpp"
#include "src/util/error.hpp"
#include "tests/agent/python_peer.hpp"

using namespace ejob::agent;
using ejob::agent::testing::Torch;
using nlohmann::json;

namespace {

std::string from_hex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

NodeDesc node_from(const json& j) {
  return {j[0].get<std::string>(), j[1].get<std::int64_t>(), j[2].get<std::int64_t>()};
}

UtcTime time_from(const json& j) { return UtcTime(std::chrono::microseconds(j.get<int64_t>())); }

/// The state pickle_states.py described as plain data.
DynamicState state_from(const json& j) {
  DynamicState s;
  s.round = j["round"];
  s.complete = j["complete"];
  if (!j["deadline"].is_null()) s.deadline = time_from(j["deadline"]);
  s.closed = j["closed"];
  for (const auto& p : j["participants"]) s.participants.emplace_back(node_from(p[0]), p[1]);
  for (const auto& n : j["wait_list"]) s.wait_list.push_back(node_from(n));
  for (const auto& h : j["last_heartbeats"])
    s.last_heartbeats.emplace_back(node_from(h[0]), time_from(h[1]));
  if (j.contains("redundancy_list")) {
    s.dialect = RdzvDialect::Torch2;
    for (const auto& n : j["redundancy_list"]) s.redundancy_list.push_back(node_from(n));
  }
  return s;
}

/// Each case of tests/agent/pickle_states.py: name, state, Python's pickle.
std::vector<std::tuple<std::string, DynamicState, std::string>> python_cases(
    int protocol, Torch torch = Torch::V1_13) {
  std::istringstream lines(
      ejob::agent::testing::run_python("pickle_states.py", {std::to_string(protocol)}, torch));
  std::vector<std::tuple<std::string, DynamicState, std::string>> out;
  for (std::string line; std::getline(lines, line);) {
    json j = json::parse(line);
    out.emplace_back(j["name"], state_from(j["state"]), from_hex(j["pickle"]));
  }
  return out;
}

std::string decode_error(const std::string& bytes) {
  try {
    unpickle_state(bytes);
  } catch (const ejob::Error& e) {
    CHECK(e.code() == ejob::ErrorCode::Input);
    return e.message();
  }
  return "(no error)";
}

/// A complete two-node state torchrun 1.13 wrote (protocols/torch-c10d.md §4.4).
const char* const k_captured =
    "gASVYQEAAAAAAACMN3RvcmNoLmRpc3RyaWJ1dGVkLmVsYXN0aWMucmVuZGV6dm91cy5keW5hbWljX3JlbmRlenZvdXOU"
    "jBBfUmVuZGV6dm91c1N0YXRllJOUKYGUfZQojAVyb3VuZJRLAIwIY29tcGxldGWUiIwIZGVhZGxpbmWUTowGY2xvc2Vk"
    "lImMDHBhcnRpY2lwYW50c5R9lChoAIwJX05vZGVEZXNjlJOUKYGUfZQojARmcWRulIwJbG9jYWxob3N0lIwDcGlklE1W"
    "bIwIbG9jYWxfaWSUSwB1YksAaAwpgZR9lChoD4wJbG9jYWxob3N0lGgRTbBsaBJLAHViSwF1jAl3YWl0X2xpc3SUj5SM"
    "D2xhc3RfaGVhcnRiZWF0c5R9lChoDYwIZGF0ZXRpbWWUjAhkYXRldGltZZSTlEMKB+oLGQwXLAbtNZSFlFKUaBNoHEMK"
    "B+oLGQwXLA7WQ5SFlFKUdXViLg==";

}  // namespace

TEST_CASE("state pickle: our bytes equal Python's pickle.dumps for every case") {
  for (const auto& [name, state, bytes] : python_cases(4)) {
    INFO(name);
    CHECK(pickle_state(state) == bytes);
    CHECK(unpickle_state(bytes) == state);
  }
}

TEST_CASE("state pickle: Python 3.14's default protocol 5 decodes to the same states") {
  for (int protocol : {5}) {
    for (const auto& [name, state, bytes] : python_cases(protocol)) {
      INFO(name << " protocol " << protocol);
      CHECK(unpickle_state(bytes) == state);
    }
  }
}

TEST_CASE("state pickle: torch 2.6's states (addr, redundancy_list, aware times) both ways") {
  auto cases = python_cases(4, Torch::V2_6);
  REQUIRE(cases.size() > 10);
  for (const auto& [name, state, bytes] : cases) {
    INFO(name);
    CHECK(state.dialect == RdzvDialect::Torch2);
    CHECK(pickle_state(state) == bytes);
    CHECK(unpickle_state(bytes) == state);
  }
  for (const auto& [name, state, bytes] : python_cases(5, Torch::V2_6)) {
    INFO(name << " protocol 5");
    CHECK(unpickle_state(bytes) == state);
  }
}

TEST_CASE("state pickle: a state torchrun wrote decodes and re-encodes byte for byte") {
  std::string bytes = b64decode(k_captured);
  DynamicState s = unpickle_state(bytes);
  CHECK(s.complete);
  REQUIRE(s.participants.size() == 2);
  CHECK(s.participants[0] == std::pair{NodeDesc{"localhost", 27734, 0}, std::int64_t{0}});
  CHECK(s.participants[1] == std::pair{NodeDesc{"localhost", 27824, 0}, std::int64_t{1}});
  REQUIRE(s.last_heartbeats.size() == 2);
  // 2026-11-25 12:23:44.453941 UTC
  CHECK(s.last_heartbeats[0].second.time_since_epoch().count() == 1795609424453941);
  CHECK(pickle_state(s) == bytes);
}

TEST_CASE("state pickle: the decoder refuses what a state never holds, naming it") {
  std::string good = b64decode(k_captured);
  CHECK(decode_error(good.substr(0, 100)) ==
        "rendezvous state: the pickle ends inside the opcode at byte 96");
  std::string global_op = good;
  global_op[11] = 'c';  // GLOBAL (protocol 0's text form) where SHORT_BINUNICODE stood
  CHECK(decode_error(global_op) ==
        "rendezvous state: pickle opcode 0x63 at byte 11 is not one a torch rendezvous state uses");
  std::string other_class = good;
  other_class.replace(other_class.find("_RendezvousState"), 16, "_RendezvousStatf");
  CHECK(decode_error(other_class) ==
        "rendezvous state: the pickle names the global torch.distributed.elastic.rendezvous."
        "dynamic_rendezvous._RendezvousStatf, which a rendezvous state never holds");
  std::string torch2_node = good;
  torch2_node.replace(torch2_node.find("fqdn"), 4, "addr");
  CHECK(decode_error(torch2_node) ==  // 2.x's node field, 1.13's naive times
        "rendezvous state: a heartbeat is torch 1.13's, but the state's earlier fields are torch "
        "2.x's");
  std::string other_field = good;
  other_field.replace(other_field.find("fqdn"), 4, "fqdx");
  CHECK(decode_error(other_field) == "rendezvous state: _NodeDesc has an unknown field 'fqdx'");
  CHECK(decode_error(std::string("\x80\x04N.", 4)) ==
        "rendezvous state: expected a _RendezvousState object");
  CHECK(decode_error("") == "rendezvous state: the pickle ends without STOP");
}
