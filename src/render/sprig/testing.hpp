#pragma once
/// Test helpers for the Sprig function tests: a FuncMap with Sprig registered on a fixed clock
/// (2009-11-10 23:00:00 UTC) and a counting random source, and shorthand Value builders.
/// Expected outputs in the *_test.cpp files were produced by Go 1.19 with Sprig 3.2.3.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/go/value.hpp"
#include "src/render/sprig/support.hpp"
#include "src/render/text_template/funcs.hpp"

namespace ejob::render::sprig::testing {

inline std::shared_ptr<const text_template::Env> test_env() {
  auto env = std::make_shared<text_template::Env>();
  env->now_unix_nanos = [] { return int64_t{1257894000} * 1000000000; };
  auto counter = std::make_shared<uint64_t>(0);
  env->random_u64 = [counter] { return (*counter)++ * 0x9E3779B97F4A7C15ULL; };
  return env;
}

inline const text_template::FuncMap& funcs() {
  static const text_template::FuncMap map = [] {
    text_template::FuncMap m;
    register_sprig(m, test_env());
    return m;
  }();
  return map;
}

/// Calls NAME with already-typed arguments (as the executor would pass them).
inline go::Value call(const std::string& name, std::vector<go::Value> args) {
  const text_template::Function* f = funcs().find(name);
  if (f == nullptr) throw std::runtime_error("no function " + name);
  return f->impl(text_template::FuncArgs{args, nullptr});
}

/// fmt's %v of the result (what `{{ NAME args }}` prints, nil as <nil>).
inline std::string show(const std::string& name, std::vector<go::Value> args) {
  return format_v(call(name, std::move(args)));
}

/// The FuncError message of the call, or "no error".
inline std::string error_of(const std::string& name, std::vector<go::Value> args) {
  try {
    call(name, std::move(args));
  } catch (const go::FuncError& e) {
    return e.message;
  }
  return "no error";
}

inline go::Value S(std::string s) { return go::Value::string(std::move(s)); }
inline go::Value I(int64_t i) { return go::Value::integer(i); }
inline go::Value I64(int64_t i) { return go::Value::int64(i); }
inline go::Value F(double f) { return go::Value::float64(f); }
inline go::Value B(bool b) { return go::Value::boolean(b); }
inline go::Value N() { return {}; }
inline go::Value L(go::List items) { return go::Value::list(std::move(items)); }
inline go::Value SL(std::vector<std::string> items) {
  go::List out;
  for (auto& s : items) out.push_back(S(std::move(s)));
  return go::Value::list(std::move(out), go::GoType::ListString);
}
inline go::Value M(std::vector<std::pair<std::string, go::Value>> kv) {
  go::Map m;
  for (auto& [k, v] : kv) m.insert_or_assign(k, v);
  return go::Value::map(std::move(m));
}

}  // namespace ejob::render::sprig::testing
