#include "ejob/helm/schema.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "ejob/go/fmt.hpp"
#include "ejob/go/json.hpp"
#include "ejob/helm/schema_format.hpp"
#include "ejob/util/error.hpp"

namespace ejob::render {
namespace {

/// Whether a finite double is a whole number (every double from 2^53 on is).
bool is_whole(double f) {
  if (!std::isfinite(f)) return false;
  if (std::fabs(f) >= 9007199254740992.0) return true;
  return f == static_cast<double>(static_cast<int64_t>(f));
}

__extension__ typedef __int128 Wide;  // GCC/Clang 128-bit integer

/// Whether x / m is a whole number, computed on the shortest decimal forms as gojsonschema's
/// big.Rat does (so 0.3 is a multiple of 0.1); doubles only when the decimals do not fit.
bool multiple_of(double x, double m) {
  auto decimal = [](double f, Wide& digits, int& exp10) {
    std::string t = json::format_float(f);  // shortest round-trip digits
    size_t e = t.find_first_of("eE");
    exp10 = e == std::string::npos ? 0 : std::stoi(t.substr(e + 1));
    std::string mant = t.substr(0, e);
    bool neg = !mant.empty() && mant[0] == '-';
    if (neg) mant.erase(0, 1);
    if (size_t dot = mant.find('.'); dot != std::string::npos) {
      exp10 -= static_cast<int>(mant.size() - dot - 1);
      mant.erase(dot, 1);
    }
    if (mant.size() > 30) return false;
    digits = 0;
    for (char c : mant) digits = digits * 10 + (c - '0');
    if (neg) digits = -digits;
    return true;
  };
  Wide a = 0;
  Wide b = 0;
  int ea = 0;
  int eb = 0;
  if (!std::isfinite(x) || !std::isfinite(m) || !decimal(x, a, ea) || !decimal(m, b, eb) ||
      b == 0 || std::abs(ea - eb) > 30)
    return is_whole(x / m);
  // x/m = a/b * 10^(ea-eb): scale the side with the larger exponent
  for (int i = ea; i > eb; --i) {
    if (a > (Wide{1} << 100) / 10 || a < -((Wide{1} << 100) / 10)) return is_whole(x / m);
    a *= 10;
  }
  for (int i = eb; i > ea; --i) {
    if (b > (Wide{1} << 100) / 10 || b < -((Wide{1} << 100) / 10)) return is_whole(x / m);
    b *= 10;
  }
  return a % b == 0;
}

/// The JSON view of a values node, as Helm hands it to gojsonschema (YAML → JSON): numbers
/// are integers when integral, maps and lists as they are.
enum class JsonType { Null, Boolean, Integer, Number, String, Array, Object, Other };

JsonType json_type(const Value& v) {
  switch (v.kind()) {
    case GoKind::Invalid: return JsonType::Null;
    case GoKind::Bool: return JsonType::Boolean;
    case GoKind::Int:
    case GoKind::Uint: return JsonType::Integer;
    case GoKind::Float: {
      return is_whole(v.as_float()) ? JsonType::Integer : JsonType::Number;
    }
    case GoKind::String: return JsonType::String;
    case GoKind::Slice: return JsonType::Array;
    case GoKind::Map: return JsonType::Object;
    default: return JsonType::Other;
  }
}

double number_of(const Value& v) {
  if (v.is_int()) return static_cast<double>(v.as_int());
  if (v.is_uint()) return static_cast<double>(v.as_uint());
  return v.as_float();
}

/// Numbers as float64, recursively: what marshalWithoutNumber compares (Go's JSON text of
/// the value decoded without UseNumber).
Value normalized(const Value& v) {
  switch (json_type(v)) {
    case JsonType::Integer:
    case JsonType::Number: return Value::float64(number_of(v));
    case JsonType::Array: {
      List out;
      for (const Value& item : v.as_list()) out.push_back(normalized(item));
      return Value::list(std::move(out));
    }
    case JsonType::Object: {
      Map out;
      for (const auto& [k, item] : v.as_map()) out.emplace(k, normalized(item));
      return Value::map(std::move(out));
    }
    default: return v;
  }
}

std::string canonical_json(const Value& v) { return json::marshal(normalized(v)); }

/// big.Float's %v of a schema number (shortest digits, exponent from 1e+06 on).
std::string number_text(const Value& v) { return format_v(Value::float64(number_of(v))); }

/// gojsonschema's Result: errors in traversal order and the closeness score that picks the
/// best failing branch of anyOf/oneOf/contains.
struct Result {
  std::vector<std::pair<std::string, std::string>> errors;  ///< (context, description)
  int score = 0;
  [[nodiscard]] bool valid() const { return errors.empty(); }
  void merge(const Result& other) {
    errors.insert(errors.end(), other.errors.begin(), other.errors.end());
    score += other.score;
  }
};

/// The field name of a context: `(root).a.b` without `(root).`.
std::string field_of(const std::string& context) {
  return context.starts_with("(root).") ? context.substr(7) : context;
}

/// Whether santhosh-tekuri/jsonschema v6, which Helm >= 3.18 validates with, asserts `format`
/// under this root schema: drafts 4, 6 and 7 do; 2019-09 and 2020-12 treat it as an annotation,
/// and 2020-12 is what a schema without `$schema` (or with json-schema.org/schema) is (v6's
/// draft.go draftFromURL, objcompiler.go assertFormat). An unknown `$schema` keeps the check.
bool asserts_format(const Value& root) {
  if (!root.is_map()) return false;
  auto it = root.as_map().find("$schema");
  if (it == root.as_map().end() || !it->second.is_string()) return false;
  std::string_view u = it->second.as_string();
  const size_t hash = u.find('#');
  if (hash != std::string_view::npos) {
    if (hash + 1 != u.size()) return true;  // a fragment: not a draft v6 knows
    u = u.substr(0, hash);
  }
  if (u.starts_with("http://")) {
    u.remove_prefix(7);
  } else if (u.starts_with("https://")) {
    u.remove_prefix(8);
  }
  return u != "json-schema.org/schema" && u != "json-schema.org/draft/2020-12/schema" &&
         u != "json-schema.org/draft/2019-09/schema";
}

class Validator {
 public:
  Validator(const Value& root, const std::string& file)
      : m_root(root), m_file(file), m_assert_format(asserts_format(root)) {}

  void validate(const Value& schema, const Value& node, Result& r, const std::string& ctx) {
    if (schema.is_bool()) {
      if (!schema.as_bool()) add(r, ctx, "False always fails validation");
      return;
    }
    if (!schema.is_map()) return;
    const Map& s = schema.as_map();
    if (const Value* ref = get(s, "$ref"); ref != nullptr && ref->is_string()) {
      validate(resolve(ref->as_string()), node, r, ctx);
      return;
    }
    std::vector<std::string> types = types_of(s);
    JsonType t = json_type(node);
    std::string given = type_name(t);
    bool ok = types.empty() || contains(types, given) ||
              (t == JsonType::Integer && contains(types, "number"));
    if (!ok) {
      add(r, ctx,
          fmt::format("Invalid type. Expected: {}, given: {}",
                      types.size() == 1 ? types[0] : "[" + join(types, ",") + "]", given));
      return;
    }
    validate_schema(s, node, r, ctx);
    if (t == JsonType::Integer || t == JsonType::Number) validate_number(s, node, r, ctx);
    if (t == JsonType::Array) validate_array(s, node.as_list(), r, ctx);
    if (t == JsonType::Object) validate_object(s, node.as_map(), r, ctx);
    validate_common(s, node, r, ctx);
    if (t == JsonType::String) validate_string(s, node.as_string(), r, ctx);
    if (t == JsonType::Object) {
      if (const Value* props = get(s, "properties"); props != nullptr && props->is_map()) {
        const Map& m = node.as_map();
        for (const auto& [k, sub] : props->as_map())
          if (auto it = m.find(k); it != m.end()) validate(sub, it->second, r, ctx + "." + k);
      }
    }
    ++r.score;
  }

 private:
  static const Value* get(const Map& s, std::string_view key) {
    auto it = s.find(key);
    return it == s.end() ? nullptr : &it->second;
  }
  static bool contains(const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  }
  static std::string join(const std::vector<std::string>& v, std::string_view sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) out += (i > 0 ? std::string(sep) : "") + v[i];
    return out;
  }
  static std::string type_name(JsonType t) {
    switch (t) {
      case JsonType::Null: return "null";
      case JsonType::Boolean: return "boolean";
      case JsonType::Integer: return "integer";
      case JsonType::Number: return "number";
      case JsonType::String: return "string";
      case JsonType::Array: return "array";
      case JsonType::Object: return "object";
      default: return "unknown";
    }
  }
  static std::vector<std::string> types_of(const Map& s) {
    std::vector<std::string> out;
    const Value* t = get(s, "type");
    if (t == nullptr) return out;
    if (t->is_string()) out.push_back(t->as_string());
    if (t->is_list())
      for (const Value& x : t->as_list())
        if (x.is_string()) out.push_back(x.as_string());
    return out;
  }

  static void add(Result& r, const std::string& ctx, std::string description) {
    r.errors.emplace_back(ctx, std::move(description));
    r.score -= 2;
  }

  /// `#`, `#/definitions/x`, `#/$defs/x`, `#/properties/a/items`: JSON pointers in the file.
  const Value& resolve(const std::string& ref) {
    if (!ref.starts_with("#"))
      throw Error(ErrorCode::Input, "values.schema.json: only local $ref (#/...) is supported",
                  {m_file});
    const Value* cur = &m_root;
    std::string pointer = ref.substr(1);
    size_t pos = pointer.empty() ? std::string::npos : 1;
    while (pos != std::string::npos && pos <= pointer.size()) {
      size_t slash = pointer.find('/', pos);
      std::string token = pointer.substr(pos, slash == std::string::npos ? slash : slash - pos);
      pos = slash == std::string::npos ? std::string::npos : slash + 1;
      for (size_t i; (i = token.find("~1")) != std::string::npos;) token.replace(i, 2, "/");
      for (size_t i; (i = token.find("~0")) != std::string::npos;) token.replace(i, 2, "~");
      if (cur->is_map()) {
        const Value* next = get(cur->as_map(), token);
        if (next == nullptr) break;
        cur = next;
      } else if (cur->is_list() && !token.empty() &&
                 token.find_first_not_of("0123456789") == std::string::npos &&
                 std::stoul(token) < cur->as_list().size()) {
        cur = &cur->as_list()[std::stoul(token)];
      } else {
        cur = nullptr;
        break;
      }
    }
    if (cur == nullptr || pos != std::string::npos)
      throw Error(ErrorCode::Input, "values.schema.json: $ref " + ref + " does not resolve",
                  {m_file});
    return *cur;
  }

  Result sub(const Value& schema, const Value& node, const std::string& ctx) {
    Result r;
    validate(schema, node, r, ctx);
    return r;
  }

  void validate_schema(const Map& s, const Value& node, Result& r, const std::string& ctx) {
    if (const Value* any = get(s, "anyOf"); any != nullptr && any->is_list()) {
      std::optional<Result> best;
      bool matched = false;
      for (const Value& alt : any->as_list()) {
        Result res = sub(alt, node, ctx);
        if (res.valid()) {
          matched = true;
          break;
        }
        if (!best || res.score > best->score) best = std::move(res);
      }
      if (!matched) {
        add(r, ctx, "Must validate at least one schema (anyOf)");
        if (best) r.merge(*best);
      }
    }
    if (const Value* one = get(s, "oneOf"); one != nullptr && one->is_list()) {
      int passed = 0;
      std::optional<Result> best;
      for (const Value& alt : one->as_list()) {
        Result res = sub(alt, node, ctx);
        if (res.valid())
          ++passed;
        else if (passed == 0 && (!best || res.score > best->score))
          best = std::move(res);
      }
      if (passed != 1) {
        add(r, ctx, "Must validate one and only one schema (oneOf)");
        if (passed == 0 && best) r.merge(*best);
      }
    }
    if (const Value* all = get(s, "allOf"); all != nullptr && all->is_list()) {
      size_t passed = 0;
      for (const Value& alt : all->as_list()) {
        Result res = sub(alt, node, ctx);
        if (res.valid()) ++passed;
        r.merge(res);
      }
      if (passed != all->as_list().size()) add(r, ctx, "Must validate all the schemas (allOf)");
    }
    if (const Value* no = get(s, "not"); no != nullptr && sub(*no, node, ctx).valid())
      add(r, ctx, "Must not validate the schema (not)");
    if (const Value* deps = get(s, "dependencies");
        deps != nullptr && deps->is_map() && node.is_map()) {
      const Map& m = node.as_map();
      for (const auto& [key, _] : m) {
        const Value* dep = get(deps->as_map(), key);
        if (dep == nullptr) continue;
        if (dep->is_list()) {
          for (const Value& need : dep->as_list())
            if (need.is_string() && m.find(need.as_string()) == m.end())
              add(r, ctx, "Has a dependency on " + need.as_string());
        } else {
          validate(*dep, node, r, ctx);
        }
      }
    }
    if (const Value* cond = get(s, "if"); cond != nullptr) {
      bool holds = sub(*cond, node, ctx).valid();
      const Value* branch = get(s, holds ? "then" : "else");
      if (branch != nullptr) {
        Result res = sub(*branch, node, ctx);
        if (!res.valid()) {
          add(r, ctx,
              holds ? R"(Must validate "then" as "if" was valid)"
                    : R"(Must validate "else" as "if" was not valid)");
          r.merge(res);
        }
      }
    }
    ++r.score;
  }

  void validate_common(const Map& s, const Value& node, Result& r, const std::string& ctx) {
    std::string field = field_of(ctx);
    if (const Value* c = get(s, "const"); c != nullptr) {
      std::string want = canonical_json(*c);
      if (canonical_json(node) != want) add(r, ctx, field + " does not match: " + want);
    }
    if (const Value* e = get(s, "enum"); e != nullptr && e->is_list() && !e->as_list().empty()) {
      std::string have = canonical_json(node);
      std::vector<std::string> allowed;
      for (const Value& x : e->as_list()) allowed.push_back(canonical_json(x));
      if (!contains(allowed, have))
        add(r, ctx, field + " must be one of the following: " + join(allowed, ", "));
    }
    ++r.score;
  }

  void validate_array(const Map& s, const List& items, Result& r, const std::string& ctx) {
    size_t n = items.size();
    const Value* schemas = get(s, "items");
    if (schemas != nullptr && (schemas->is_map() || schemas->is_bool())) {
      for (size_t i = 0; i < n; ++i)
        r.merge(sub(*schemas, items[i], ctx + "." + std::to_string(i)));
    } else if (schemas != nullptr && schemas->is_list() && !schemas->as_list().empty()) {
      const List& tuple = schemas->as_list();
      for (size_t i = 0; i < tuple.size() && i < n; ++i)
        r.merge(sub(tuple[i], items[i], ctx + "." + std::to_string(i)));
      const Value* more = get(s, "additionalItems");
      if (tuple.size() < n && more != nullptr) {
        if (more->is_bool() && !more->as_bool())
          add(r, ctx, "No additional items allowed on array");
        if (more->is_map())
          for (size_t i = tuple.size(); i < n; ++i)
            r.merge(sub(*more, items[i], ctx + "." + std::to_string(i)));
      }
    }
    if (const Value* v = get(s, "minItems"); v != nullptr && static_cast<double>(n) < number_of(*v))
      add(r, ctx, "Array must have at least " + number_text(*v) + " items");
    if (const Value* v = get(s, "maxItems"); v != nullptr && static_cast<double>(n) > number_of(*v))
      add(r, ctx, "Array must have at most " + number_text(*v) + " items");
    if (const Value* u = get(s, "uniqueItems"); u != nullptr && u->is_bool() && u->as_bool()) {
      std::map<std::string, size_t> seen;
      for (size_t j = 0; j < n; ++j) {
        std::string text = canonical_json(items[j]);
        if (auto it = seen.find(text); it != seen.end())
          add(r, ctx, fmt::format("array items[{},{}] must be unique", it->second, j));
        seen[text] = j;
      }
    }
    if (const Value* c = get(s, "contains"); c != nullptr) {
      std::optional<Result> best;
      bool matched = false;
      for (size_t i = 0; i < n && !matched; ++i) {
        Result res = sub(*c, items[i], ctx + "." + std::to_string(i));
        matched = res.valid();
        if (!matched && (!best || res.score > best->score)) best = std::move(res);
      }
      if (!matched) {
        add(r, ctx, "At least one of the items must match");
        if (best) r.merge(*best);
      }
    }
    ++r.score;
  }

  bool pattern_properties(const Map& s, const std::string& key, const Value& value, Result& r,
                          const std::string& ctx) {
    const Value* pp = get(s, "patternProperties");
    if (pp == nullptr || !pp->is_map()) return false;
    bool matched = false;
    for (const auto& [pattern, schema] : pp->as_map()) {
      if (!search(pattern, key)) continue;
      matched = true;
      r.merge(sub(schema, value, ctx + "." + key));
    }
    if (matched) ++r.score;
    return matched;
  }

  void validate_object(const Map& s, const Map& m, Result& r, const std::string& ctx) {
    if (const Value* v = get(s, "minProperties");
        v != nullptr && static_cast<double>(m.size()) < number_of(*v))
      add(r, ctx, "Must have at least " + number_text(*v) + " properties");
    if (const Value* v = get(s, "maxProperties");
        v != nullptr && static_cast<double>(m.size()) > number_of(*v))
      add(r, ctx, "Must have at most " + number_text(*v) + " properties");
    if (const Value* req = get(s, "required"); req != nullptr && req->is_list()) {
      for (const Value& name : req->as_list()) {
        if (!name.is_string()) continue;
        if (m.find(name.as_string()) != m.end())
          ++r.score;
        else
          add(r, ctx, name.as_string() + " is required");
      }
    }
    const Value* props = get(s, "properties");
    const Value* additional = get(s, "additionalProperties");
    for (const auto& [key, value] : m) {
      bool described = props != nullptr && props->is_map() && props->as_map().count(key) > 0;
      bool matched = pattern_properties(s, key, value, r, ctx);
      if (described || matched || additional == nullptr) continue;
      if (additional->is_bool() && !additional->as_bool())
        add(r, ctx, "Additional property " + key + " is not allowed");
      else if (additional->is_map())
        r.merge(sub(*additional, value, ctx + "." + key));
    }
    if (const Value* names = get(s, "propertyNames"); names != nullptr) {
      for (const auto& [key, _] : m) {
        Result res = sub(*names, Value::string(key), ctx);
        if (!res.valid()) {
          add(r, ctx, "Property name of \"" + key + "\" does not match");
          r.merge(res);
        }
      }
    }
    ++r.score;
  }

  void validate_string(const Map& s, const std::string& str, Result& r, const std::string& ctx) {
    size_t runes = 0;
    for (unsigned char c : str) runes += (c & 0xC0) != 0x80 ? 1 : 0;
    if (const Value* v = get(s, "minLength");
        v != nullptr && static_cast<double>(runes) < number_of(*v))
      add(r, ctx, "String length must be greater than or equal to " + number_text(*v));
    if (const Value* v = get(s, "maxLength");
        v != nullptr && static_cast<double>(runes) > number_of(*v))
      add(r, ctx, "String length must be less than or equal to " + number_text(*v));
    if (const Value* p = get(s, "pattern");
        p != nullptr && p->is_string() && !search(p->as_string(), str))
      add(r, ctx, "Does not match pattern '" + p->as_string() + "'");
    if (const Value* f = get(s, "format"); m_assert_format && f != nullptr && f->is_string() &&
                                           !string_has_format(f->as_string(), str))
      add(r, ctx, "Does not match format '" + f->as_string() + "'");
    ++r.score;
  }

  void validate_number(const Map& s, const Value& node, Result& r, const std::string& ctx) {
    double x = number_of(node);
    if (const Value* m = get(s, "multipleOf"); m != nullptr && number_of(*m) != 0) {
      if (!multiple_of(x, number_of(*m))) add(r, ctx, "Must be a multiple of " + number_text(*m));
    }
    const Value* max = get(s, "maximum");
    const Value* xmax = get(s, "exclusiveMaximum");
    if (xmax != nullptr && xmax->is_bool()) {  // draft 4: a flag on maximum
      xmax = xmax->as_bool() ? max : nullptr;
      if (xmax != nullptr) max = nullptr;
    }
    const Value* min = get(s, "minimum");
    const Value* xmin = get(s, "exclusiveMinimum");
    if (xmin != nullptr && xmin->is_bool()) {
      xmin = xmin->as_bool() ? min : nullptr;
      if (xmin != nullptr) min = nullptr;
    }
    if (max != nullptr && x > number_of(*max))
      add(r, ctx, "Must be less than or equal to " + number_text(*max));
    if (xmax != nullptr && x >= number_of(*xmax))
      add(r, ctx, "Must be less than " + number_text(*xmax));
    if (min != nullptr && x < number_of(*min))
      add(r, ctx, "Must be greater than or equal to " + number_text(*min));
    if (xmin != nullptr && x <= number_of(*xmin))
      add(r, ctx, "Must be greater than " + number_text(*xmin));
    if (const Value* f = get(s, "format");
        m_assert_format && f != nullptr && f->is_string() && !number_has_format(f->as_string()))
      add(r, ctx, "Does not match format '" + f->as_string() + "'");
    ++r.score;
  }

  /// Go's regexp.MatchString: an unanchored search (RE2 syntax, as Go's).
  bool search(const std::string& pattern, const std::string& text) {
    auto it = m_regexes.find(pattern);
    if (it == m_regexes.end()) {
      RE2::Options opts;
      opts.set_log_errors(false);
      auto re = std::make_unique<RE2>(pattern, opts);
      if (!re->ok())
        throw Error(ErrorCode::Input,
                    "values.schema.json: invalid regular expression " + go_quote(pattern),
                    {m_file});
      it = m_regexes.emplace(pattern, std::move(re)).first;
    }
    return RE2::PartialMatch(text, *it->second);
  }

  const Value& m_root;
  std::string m_file;
  bool m_assert_format;  ///< asserts_format(m_root)
  std::map<std::string, std::unique_ptr<RE2>> m_regexes;
};

void validate_tree(const Chart& chart, const Map& values, std::string& report) {
  if (!chart.schema.empty()) {
    std::string problems =
        schema_problems(chart.schema, Value::map(values), chart.source_dir + "/values.schema.json");
    if (!problems.empty()) report += chart.name() + ":\n" + problems;
  }
  for (const ChartPtr& sub : chart.dependencies) {
    auto it = values.find(sub->name());
    Map empty;
    validate_tree(*sub, it != values.end() && it->second.is_map() ? it->second.as_map() : empty,
                  report);
  }
}

}  // namespace

std::string schema_problems(const std::string& schema_text, const Value& values,
                            const std::string& file) {
  json::Decoded schema = json::unmarshal(schema_text);
  if (!schema.error.empty())
    throw Error(ErrorCode::Input, "values.schema.json is not valid JSON: " + schema.error, {file});
  Result result;
  Validator(schema.value, file).validate(schema.value, values, result, "(root)");
  std::string out;
  for (const auto& [ctx, description] : result.errors)
    out += "- " + field_of(ctx) + ": " + description + "\n";
  return out;
}

void validate_values(const Chart& chart, const Map& values) {
  std::string report;
  validate_tree(chart, values, report);
  if (report.ends_with('\n')) report.pop_back();
  if (!report.empty())
    throw Error(ErrorCode::Input,
                "values don't meet the specifications of the schema(s) in the following "
                "chart(s):\n" +
                    report);
}

}  // namespace ejob::render
