#include "src/render/helm/metaschema_fast.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string_view>
#include <unordered_set>

#include "src/render/helm/schema_format.hpp"
#include "src/render/helm/schema_set.hpp"

namespace ejob::render::helm {

using go::List;
using go::Map;
using go::Value;

namespace {

/// What a keyword's value must be, as the metaschemas spell it.
enum class Rule : uint8_t {
  Any,                  ///< `default`, `const`: anything
  String,               ///< {"type": "string"}
  Boolean,              ///< {"type": "boolean"}
  Number,               ///< {"type": "number"}
  PositiveNumber,       ///< multipleOf: a number, exclusiveMinimum 0
  NonNegativeInteger,   ///< {"type": "integer", "minimum": 0}
  Type,                 ///< simpleTypes, or a non-empty array of them without repeats
  Array,                ///< {"type": "array"}: examples, 2020-12's enum
  UniqueArray,          ///< draft 7's enum: non-empty, no two items equal
  StringArray,          ///< required: strings, no two equal
  StringArrayMap,       ///< dependentRequired: an object of string arrays
  Uri,                  ///< a string of format uri
  UriReference,         ///< a string of format uri-reference
  Id2020,               ///< 2020-12's $id: a uri-reference, no fragment but an empty one
  Anchor,               ///< ^[A-Za-z_][-A-Za-z0-9._]*$ (2020-12)
  Anchor2019,           ///< ^[A-Za-z][-A-Za-z0-9.:_]*$
  Regex,                ///< a string of format regex
  Schema,               ///< an object or a boolean, itself checked
  SchemaArray,          ///< a non-empty array of schemas
  SchemaOrSchemaArray,  ///< draft 7's items
  SchemaMap,            ///< an object of schemas (properties, $defs…)
  PatternSchemaMap,     ///< patternProperties: regex names
  SchemaOrNamesMap,     ///< dependencies: each a schema or a string array
  Unsure,               ///< what the walk leaves to the validator ($vocabulary)
};

struct KeywordRule {
  std::string_view name;
  Rule rule;
};

using R = Rule;

// The rules of the metaschemas (src/render/helm/metaschemas), each list sorted by name: those
// drafts 7, 2019-09 and 2020-12 share,
constexpr KeywordRule k_every_draft[] = {
    {"$comment", R::String},
    {"$ref", R::UriReference},
    {"$schema", R::Uri},
    {"additionalProperties", R::Schema},
    {"allOf", R::SchemaArray},
    {"anyOf", R::SchemaArray},
    {"const", R::Any},
    {"contains", R::Schema},
    {"contentEncoding", R::String},
    {"contentMediaType", R::String},
    {"default", R::Any},
    {"definitions", R::SchemaMap},
    {"dependencies", R::SchemaOrNamesMap},
    {"description", R::String},
    {"else", R::Schema},
    {"examples", R::Array},
    {"exclusiveMaximum", R::Number},
    {"exclusiveMinimum", R::Number},
    {"format", R::String},
    {"if", R::Schema},
    {"maxItems", R::NonNegativeInteger},
    {"maxLength", R::NonNegativeInteger},
    {"maxProperties", R::NonNegativeInteger},
    {"maximum", R::Number},
    {"minItems", R::NonNegativeInteger},
    {"minLength", R::NonNegativeInteger},
    {"minProperties", R::NonNegativeInteger},
    {"minimum", R::Number},
    {"multipleOf", R::PositiveNumber},
    {"not", R::Schema},
    {"oneOf", R::SchemaArray},
    {"pattern", R::Regex},
    {"patternProperties", R::PatternSchemaMap},
    {"properties", R::SchemaMap},
    {"propertyNames", R::Schema},
    {"readOnly", R::Boolean},
    {"required", R::StringArray},
    {"then", R::Schema},
    {"title", R::String},
    {"type", R::Type},
    {"uniqueItems", R::Boolean},
    {"writeOnly", R::Boolean},
};

// those 2019-09 and 2020-12 share (their vocabularies),
constexpr KeywordRule k_since_2019[] = {
    {"$defs", R::SchemaMap},
    {"$id", R::Id2020},
    {"$recursiveRef", R::UriReference},
    {"$vocabulary", R::Unsure},
    {"contentSchema", R::Schema},
    {"dependentRequired", R::StringArrayMap},
    {"dependentSchemas", R::SchemaMap},
    {"deprecated", R::Boolean},
    {"enum", R::Array},
    {"maxContains", R::NonNegativeInteger},
    {"minContains", R::NonNegativeInteger},
    {"unevaluatedItems", R::Schema},
    {"unevaluatedProperties", R::Schema},
};

// and each draft's own.
constexpr KeywordRule k_draft7_own[] = {
    {"$id", R::UriReference},
    {"additionalItems", R::Schema},
    {"enum", R::UniqueArray},
    {"items", R::SchemaOrSchemaArray},
};

constexpr KeywordRule k_draft2019_own[] = {
    {"$anchor", R::Anchor2019},
    {"$recursiveAnchor", R::Boolean},
    {"additionalItems", R::Schema},
    {"items", R::SchemaOrSchemaArray},
};

constexpr KeywordRule k_draft2020_own[] = {
    {"$anchor", R::Anchor},
    {"$dynamicAnchor", R::Anchor},
    {"$dynamicRef", R::UriReference},
    {"$recursiveAnchor", R::Anchor},
    {"items", R::Schema},
    {"prefixItems", R::SchemaArray},
};

constexpr bool sorted(std::span<const KeywordRule> rules) {
  for (size_t i = 1; i < rules.size(); ++i)
    if (!(rules[i - 1].name < rules[i].name)) return false;
  return true;
}
static_assert(sorted(k_every_draft) && sorted(k_since_2019) && sorted(k_draft7_own) &&
              sorted(k_draft2019_own) && sorted(k_draft2020_own));

constexpr int k_max_depth = 2000;  // deeper documents are left to the validator

std::atomic<bool> g_fast_path{true};

bool ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

bool is_number(const Value& v) { return v.is_int() || v.is_uint() || v.is_float(); }

/// A JSON integer as v6 sees one: any Go integer, or a float64 without a fraction.
bool is_integer(const Value& v) {
  return v.is_int() || v.is_uint() || (v.is_float() && is_whole_number(v.as_float()));
}

/// Values that are certainly all different: ASCII strings (a non-ASCII one could be invalid
/// UTF-8 that encodes as another does), booleans, null and integers that a double holds
/// exactly, each compared within its kind; anything else is left to the validator.
bool distinct_scalars(const List& items) {
  std::unordered_set<std::string_view> strings;
  std::unordered_set<int64_t> integers;
  int trues = 0;
  int falses = 0;
  int nulls = 0;
  for (const Value& x : items) {
    if (x.is_string()) {
      if (!ascii(x.as_string()) || !strings.insert(x.as_string()).second) return false;
    } else if (x.is_bool()) {
      if (++(x.as_bool() ? trues : falses) > 1) return false;
    } else if (x.is_nil()) {
      if (++nulls > 1) return false;
    } else if (is_integer(x) && std::fabs(number_of(x)) < 9007199254740992.0) {
      if (!integers.insert(static_cast<int64_t>(number_of(x))).second) return false;
    } else {
      return false;
    }
  }
  return true;
}

/// 2020-12's $id pattern `^[^#]*#?$`: no `#` but a last one.
bool no_fragment(std::string_view s) {
  const size_t hash = s.find('#');
  return hash == std::string_view::npos || hash + 1 == s.size();
}

/// 2020-12's anchor `^[A-Za-z_][-A-Za-z0-9._]*$`, or 2019-09's `^[A-Za-z][-A-Za-z0-9.:_]*$`.
bool anchor_name(std::string_view s, bool draft2019) {
  auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  if (s.empty() || !(letter(s[0]) || (s[0] == '_' && !draft2019))) return false;
  return std::all_of(s.begin() + 1, s.end(), [&](char c) {
    return letter(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
           (c == ':' && draft2019);
  });
}

class Walk {
 public:
  /// A draft's rules: its own first, then those it shares with others.
  explicit Walk(std::initializer_list<std::span<const KeywordRule>> rules) {
    for (std::span<const KeywordRule> r : rules) m_rules[m_lists++] = r;
  }

  /// A schema: an object whose keywords keep their rules, or a boolean.
  bool schema(const Value& v, int depth) {
    if (v.is_bool()) return true;
    if (!v.is_map() || depth > k_max_depth) return false;
    for (const auto& [key, value] : v.as_map()) {
      const KeywordRule* r = rule_of(key);
      if (r != nullptr && !keeps(r->rule, value, depth + 1)) return false;
    }
    return true;
  }

 private:
  const KeywordRule* rule_of(std::string_view key) const {
    for (size_t i = 0; i < m_lists; ++i) {
      auto it =
          std::lower_bound(m_rules[i].begin(), m_rules[i].end(), key,
                           [](const KeywordRule& r, std::string_view k) { return r.name < k; });
      if (it != m_rules[i].end() && it->name == key) return &*it;
    }
    return nullptr;
  }

  bool keeps(Rule rule, const Value& v, int depth) {
    switch (rule) {
      case R::Any: return true;
      case R::String: return v.is_string();
      case R::Boolean: return v.is_bool();
      case R::Number: return is_number(v);
      case R::PositiveNumber: return is_number(v) && number_of(v) > 0;
      case R::NonNegativeInteger: return is_integer(v) && number_of(v) >= 0;
      case R::Type: return type(v);
      case R::Array: return v.is_list();
      case R::UniqueArray:
        return v.is_list() && !v.as_list().empty() && distinct_scalars(v.as_list());
      case R::StringArray: return string_array(v);
      case R::StringArrayMap: return each_value(v, [&](const Value& x) { return string_array(x); });
      case R::Uri: return v.is_string() && !format_error("uri", v.as_string());
      case R::UriReference: return v.is_string() && !format_error("uri-reference", v.as_string());
      case R::Id2020:
        return keeps(R::UriReference, v, depth) && ascii(v.as_string()) &&
               no_fragment(v.as_string());
      case R::Anchor: return v.is_string() && anchor_name(v.as_string(), false);
      case R::Anchor2019: return v.is_string() && anchor_name(v.as_string(), true);
      case R::Regex: return v.is_string() && !format_error("regex", v.as_string());
      default: return applies(rule, v, depth);
    }
  }

  /// The rules whose values hold schemas.
  bool applies(Rule rule, const Value& v, int depth) {
    auto sub = [&](const Value& x) { return schema(x, depth); };
    switch (rule) {
      case R::Schema: return schema(v, depth);
      case R::SchemaArray: return schema_array(v, depth);
      case R::SchemaOrSchemaArray: return v.is_list() ? schema_array(v, depth) : schema(v, depth);
      case R::SchemaMap: return each_value(v, sub);
      case R::PatternSchemaMap:
        return each_value(v, sub) && std::all_of(v.as_map().begin(), v.as_map().end(), [](auto& e) {
                 return !format_error("regex", e.first);
               });
      case R::SchemaOrNamesMap:
        return each_value(v,
                          [&](const Value& x) { return x.is_list() ? string_array(x) : sub(x); });
      default: return false;  // Unsure
    }
  }

  static bool type(const Value& v) {
    if (v.is_string()) return json_type_bit(v.as_string()) != 0;
    if (!v.is_list() || v.as_list().empty()) return false;
    unsigned seen = 0;
    for (const Value& x : v.as_list()) {
      const unsigned bit = x.is_string() ? json_type_bit(x.as_string()) : 0;
      if (bit == 0 || (seen & bit) != 0) return false;
      seen |= bit;
    }
    return true;
  }

  static bool string_array(const Value& v) {
    if (!v.is_list()) return false;
    const List& items = v.as_list();
    return std::all_of(items.begin(), items.end(), [](const Value& x) { return x.is_string(); }) &&
           distinct_scalars(items);
  }

  bool schema_array(const Value& v, int depth) {
    if (!v.is_list() || v.as_list().empty()) return false;
    return std::all_of(v.as_list().begin(), v.as_list().end(),
                       [&](const Value& x) { return schema(x, depth); });
  }

  template <typename Check>
  static bool each_value(const Value& v, Check&& check) {
    if (!v.is_map()) return false;
    return std::all_of(v.as_map().begin(), v.as_map().end(),
                       [&](const auto& e) { return check(e.second); });
  }

  std::array<std::span<const KeywordRule>, 3> m_rules;
  size_t m_lists = 0;
};

}  // namespace

double number_of(const Value& v) {
  if (v.is_int()) return static_cast<double>(v.as_int());
  if (v.is_uint()) return static_cast<double>(v.as_uint());
  return v.as_float();
}

bool is_whole_number(double f) {
  if (!std::isfinite(f)) return false;
  if (std::fabs(f) >= 9007199254740992.0) return true;
  return f == static_cast<double>(static_cast<int64_t>(f));
}

bool surely_valid_against_metaschema(const Value& schema, int draft) {
  if (draft == 7) return Walk({k_draft7_own, k_every_draft}).schema(schema, 0);
  if (draft == 2019) return Walk({k_draft2019_own, k_since_2019, k_every_draft}).schema(schema, 0);
  if (draft == 2020) return Walk({k_draft2020_own, k_since_2019, k_every_draft}).schema(schema, 0);
  return false;
}

void set_metaschema_fast_path(bool on) { g_fast_path.store(on); }
bool metaschema_fast_path() { return g_fast_path.load(std::memory_order_relaxed); }

}  // namespace ejob::render::helm
