#include "src/render/helm/base_funcs.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "src/render/sprig/testing.hpp"

namespace ejob::render::helm {

using go::Value;
using sprig::register_sprig;
using text_template::Env;
using text_template::FuncArgs;
using text_template::FuncMap;
using text_template::Function;

namespace {

/// The whole map built eagerly, as one registration after another: builtins, Sprig, Helm's
/// serialization, then env and expandenv removed (Helm's funcMap).
FuncMap eager_map(const std::shared_ptr<const Env>& env) {
  FuncMap m;
  register_builtins(m);
  register_sprig(m, env);
  register_helm_serialization(m);
  m.remove("env");
  m.remove("expandenv");
  return m;
}

}  // namespace

TEST_CASE("base funcs: the name table is what the registrations leave standing") {
  auto env = sprig::testing::test_env();
  std::map<std::string, FuncGroup, std::less<>> owner;  // the last registration of each name
  for (size_t g = 0; g < k_func_groups; ++g) {
    FuncMap m;
    register_func_group(static_cast<FuncGroup>(g), m, env);
    for (std::string_view name : m.own_names()) owner[std::string(name)] = FuncGroup(g);
  }
  owner.erase("env");
  owner.erase("expandenv");
  std::map<std::string, FuncGroup, std::less<>> table;
  for (const BaseFuncName& e : base_func_names()) table[std::string(e.name)] = e.group;
  CHECK(table == owner);

  FuncMap eager = eager_map(env);
  std::vector<std::string_view> eager_names = eager.own_names();
  std::sort(eager_names.begin(), eager_names.end());
  std::vector<std::string_view> table_names;
  for (const auto& [name, group] : table) table_names.emplace_back(name);
  CHECK(eager_names == table_names);
}

TEST_CASE("base funcs: each function has the signature of the eager map's") {
  auto env = sprig::testing::test_env();
  FuncMap eager = eager_map(env);
  auto base = make_base_funcs(env);
  CHECK(base->size() == eager.size());
  for (std::string_view name : eager.own_names()) {
    INFO(name);
    const Function* lazy = base->find(name);
    REQUIRE(lazy != nullptr);
    const Function* want = eager.find(name);
    CHECK(lazy->params == want->params);
    CHECK(lazy->variadic == want->variadic);
    CHECK(lazy->returns_error == want->returns_error);
  }
  CHECK(base->find("env") == nullptr);
  CHECK_FALSE(base->contains("expandenv"));
  CHECK(base->find("nosuchfunction") == nullptr);
}

TEST_CASE("base funcs: a group is registered once, on its first lookup, from any thread") {
  auto base = make_base_funcs(sprig::testing::test_env());
  const Function* seen[4] = {};
  std::vector<std::thread> threads;
  for (auto& s : seen) threads.emplace_back([&base, &s] { s = base->find("trunc"); });
  for (auto& t : threads) t.join();
  REQUIRE(seen[0] != nullptr);
  for (const Function* s : seen) CHECK(s == seen[0]);
  CHECK(base->find("trunc") == seen[0]);
  // Helm's fromJson, not Sprig's: the serialization group's registration stands (Helm's
  // reports a bad text in an "Error" entry; Sprig's gives nil).
  std::vector<Value> bad{Value::string("{")};
  Value out = base->find("fromJson")->impl(FuncArgs{bad});
  REQUIRE(out.is_map());
  CHECK(out.as_map().count("Error") == 1);
}

TEST_CASE("base funcs: a map on the base shadows it and removes from it") {
  FuncMap m(make_base_funcs(sprig::testing::test_env()));
  size_t n = m.size();
  m.remove("trunc");
  CHECK(m.find("trunc") == nullptr);
  CHECK_FALSE(m.contains("trunc"));
  CHECK(m.size() == n - 1);
  m.add("mine", Function{{}, false, false, [](const FuncArgs&) { return Value::string("x"); }});
  CHECK(m.size() == n);
  CHECK(m.find("mine")->impl(FuncArgs{}).as_string() == "x");
}

}  // namespace ejob::render::helm
