#pragma once
/// Test helpers for the Sprig function tests: a FuncMap with Sprig registered on a fixed clock
/// (2009-11-10 23:00:00 UTC) and a counting random source, and shorthand Value builders.
/// Expected outputs in the *_test.cpp files were produced by Go 1.19 with Sprig 3.2.3.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ejob/go/fmt.hpp"
#include "ejob/go/value.hpp"
#include "ejob/sprig/support.hpp"
#include "ejob/template/funcs.hpp"

namespace ejob::render::sprig_testing {

inline std::shared_ptr<const Env> test_env() {
  auto env = std::make_shared<Env>();
  env->now_unix_nanos = [] { return int64_t{1257894000} * 1000000000; };
  auto counter = std::make_shared<uint64_t>(0);
  env->random_u64 = [counter] { return (*counter)++ * 0x9E3779B97F4A7C15ULL; };
  return env;
}

inline const FuncMap& funcs() {
  static const FuncMap map = [] {
    FuncMap m;
    register_sprig(m, test_env());
    return m;
  }();
  return map;
}

/// Calls NAME with already-typed arguments (as the executor would pass them).
inline Value call(const std::string& name, std::vector<Value> args) {
  const Function* f = funcs().find(name);
  if (f == nullptr) throw std::runtime_error("no function " + name);
  return f->impl(FuncArgs{args, nullptr});
}

/// fmt's %v of the result (what `{{ NAME args }}` prints, nil as <nil>).
inline std::string show(const std::string& name, std::vector<Value> args) {
  return format_v(call(name, std::move(args)));
}

/// The FuncError message of the call, or "no error".
inline std::string error_of(const std::string& name, std::vector<Value> args) {
  try {
    call(name, std::move(args));
  } catch (const FuncError& e) {
    return e.message;
  }
  return "no error";
}

inline Value S(std::string s) { return Value::string(std::move(s)); }
inline Value I(int64_t i) { return Value::integer(i); }
inline Value I64(int64_t i) { return Value::int64(i); }
inline Value F(double f) { return Value::float64(f); }
inline Value B(bool b) { return Value::boolean(b); }
inline Value N() { return {}; }
inline Value L(List items) { return Value::list(std::move(items)); }
inline Value SL(std::vector<std::string> items) {
  List out;
  for (auto& s : items) out.push_back(S(std::move(s)));
  return Value::list(std::move(out), GoType::ListString);
}
inline Value M(std::vector<std::pair<std::string, Value>> kv) {
  Map m;
  for (auto& [k, v] : kv) m.insert_or_assign(k, v);
  return Value::map(std::move(m));
}

}  // namespace ejob::render::sprig_testing
