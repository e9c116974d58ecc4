#pragma once
/// The values a template sees, modelled on Go's dynamic types as text/template observes them
/// through reflection. Every value carries its Go type (GoType) because Go semantics depend on
/// it: `eq 1 1.0` is an error (int vs float64), `typeOf` prints `[]interface {}`, values-file
/// numbers are float64 while `--set` integers are int64, and a function with an `int` parameter
/// refuses a float64.
///
/// Reference semantics follow Go: maps are shared (Sprig's `set` mutates through every
/// reference), lists are shared but never mutated in place by any function we implement, and
/// strings are immutable: one of k_shared_text_bytes or more is shared by the copies of its
/// value, as a Go string's bytes are (a chart file or a toYaml result goes through variables,
/// arguments and pipelines without being copied).
/// A default-constructed Value is Go's nil interface ("invalid" in reflect terms): a missing key.

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ejob::render::go {

class Value;
class Object;

/// Go's dynamic types that templates meet. Named types that matter to Helm get their own entry.
enum class GoType : uint8_t {
  Nil,         ///< nil interface{} / missing key (reflect: invalid)
  Bool,        ///< bool
  Int,         ///< int   (template literals, len, Sprig's int/atoi/until items)
  Int64,       ///< int64 (--set integers, Sprig math results)
  Int32,       ///< int32
  Uint8,       ///< uint8 (byte)
  Uint64,      ///< uint64
  Float64,     ///< float64 (values-file numbers, JSON numbers)
  String,      ///< string
  ListAny,     ///< []interface {}
  ListString,  ///< []string
  ListInt,     ///< []int
  ListList,    ///< [][]interface {} (Sprig's chunk; its items are ListAny values)
  Bytes,       ///< []uint8 (Files.GetBytes)
  MapAny,      ///< map[string]interface {}
  MapString,   ///< map[string]string
  Values,      ///< chartutil.Values (named map[string]interface {}; has methods YAML, Table, …)
  Object,      ///< anything else: Chart, Capabilities, Files, semver… (see Object)
};

/// Go's reflect.Kind, as `kindOf`/`kindIs` and comparisons use it.
enum class GoKind : uint8_t {
  Invalid,
  Bool,
  Int,
  Uint,
  Float,
  String,
  Slice,
  Map,
  Struct,
  Ptr,
  Func
};

using List = std::vector<Value>;
using Map =
    std::map<std::string, Value, std::less<>>;  ///< sorted: Go prints and ranges maps sorted
using ListPtr = std::shared_ptr<List>;
using MapPtr = std::shared_ptr<Map>;
using ObjectPtr = std::shared_ptr<const Object>;
using SharedText = std::shared_ptr<const std::string>;

/// Strings from this size on are shared between copies of a Value rather than copied.
inline constexpr size_t k_shared_text_bytes = 1024;

/// A Go value. Cheap to copy (short strings are copied; long ones and containers shared).
class Value {
 public:
  Value() = default;  ///< nil
  static Value boolean(bool b) { return Value(GoType::Bool, b); }
  static Value integer(int64_t i, GoType t = GoType::Int) { return Value(t, i); }
  static Value int64(int64_t i) { return Value(GoType::Int64, i); }
  static Value uint64(uint64_t u) { return Value(GoType::Uint64, u); }
  /// An unsigned integer of type `t` (Uint8 is stored as int64_t, Uint64 as uint64_t).
  static Value unsigned_integer(uint64_t u, GoType t) {
    return t == GoType::Uint8 ? Value(t, static_cast<int64_t>(u)) : Value(t, u);
  }
  static Value float64(double f) { return Value(GoType::Float64, f); }
  static Value string(std::string s) { return text(GoType::String, std::move(s)); }
  static Value bytes(std::string raw) { return text(GoType::Bytes, std::move(raw)); }
  /// A String or Bytes value of text kept elsewhere (a chart file's), never copied.
  static Value shared_text(SharedText s, GoType t = GoType::String) {
    return Value(t, std::move(s));
  }
  static Value list(List items = {}, GoType t = GoType::ListAny) {
    return Value(t, std::make_shared<List>(std::move(items)));
  }
  static Value list(ListPtr items, GoType t = GoType::ListAny) {
    return Value(t, std::move(items));
  }
  /// A nil slice of type `t` (Go's `var s []string`): empty for len/range/print/truthiness, but
  /// eq/ne tell it from a non-nil slice. All nil slices share one empty list; do not mutate it.
  static Value nil_list(GoType t = GoType::ListAny);
  static Value map(Map m = {}, GoType t = GoType::MapAny) {
    return Value(t, std::make_shared<Map>(std::move(m)));
  }
  static Value map(MapPtr m, GoType t = GoType::MapAny) { return Value(t, std::move(m)); }
  static Value object(ObjectPtr o) { return Value(GoType::Object, std::move(o)); }

  [[nodiscard]] GoType type() const { return m_type; }
  [[nodiscard]] GoKind kind() const;
  [[nodiscard]] bool is_nil() const { return m_type == GoType::Nil; }
  [[nodiscard]] bool is_bool() const { return m_type == GoType::Bool; }
  [[nodiscard]] bool is_int() const;   ///< any signed integer type
  [[nodiscard]] bool is_uint() const;  ///< any unsigned integer type (Bytes excluded)
  [[nodiscard]] bool is_float() const { return m_type == GoType::Float64; }
  [[nodiscard]] bool is_string() const { return m_type == GoType::String; }
  [[nodiscard]] bool is_list() const;      ///< ListAny, ListString, ListInt, ListList (not Bytes)
  [[nodiscard]] bool is_map() const;       ///< MapAny, MapString, Values
  [[nodiscard]] bool is_nil_list() const;  ///< a list made by nil_list()
  [[nodiscard]] bool is_object() const { return m_type == GoType::Object; }

  // Accessors: precondition is the matching is_*() (checked with assert in debug builds).
  [[nodiscard]] bool as_bool() const { return std::get<bool>(m_data); }
  [[nodiscard]] int64_t as_int() const { return std::get<int64_t>(m_data); }
  /// Uint64 stores a uint64_t, Uint8 an int64_t (go_fmt's convention); both read here.
  [[nodiscard]] uint64_t as_uint() const {
    const auto* u = std::get_if<uint64_t>(&m_data);
    return u != nullptr ? *u : static_cast<uint64_t>(std::get<int64_t>(m_data));
  }
  [[nodiscard]] double as_float() const { return std::get<double>(m_data); }
  /// The string of a String or the raw bytes of Bytes.
  [[nodiscard]] const std::string& as_string() const {
    if (const auto* s = std::get_if<std::string>(&m_data)) return *s;
    return *std::get<SharedText>(m_data);
  }
  [[nodiscard]] const List& as_list() const { return *std::get<ListPtr>(m_data); }
  [[nodiscard]] List& mutable_list() const { return *std::get<ListPtr>(m_data); }
  [[nodiscard]] const ListPtr& list_ptr() const { return std::get<ListPtr>(m_data); }
  [[nodiscard]] const Map& as_map() const { return *std::get<MapPtr>(m_data); }
  [[nodiscard]] Map& mutable_map() const {
    return *std::get<MapPtr>(m_data);
  }  ///< Go maps are shared
  [[nodiscard]] const MapPtr& map_ptr() const { return std::get<MapPtr>(m_data); }
  [[nodiscard]] const Object& as_object() const { return *std::get<ObjectPtr>(m_data); }
  [[nodiscard]] const ObjectPtr& object_ptr() const { return std::get<ObjectPtr>(m_data); }

  /// Go's type name as `%T`/`typeOf` print it: `float64`, `[]interface {}`, `chartutil.Values`.
  [[nodiscard]] std::string type_name() const;

  /// text/template truthiness (`if`, `with`, `and`, `or`, `not`): false for nil, false, zero
  /// numbers, and empty strings/lists/maps; objects decide for themselves (structs are true).
  [[nodiscard]] bool truthy() const;

  /// Go `==` for two values of the same GoType (deep for nothing: maps/lists are never equal
  /// here; callers check comparability first).
  friend bool operator==(const Value& a, const Value& b);

  /// Deep copy of maps and lists (Sprig's deepCopy); scalars and objects are shared.
  [[nodiscard]] Value deep_copy() const;

 private:
  using Data = std::variant<std::monostate, bool, int64_t, uint64_t, double, std::string, ListPtr,
                            MapPtr, ObjectPtr, SharedText>;
  template <class T>
  Value(GoType t, T&& v) : m_type(t), m_data(std::forward<T>(v)) {}
  static Value text(GoType t, std::string s) {
    if (s.size() >= k_shared_text_bytes)
      return Value(t, std::make_shared<const std::string>(std::move(s)));
    return Value(t, std::move(s));
  }

  GoType m_type = GoType::Nil;
  Data m_data;
};

/// A Go value with fields and/or methods that is not a plain map or list: `.Chart`,
/// `.Capabilities`, `.Capabilities.KubeVersion`, `.Files`, a semver version, …
/// Field access `.X` tries a method first, then a field (Go's rule, exec.go evalField).
class Object {
 public:
  virtual ~Object() = default;
  /// `%T` name, e.g. `*chartutil.Capabilities`.
  [[nodiscard]] virtual std::string type_name() const = 0;
  [[nodiscard]] virtual GoKind kind() const { return GoKind::Struct; }
  /// A method of that name exists (then `call` is used, even with zero arguments).
  [[nodiscard]] virtual bool has_method(std::string_view name) const = 0;
  /// Calls a method; throws render::FuncError (see template/funcs.hpp) on a Go error return.
  [[nodiscard]] virtual Value call(std::string_view name, std::span<const Value> args) const = 0;
  /// A field by name; false if there is no such field (exec then reports Go's error).
  virtual bool field(std::string_view name, Value& out) const = 0;
  /// `%v` rendering, e.g. `{1.36.0 1 36}` for a struct.
  [[nodiscard]] virtual std::string format_v() const = 0;
  [[nodiscard]] virtual bool truthy() const { return true; }
  /// The value to use when the object is ranged over or passed where a list/map is expected
  /// (e.g. APIVersions is a []string, Files a map); nil if none.
  [[nodiscard]] virtual Value underlying() const { return {}; }
};

}  // namespace ejob::render::go
