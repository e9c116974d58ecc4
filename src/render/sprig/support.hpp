#pragma once
/// Shared pieces of the Sprig functions (sprig_*.cpp): Sprig's `strval` and `empty`, the
/// spf13/cast conversions Sprig's math uses, reflect-style access to any slice kind, Go's
/// reflect.Kind names for error messages, and small builders for Function entries.
/// Internal to src/render/sprig: nothing outside the Sprig files includes it.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/render/go/unicode.hpp"
#include "src/render/go/utf8.hpp"
#include "src/render/go/value.hpp"
#include "src/render/text_template/funcs.hpp"
#include "src/util/base64.hpp"  // base64_encode/decode, as Go's StdEncoding

namespace ejob::render::sprig {

// Sprig's functions see runes as Go's unicode/utf8 and unicode packages do.
using go::append_rune;
using go::decode_last_rune;
using go::decode_rune;
using go::from_runes;
using go::k_rune_error;
using go::map_runes;
using go::Rune;
using go::to_runes;
using namespace go::unicode;

// The values and the function map every theme works with: Go's values and text/template's
// function signatures.
using go::FuncError;
using go::GoKind;
using go::GoType;
using go::List;
using go::Map;
using go::Object;
using go::Value;
using text_template::Env;
using text_template::FuncArgs;
using text_template::FuncImpl;
using text_template::FuncMap;
using text_template::Function;
using text_template::Param;

/// Whether a Go function returns (T, error): the executor then accepts a FuncError.
enum class Ret : uint8_t { Value, ValueError };

/// A fixed-arity Go function with these parameter types.
Function fn(std::vector<Param> params, FuncImpl impl, Ret ret = Ret::Value);

/// A variadic Go function: the last entry of `params` is the element type of `...T`.
Function fn_variadic(std::vector<Param> params, FuncImpl impl, Ret ret = Ret::Value);

/// Sprig's strval: strings and []byte as is, Stringers/errors through their method, else `%v`.
std::string strval(const Value& v);

/// Sprig's empty(): nil, zero numbers, false, and zero-length strings/slices/maps are empty;
/// structs never; other objects (pointers) only when nil.
bool is_empty(const Value& v);

/// reflect.Kind.String() of the value's dynamic type (`int64`, `slice`, `map`, `ptr`, `invalid`).
std::string kind_name(const Value& v);

/// spf13/cast ToInt64 (errors give 0): ints, uints, floats truncated toward zero (Go's
/// conversion), strings parsed with base prefixes after trimming a zero decimal part ("1.00"),
/// bools as 0/1, nil as 0.
int64_t to_int64(const Value& v);

/// spf13/cast ToFloat64 (errors give 0): numbers, strings via strconv.ParseFloat, bools, nil.
double to_float64(const Value& v);

/// Go's int64(f) conversion on amd64: truncation, and INT64_MIN for NaN or out of range.
int64_t go_float_to_int64(double f);

/// strconv.ParseInt(s, base, 64); base 0 honours Go's prefixes and `_` separators.
std::optional<int64_t> parse_go_int(std::string_view s, int base);

/// strconv.ParseFloat(s, 64): decimal and hex floats, `_` separators, inf/infinity/nan.
/// Out-of-range values fail (Go returns ±Inf plus an error; every caller here drops both).
std::optional<double> parse_go_float(std::string_view s);

/// The elements of any slice or array kind (`[]interface {}`, `[]string`, `[]int`, `[]uint8`,
/// or an object whose underlying value is a slice) as interface values; nullopt otherwise.
std::optional<List> slice_elements(const Value& v);

/// Sprig's strslice: slice elements (nil skipped) or the value itself through strval; nil
/// gives no strings.
std::vector<std::string> to_string_slice(const Value& v);

/// reflect.DeepEqual for two interface values.
bool deep_equal(const Value& a, const Value& b);

/// The error Go reports when reflect.TypeOf(nil).Kind() is called on a nil interface.
[[noreturn]] void throw_nil_deref();

/// A []string value.
Value string_list(std::vector<std::string> items);

/// The map of a `map[string]interface {}` parameter (Values converted to the plain map type).
Value as_plain_map(const Value& v);

// Registration of each theme (src/render/sprig/<theme>.cpp); register_sprig calls them all.
void register_sprig_strings(FuncMap& map, const std::shared_ptr<const Env>& env);
void register_sprig_text(FuncMap& map, const std::shared_ptr<const Env>& env);
void register_sprig_lists(FuncMap& map);
void register_sprig_dicts(FuncMap& map);
void register_sprig_math(FuncMap& map, const std::shared_ptr<const Env>& env);
void register_sprig_defaults(FuncMap& map);
void register_sprig_reflect(FuncMap& map);
void register_sprig_encoding(FuncMap& map);
void register_sprig_crypto(FuncMap& map, const std::shared_ptr<const Env>& env);
void register_sprig_certs(FuncMap& map, const std::shared_ptr<const Env>& env);
void register_sprig_regex(FuncMap& map);
void register_sprig_semver(FuncMap& map);
void register_sprig_dates(FuncMap& map, const std::shared_ptr<const Env>& env);
void register_sprig_paths(FuncMap& map, const std::shared_ptr<const Env>& env);
void register_sprig_json(FuncMap& map);

}  // namespace ejob::render::sprig

namespace ejob::render::sprig {

/// Registers every Sprig v3 function of Helm's map (sprig.TxtFuncMap minus env/expandenv),
/// including those Helm later overrides.
void register_sprig(FuncMap& map, std::shared_ptr<const Env> env);

}  // namespace ejob::render::sprig
