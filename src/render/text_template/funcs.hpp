#pragma once
/// The template function map: every function has a Go signature so that text/template's
/// argument checks (exec.go evalArg/validateType) can be reproduced exactly — a float64 passed
/// to Sprig's `trunc(int, string)` is `wrong type for value; expected int; got float64`, while
/// the untyped constant `2.0` converts. Implementations receive arguments already checked and
/// converted to the declared parameter types.

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "src/render/go/error.hpp"
#include "src/render/go/value.hpp"

namespace ejob::render::text_template {

/// A Go parameter type as text/template checks it. `Any` is `interface{}` (accepts anything,
/// including nil). The others accept only values of exactly that Go type (or, for untyped
/// constants in the template, a representable constant). Assignability follows Go:
/// `chartutil.Values` is assignable to `map[string]interface {}` (identical underlying types).
enum class Param : uint8_t {
  Any,          ///< interface{}
  String,       ///< string
  Int,          ///< int
  Int64,        ///< int64
  Float64,      ///< float64
  Bool,         ///< bool
  ListAny,      ///< []interface{}
  ListString,   ///< []string
  MapAny,       ///< map[string]interface{}
  Bytes,        ///< []byte
  Time,         ///< time.Time (a struct: no nil, no constant converts to it)
  Certificate,  ///< Sprig's certificate struct (genSignedCert's ca), also a struct
};

/// Go's name for a parameter type in error messages (`int`, `map[string]interface {}`).
std::string_view param_type_name(Param p);

/// Thrown by `fail`/`required`-style functions whose message Helm reports as
/// `execution error at (FILE:LINE:COL): MESSAGE` (no `error calling` prefix).
struct ExecError {
  std::string message;
};

class Engine;        // the renderer (include/tpl need it)
struct CallContext;  // per-call state given by the executor

/// What an implementation sees: converted arguments and the executor's context.
struct FuncArgs {
  std::span<const go::Value> args;
  CallContext* ctx = nullptr;  ///< null for pure functions called outside a template
  [[nodiscard]] size_t size() const { return args.size(); }
  [[nodiscard]] const go::Value& operator[](size_t i) const { return args[i]; }
};

using FuncImpl = std::function<go::Value(const FuncArgs&)>;

/// One function: Go signature plus implementation.
struct Function {
  std::vector<Param> params;   ///< fixed parameters
  bool variadic = false;       ///< last entry of params is the element type of `...T`
  bool returns_error = false;  ///< Go signature ends in `error` (FuncError is allowed)
  FuncImpl impl;
};

/// Clock and randomness for Sprig's time and random functions, injectable for tests.
struct Env {
  std::function<int64_t()> now_unix_nanos;  ///< wall clock, ns since the epoch (UTC)
  std::function<uint64_t()> random_u64;     ///< uniformly random bits
  std::string local_zone = "UTC";           ///< zone of `now`/`date` when none is given
  /// The real clock and a non-deterministic random source.
  static Env system();
};

/// Where a FuncMap finds the names it does not hold itself: another map, or the functions every
/// engine starts from, registered group by group on first use (helm/base_funcs.hpp).
class FuncSource {
 public:
  FuncSource() = default;
  FuncSource(const FuncSource&) = default;
  FuncSource(FuncSource&&) = default;
  FuncSource& operator=(const FuncSource&) = default;
  FuncSource& operator=(FuncSource&&) = default;
  virtual ~FuncSource() = default;
  /// The function called `name`, or null when there is none.
  [[nodiscard]] virtual const Function* find(std::string_view name) const = 0;
  /// Whether `name` is visible (without building its function).
  [[nodiscard]] virtual bool contains(std::string_view name) const = 0;
  /// Number of visible functions.
  [[nodiscard]] virtual size_t size() const = 0;
};

/// Name → function. Later registrations replace earlier ones (Helm overrides Sprig's).
/// A map may sit on an immutable shared base (the engine shares one base of builtins, Sprig
/// and serialization functions between renders); its own entries and removals shadow the base.
class FuncMap final : public FuncSource {
 public:
  FuncMap() = default;
  explicit FuncMap(std::shared_ptr<const FuncSource> base) : m_base(std::move(base)) {}

  void add(std::string name, Function f) { m_funcs[std::move(name)] = std::move(f); }
  void remove(std::string_view name) {
    if (m_base != nullptr && m_base->contains(name)) {
      m_funcs[std::string(name)] = Function{};  // tombstone: hides the base entry
    } else if (auto it = m_funcs.find(name); it != m_funcs.end()) {
      m_funcs.erase(it);
    }
  }
  [[nodiscard]] const Function* find(std::string_view name) const override {
    auto it = m_funcs.find(name);
    if (it != m_funcs.end()) return it->second.impl ? &it->second : nullptr;
    return m_base != nullptr ? m_base->find(name) : nullptr;
  }
  [[nodiscard]] bool contains(std::string_view name) const override {
    auto it = m_funcs.find(name);
    if (it != m_funcs.end()) return static_cast<bool>(it->second.impl);
    return m_base != nullptr && m_base->contains(name);
  }
  [[nodiscard]] size_t size() const override {
    size_t n = m_base != nullptr ? m_base->size() : 0;
    for (const auto& [name, f] : m_funcs) {
      bool in_base = m_base != nullptr && m_base->contains(name);
      if (f.impl && !in_base) ++n;
      if (!f.impl && in_base) --n;
    }
    return n;
  }
  /// The names of this map's own functions (not its base's, no tombstones), in no order.
  [[nodiscard]] std::vector<std::string_view> own_names() const {
    std::vector<std::string_view> names;
    for (const auto& [name, f] : m_funcs) {
      if (f.impl) names.emplace_back(name);
    }
    return names;
  }

 private:
  /// Lets find() take a string_view without building a std::string.
  struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Function, NameHash, std::equal_to<>> m_funcs;
  std::shared_ptr<const FuncSource> m_base;
};

/// Registers Go text/template's builtins (and, or, not, len, index, slice, eq, ne, lt, le, gt,
/// ge, print, printf, println, html, js, urlquery, call). `and`/`or` short-circuit in the
/// executor; these entries exist so that they can be looked up and called like the others.
void register_builtins(FuncMap& map);

}  // namespace ejob::render::text_template
