#include "src/render/helm/schema.hpp"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "src/render/go/fmt.hpp"
#include "src/render/go/json.hpp"
#include "src/render/go/printer_en.hpp"
#include "src/render/helm/metaschema_fast.hpp"
#include "src/render/helm/schema_format.hpp"
#include "src/render/helm/schema_set.hpp"
#include "src/render/sprig/regex.hpp"
#include "src/util/error.hpp"

namespace ejob::render::helm {

using go::go_quote;
using go::GoKind;
using go::List;
using go::Map;
using go::Value;

namespace {

__extension__ typedef __int128 Wide;  // GCC/Clang 128-bit integer

/// Whether x / m is a whole number, computed on the shortest decimal forms as v6's big.Rat
/// does (so 0.3 is a multiple of 0.1); doubles only when the decimals do not fit.
bool multiple_of(double x, double m) {
  auto decimal = [](double f, Wide& digits, int& exp10) {
    std::string t = go::json::format_float(f);  // shortest round-trip digits
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
    return is_whole_number(x / m);
  // x/m = a/b * 10^(ea-eb): scale the side with the larger exponent
  for (int i = ea; i > eb; --i) {
    if (a > (Wide{1} << 100) / 10 || a < -((Wide{1} << 100) / 10)) return is_whole_number(x / m);
    a *= 10;
  }
  for (int i = eb; i > ea; --i) {
    if (b > (Wide{1} << 100) / 10 || b < -((Wide{1} << 100) / 10)) return is_whole_number(x / m);
    b *= 10;
  }
  return a % b == 0;
}

/// The JSON view of a values node, as Helm hands it to the validator (YAML → JSON): numbers
/// are integers when integral, maps and lists as they are.
enum class JsonType { Null, Boolean, Integer, Number, String, Array, Object, Other };

JsonType json_type(const Value& v) {
  switch (v.kind()) {
    case GoKind::Invalid: return JsonType::Null;
    case GoKind::Bool: return JsonType::Boolean;
    case GoKind::Int:
    case GoKind::Uint: return JsonType::Integer;
    case GoKind::Float: {
      return is_whole_number(v.as_float()) ? JsonType::Integer : JsonType::Number;
    }
    case GoKind::String: return JsonType::String;
    case GoKind::Slice: return JsonType::Array;
    case GoKind::Map: return JsonType::Object;
    default: return JsonType::Other;
  }
}

/// Numbers as float64, recursively, so that equal numbers have one JSON text: v6's equals
/// compares numbers by value (const, enum, uniqueItems).
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

std::string canonical_json(const Value& v) { return go::json::marshal(normalized(v)); }

/// A count of v6's messages (minItems' want, maxLength's got…): %d through x/text's English
/// printer (`2,000`); the schema's number is taken as an int, as v6's intVal does.
std::string count_text(double n) { return go::english_int(static_cast<int64_t>(n)); }

/// The numbers of minimum, maximum, multipleOf and their kin: big.Rat → Float64 → %v through
/// x/text's English printer (`65,535`, `1×10⁰⁶`).
std::string number_text(double x) { return go::english_float(x); }

/// v6's kind.quote: Go's %q, with `"` left bare and `'` escaped, between single quotes.
std::string kind_quote(std::string_view s) {
  std::string q = go_quote(s);
  std::string out = "'";
  for (size_t i = 1; i + 1 < q.size(); ++i) {
    if (q[i] == '\\' && q[i + 1] == '"') continue;  // \" becomes "
    if (q[i] == '\'') out += '\\';
    out += q[i];
  }
  return out + "'";
}

/// v6's kind.display: a string quoted, an array or object as `value`, anything else as %v.
std::string display(const Value& v) {
  switch (json_type(v)) {
    case JsonType::String: return kind_quote(v.as_string());
    case JsonType::Array:
    case JsonType::Object: return "value";
    case JsonType::Null: return "<nil>";
    default: return format_v(v);
  }
}

/// An instance location as the validator goes down: each step names its parent, so going
/// into a property or an item copies nothing until a problem is reported there.
struct Where {
  const Where* up = nullptr;         ///< null at the root
  std::string_view key;              ///< a property's name, or
  size_t index = std::string::npos;  ///< an item's index

  /// The location's tokens, outermost first.
  std::vector<std::string> tokens() const {
    std::vector<std::string> out;
    for (const Where* w = this; w->up != nullptr; w = w->up)
      out.push_back(w->index != std::string::npos ? std::to_string(w->index) : std::string(w->key));
    std::reverse(out.begin(), out.end());
    return out;
  }
};

/// v6's ValidationError: where in the values, the kind's text and the errors under it.
struct Problem {
  std::vector<std::string> where;  ///< instance location, one token per step
  std::string text;                ///< ErrorKind.LocalizedString
  std::vector<Problem> causes;
  bool reference = false;  ///< a $ref: not printed when it has exactly one cause
};

using Outcome = std::optional<Problem>;  ///< nullopt: valid

/// The errors of one schema against one value, folded as v6's validator.validate does.
struct Errors {
  bool quiet = false;  ///< only whether there are problems matters, not what they say
  std::vector<Problem> list;
  /// What was evaluated, for unevaluatedProperties/Items: property names of an object,
  /// indexes (decimal) of an array.
  std::set<std::string> evaluated;

  void add(const Where& where, std::string text, std::vector<Problem> causes = {}) {
    list.push_back(quiet ? Problem{} : Problem{where.tokens(), std::move(text), std::move(causes)});
  }
  /// The same with a text that is made only when it will be read.
  template <typename Text, typename = std::enable_if_t<std::is_invocable_v<Text>>>
  void add(const Where& where, Text&& text, std::vector<Problem> causes = {}) {
    list.push_back(quiet ? Problem{} : Problem{where.tokens(), text(), std::move(causes)});
  }
  void add(Outcome o) {
    if (o) list.push_back(std::move(*o));
  }
  Outcome fold(const Where& where) {
    if (list.empty()) return std::nullopt;
    if (list.size() == 1) return std::move(list[0]);
    if (quiet) return Problem{};
    return Problem{where.tokens(), "validation failed", std::move(list)};
  }
};

/// Causes of a folded outcome: a group's members, or the problem itself.
std::vector<Problem> causes_of(Problem p) {
  if (p.text == "validation failed" && !p.reference && !p.causes.empty()) return p.causes;
  return {std::move(p)};
}

std::string pointer(const std::vector<std::string>& where) {
  std::string out;
  for (const std::string& tok : where) {
    out += '/';
    for (char c : tok) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  }
  return out;
}

/// v6's ValidationError.display at indent >= 1, as Helm prints it once it has trimmed the
/// first line (`jsonschema validation failed with 'file:///values.schema.json#'`).
void display_problem(const Problem& p, int indent, std::string& out) {
  const bool skip = p.reference && p.causes.size() == 1;
  if (!skip) {
    out += '\n';
    for (int i = 0; i < indent - 1; ++i) out += "  ";
    out += "- at " + kind_quote(pointer(p.where)) + ": " + p.text;
    ++indent;
  }
  for (const Problem& c : p.causes) display_problem(c, indent, out);
}

class Validator {
 public:
  explicit Validator(const SchemaSet& set) : m_set(set) {}

  /// Checking `doc` against metaschemas: `dialects` maps each of its resources (by pointer)
  /// to its dialect's metaschema root, for handleMeta.
  Validator(const SchemaSet& set, const SchemaNode& meta,
            std::map<std::string, const SchemaNode*> dialects)
      : m_set(set), m_meta(&meta), m_dialects(std::move(dialects)) {}

  /// Validate() of a compiled schema: its problems, a group unfolded.
  std::vector<Problem> run(const SchemaNode& root, const Value& values) {
    Outcome o = validate(*root.value, values, Where{});
    return o ? causes_of(std::move(*o)) : std::vector<Problem>{};
  }

 private:
  struct Node {
    const Value& v;
    const Where& where;
    const SchemaNode& at;
    int draft;
    const Value* operator[](Keyword k) const { return at.get(k); }
  };

  /// v6's scope: a schema being applied, the value it is applied to (the same value keeps
  /// the id of its value, vid) and the reference keyword that led to it.
  struct Scope {
    const SchemaNode* node;
    const Value* value;
    size_t vid;
    std::string_view ref;
  };

  /// Pushes a scope for the length of one validate().
  class Enter {
   public:
    Enter(Validator& self, const SchemaNode& node, const Value& v, std::string_view ref)
        : m_self(self) {
      auto& scopes = self.m_scopes;
      size_t vid = 0;
      if (!scopes.empty())
        vid = scopes.back().value == &v ? scopes.back().vid : scopes.back().vid + 1;
      scopes.push_back(Scope{&node, &v, vid, ref});
    }
    ~Enter() { m_self.m_scopes.pop_back(); }
    Enter(const Enter&) = delete;
    Enter& operator=(const Enter&) = delete;

   private:
    Validator& m_self;
  };

  static const Value* get(const Map& s, std::string_view key) {
    auto it = s.find(key);
    return it == s.end() ? nullptr : &it->second;
  }

  /// One schema against one value; `evaluated` gets the property names it evaluated when
  /// the value is valid (v6's uneval.merge).
  Outcome validate(const Value& schema, const Value& v, const Where& where,
                   std::set<std::string>* evaluated = nullptr, std::string_view ref = {}) {
    if (schema.is_bool()) {
      if (schema.as_bool()) return std::nullopt;
      return problem(where, [] { return "false schema"; });
    }
    if (!schema.is_map() || schema.as_map().empty()) return std::nullopt;  // {} is true
    const SchemaNode* const outer_meta = m_meta;
    const SchemaNode& at = dialect_of(node_of(schema), where);
    const Restore restore{m_meta,
                          outer_meta};  // braces: clang 14 has no C++20 paren-init of aggregates
    Enter scope(*this, at, v, ref);
    if (Outcome cycle = ref_cycle(where)) return cycle;
    return apply(Node{v, where, at, at.draft()}, evaluated);
  }

  /// The keywords of one schema on one value, in v6's order, after the cycle check.
  Outcome apply(const Node& n, std::set<std::string>* evaluated) {
    const Where& where = n.where;
    if (Outcome early = assertions(n)) return early;
    Errors errs{m_quiet > 0};
    if (const SchemaNode* target = n.at.ref) {
      Outcome r = reference(*target, n, errs.evaluated, "$ref");
      if (n.draft < 2019) return finish(std::move(errs), r, where, evaluated);
      errs.add(std::move(r));
    }
    const JsonType type = json_type(n.v);
    if (type == JsonType::Object) object(n, errs);
    if (type == JsonType::Array) array(n, errs);
    if (type == JsonType::String) string(n, errs);
    if (type == JsonType::Integer || type == JsonType::Number) number(n, errs);
    if (n.draft >= 2019) dynamic_refs(n, errs);
    conditions(n, errs);
    if (n.draft >= 2019) unevaluated(n, errs);
    return finish(std::move(errs), std::nullopt, where, evaluated);
  }

  /// Puts a pointer back as it was when a scope ends.
  struct Restore {
    const SchemaNode*& slot;
    const SchemaNode* saved;
    ~Restore() { slot = saved; }
  };

  /// handleMeta: checking a document against metaschemas, the metaschema root applied at a
  /// resource of the document with a dialect of its own is that dialect's metaschema (for the
  /// subtree: m_meta follows).
  const SchemaNode& dialect_of(const SchemaNode& node, const Where& where) {
    if (m_meta == nullptr || &node != m_meta || m_dialects.empty()) return node;
    auto it = m_dialects.find(pointer(where.tokens()));
    if (it == m_dialects.end()) return node;
    m_meta = it->second;
    return *it->second;
  }

  /// Every schema the validator reaches was compiled (SchemaSet); a value that was not is a
  /// bug, not a user error.
  const SchemaNode& node_of(const Value& schema) const {
    const SchemaNode* n = m_set.node(schema);
    if (n == nullptr) throw std::logic_error("values.schema.json: a subschema was not compiled");
    return *n;
  }

  /// scope.checkCycle: the schema now entered is already applied to this same value further
  /// out (`$ref`s that lead back without consuming anything).
  Outcome ref_cycle(const Where& where) const {
    const Scope& top = m_scopes.back();
    for (size_t i = m_scopes.size() - 1; i-- > 0;) {
      if (m_scopes[i].vid != top.vid) break;
      if (m_scopes[i].node != top.node) continue;
      return Problem{where.tokens(), "both " + keyword_location(m_scopes.size() - 1) + " and " +
                                         keyword_location(i) + " resolve to " +
                                         go_quote(top.node->location()) +
                                         " causing reference cycle"};
    }
    return std::nullopt;
  }

  /// scope.kwLoc: the keywords from the outermost scope to scope `i`.
  std::string keyword_location(size_t i) const {
    std::string loc;
    for (; i > 0; --i) {
      const Scope& sc = m_scopes[i];
      if (!sc.ref.empty()) {
        loc = "/" + std::string(sc.ref) + loc;
        continue;
      }
      const std::string cur = sc.node->location();
      const std::string parent = m_scopes[i - 1].node->location();
      loc = (cur.size() >= parent.size() ? cur.substr(parent.size()) : cur) + loc;
    }
    return loc;
  }

  /// validateRefs (2019-09 on): `$recursiveRef` to the outermost scope whose resource has
  /// `$recursiveAnchor`, `$dynamicRef` to the outermost resource with that dynamic anchor.
  void dynamic_refs(const Node& n, Errors& errs) {
    if (const SchemaNode* target = n.at.recursive_ref) {
      if (recursive_anchor(*target->value))
        for (const Scope& sc : m_scopes)
          if (recursive_anchor(*m_set.node(*resource_root(*sc.node))->value)) {
            target = sc.node;
            break;
          }
      errs.add(reference(*target, n, errs.evaluated, "$recursiveRef"));
    }
    const SchemaNode* target = n.at.dynamic_ref;
    if (target == nullptr) return;
    const std::string anchor = dynamic_anchor_of(*n[Keyword::DynamicRef]);
    const Value* own =
        target->value->is_map() ? get(target->value->as_map(), "$dynamicAnchor") : nullptr;
    if (!anchor.empty() && own != nullptr && own->is_string() && own->as_string() == anchor)
      for (const Scope& sc : m_scopes)
        if (const SchemaNode* d = m_set.anchored(*sc.node->resource, *sc.node->doc, anchor);
            d != nullptr && sc.node->resource->dynamic_anchors.count(anchor) > 0) {
          target = d;
          break;
        }
    errs.add(reference(*target, n, errs.evaluated, "$dynamicRef"));
  }

  static bool recursive_anchor(const Value& schema) {
    const Value* a = schema.is_map() ? get(schema.as_map(), "$recursiveAnchor") : nullptr;
    return a != nullptr && a->is_bool() && a->as_bool();
  }

  /// The schema value at the root of a node's resource.
  const Value* resource_root(const SchemaNode& node) const {
    const SchemaNode* root = m_set.at(*node.doc, node.resource->ptr);
    return root != nullptr ? root->value : node.value;
  }

  /// The anchor a `$dynamicRef` names (its fragment when that is no JSON pointer), or "".
  static std::string dynamic_anchor_of(const Value& ref) {
    const std::string& r = ref.as_string();
    const size_t hash = r.find('#');
    if (hash == std::string::npos) return "";
    std::string frag = join_url("file:///", r.substr(hash)).frag;
    return frag.empty() || frag[0] == '/' ? "" : frag;
  }

  static Outcome finish(Errors errs, Outcome ref, const Where& where,
                        std::set<std::string>* evaluated) {
    if (ref) errs.add(std::move(ref));
    Outcome o = errs.fold(where);
    if (!o && evaluated != nullptr) evaluated->insert(errs.evaluated.begin(), errs.evaluated.end());
    return o;
  }

  /// type, const, enum and format: the first that fails is the value's only error.
  Outcome assertions(const Node& n) {
    if (Outcome t = type(n)) return t;
    if (const Value* c = n[Keyword::Const]; c != nullptr && n.draft >= 6) {
      if (!same_json(n.v, *c))
        return problem(n.where, [&] {
          return c->is_list() || c->is_map() ? "const failed" : "value must be " + shown(*c);
        });
    }
    if (const Value* e = n[Keyword::Enum]; e != nullptr && e->is_list()) {
      const List& options = e->as_list();
      if (std::any_of(options.begin(), options.end(),
                      [&](const Value& x) { return same_json(n.v, x); }))
        return format(n);
      return problem(n.where, [&]() -> std::string {
        std::vector<std::string> want;
        for (const Value& x : options) {
          if (x.is_list() || x.is_map()) return "enum failed";
          want.push_back(shown(x));
        }
        if (want.size() == 1) return "value must be " + want[0];
        return "value must be one of " + join(want, ", ");
      });
    }
    return format(n);
  }

  /// Whether two values are equal as v6 compares them (their canonical JSON): two strings
  /// without a byte past ASCII compare as they are, without encoding them.
  bool same_json(const Value& a, const Value& b) {
    // JSON texts of different kinds differ in their first character (a list is no enum string)
    auto kind = [](const Value& v) {
      const JsonType t = json_type(v);
      return t == JsonType::Integer ? JsonType::Number : t;
    };
    const JsonType ka = kind(a);
    const JsonType kb = kind(b);
    if (ka != kb && ka != JsonType::Other && kb != JsonType::Other) return false;
    if (a.is_string() && b.is_string()) {
      const std::string& x = a.as_string();
      const std::string& y = b.as_string();
      if (x == y) return true;
      auto ascii = [](const std::string& t) {
        return std::all_of(t.begin(), t.end(),
                           [](char c) { return static_cast<unsigned char>(c) < 0x80; });
      };
      if (ascii(x) && ascii(y)) return false;
    }
    return canonical_json(a) == canonical_json(b);
  }

  /// A problem at `where`; its text is made only where someone will read it (not while
  /// validating quietly).
  template <typename Text>
  Problem problem(const Where& where, Text&& text) const {
    if (m_quiet > 0) return Problem{};
    return Problem{where.tokens(), std::string(text())};
  }

  /// kind.display of a schema's own value: a number as the schema wrote it (json.Number).
  std::string shown(const Value& v) const {
    const std::string* text = m_set.number_text(v);
    return text != nullptr ? *text : display(v);
  }

  /// `got number, want integer or string`: the wanted types in v6's fixed order; every
  /// number is `number` (an integral one still matches `integer`).
  Outcome type(const Node& n) const {
    const unsigned want = n.at.type_mask;
    if (want == 0) return std::nullopt;
    const JsonType jt = json_type(n.v);
    std::string got = jt == JsonType::Integer ? "number" : type_name(jt);
    if ((want & json_type_bit(got)) != 0 ||
        (jt == JsonType::Integer && (want & json_type_bit("integer")) != 0))
      return std::nullopt;
    return problem(n.where, [&] {
      std::vector<std::string_view> wanted;
      for (size_t i = 0; i < k_json_types.size(); ++i)
        if ((want & (1U << i)) != 0) wanted.push_back(k_json_types[i]);
      return "got " + got + ", want " + join(wanted, " or ");
    });
  }

  static std::string type_name(JsonType t) {
    switch (t) {
      case JsonType::Null: return "null";
      case JsonType::Boolean: return "boolean";
      case JsonType::Integer:
      case JsonType::Number: return "number";
      case JsonType::String: return "string";
      case JsonType::Array: return "array";
      case JsonType::Object: return "object";
      default: return "unknown";
    }
  }

  template <typename Text>
  static std::string join(const std::vector<Text>& v, std::string_view sep) {
    std::string out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out += sep;
      out += v[i];
    }
    return out;
  }

  /// v6 asserts format under drafts 4-7 only (Helm never calls AssertFormat, and the 2019-09
  /// and 2020-12 metaschemas do not require the format-assertion vocabulary), and always in
  /// the metaschemas (v6 compiles them with AssertFormat). Every checker of v6 passes a
  /// non-string; kind.Format prints the checker's reason after a colon.
  Outcome format(const Node& n) const {
    const Value* f = n[Keyword::Format];
    if (!asserts_format(n) || f == nullptr || !f->is_string() || !n.v.is_string())
      return std::nullopt;
    const auto why = format_error(f->as_string(), n.v.as_string());
    if (!why) return std::nullopt;
    return problem(n.where,
                   [&] { return display(n.v) + " is not valid " + f->as_string() + ": " + *why; });
  }

  /// objCompiler.assertFormat: drafts 4-7, the metaschemas, and a custom metaschema that
  /// requires the `format` (2019-09) or `format-assertion` (2020-12) vocabulary.
  static bool asserts_format(const Node& n) {
    if (n.draft < 2019 || n.at.doc->meta) return true;
    return n.at.resource->vocabs &&
           n.at.resource->has_vocab(n.draft == 2019 ? "format" : "format-assertion");
  }

  /// validateRef: a `validation failed` problem over the target's problems.
  Outcome reference(const SchemaNode& target, const Node& n, std::set<std::string>& evaluated,
                    std::string_view keyword) {
    Outcome o = validate(*target.value, n.v, n.where, &evaluated, keyword);
    if (!o) return std::nullopt;
    if (m_quiet > 0) return Problem{};
    Problem p{n.where.tokens(), "validation failed", causes_of(std::move(*o)), true};
    return p;
  }

  /// The names in a list of a schema (`required`, a `dependencies` list) that `m` lacks.
  static std::vector<std::string> missing(const Map& m, const Value* names) {
    std::vector<std::string> out;
    if (names != nullptr && names->is_list())
      for (const Value& x : names->as_list())
        if (x.is_string() && m.find(x.as_string()) == m.end()) out.push_back(x.as_string());
    return out;
  }

  static std::string quoted_list(const std::vector<std::string>& names) {
    std::vector<std::string> q;
    for (const std::string& name : names) q.push_back(kind_quote(name));
    return join(q, ", ");
  }

  static Where child(const Where& where, std::string_view key) { return Where{&where, key}; }
  static Where item(const Where& where, size_t index) { return Where{&where, {}, index}; }

  /// objValidate. Where v6 walks a Go map (the value's keys, patternProperties,
  /// dependencies, dependentRequired/Schemas) its order is random; ours is sorted by name.
  void object(const Node& n, Errors& errs) {
    const Map& m = n.v.as_map();
    if (const Value* v = n[Keyword::MinProperties];
        v != nullptr && static_cast<double>(m.size()) < number_of(*v))
      errs.add(n.where, "minProperties: got " + count_text(static_cast<double>(m.size())) +
                            ", want " + count_text(number_of(*v)));
    if (const Value* v = n[Keyword::MaxProperties];
        v != nullptr && static_cast<double>(m.size()) > number_of(*v))
      errs.add(n.where, "maxProperties: got " + count_text(static_cast<double>(m.size())) +
                            ", want " + count_text(number_of(*v)));
    if (auto gone = missing(m, n[Keyword::Required]); !gone.empty())
      errs.add(n.where, [&] {
        return gone.size() == 1 ? "missing property " + kind_quote(gone[0])
                                : "missing properties " + quoted_list(gone);
      });
    dependencies(n, Keyword::Dependencies, errs);
    properties(n, errs);
    if (n.draft == 4) return;
    if (const Value* names = n[Keyword::PropertyNames]; names != nullptr) {
      for (const auto& [key, _] : m) {
        // v6 validates a name as a document of its own (a fresh scope for its cycle check)
        std::vector<Scope> outer;
        std::swap(outer, m_scopes);
        Outcome o = validate(*names, Value::string(key), Where{});
        std::swap(outer, m_scopes);
        if (o)
          errs.add(Where{}, "invalid propertyName " + kind_quote(key), causes_of(std::move(*o)));
      }
    }
    if (n.draft == 6 || n.draft == 7) return;
    if (const Value* deps = n[Keyword::DependentSchemas]; deps != nullptr && deps->is_map())
      for (const auto& [key, schema] : deps->as_map())
        if (m.count(key) > 0) errs.add(validate(schema, n.v, n.where, &errs.evaluated));
    dependencies(n, Keyword::DependentRequired, errs);
  }

  /// `dependencies` (every draft: a list of names or a schema) and `dependentRequired`.
  void dependencies(const Node& n, Keyword keyword, Errors& errs) {
    const Value* deps = n[keyword];
    if (deps == nullptr || !deps->is_map()) return;
    const Map& m = n.v.as_map();
    for (const auto& [key, dep] : deps->as_map()) {
      if (m.count(key) == 0) continue;
      if (dep.is_list()) {
        if (auto gone = missing(m, &dep); !gone.empty())
          errs.add(n.where, "properties " + quoted_list(gone) + " required, if " + kind_quote(key) +
                                " exists");
      } else if (keyword == Keyword::Dependencies) {
        errs.add(validate(dep, n.v, n.where, &errs.evaluated));
      }
    }
  }

  /// properties, patternProperties and additionalProperties, key by key; the keys that
  /// additionalProperties: false refuses make one problem after the walk.
  void properties(const Node& n, Errors& errs) {
    const Value* props = n[Keyword::Properties];
    const Value* patterns = n[Keyword::PatternProperties];
    const Value* additional = n[Keyword::AdditionalProperties];
    std::vector<std::string> refused;
    for (const auto& [key, value] : n.v.as_map()) {
      bool evaluated = false;
      if (props != nullptr && props->is_map())
        if (const Value* sub = property_schema(n, *props, key); sub != nullptr) {
          evaluated = true;
          errs.add(validate(*sub, value, child(n.where, key)));
        }
      if (patterns != nullptr && patterns->is_map())
        for (const auto& [pattern, sub] : patterns->as_map())
          if (search(pattern, key)) {
            evaluated = true;
            errs.add(validate(sub, value, child(n.where, key)));
          }
      if (!evaluated && additional != nullptr) {
        evaluated = true;
        if (additional->is_bool() && !additional->as_bool()) refused.push_back(key);
        if (additional->is_map()) errs.add(validate(*additional, value, child(n.where, key)));
      }
      if (evaluated && tracking()) errs.evaluated.insert(key);
    }
    if (!refused.empty())
      errs.add(n.where,
               [&] { return "additional properties " + quoted_list(refused) + " not allowed"; });
  }

  /// The schema `properties` gives a key, through the node's index where it has one.
  static const Value* property_schema(const Node& n, const Value& props, const std::string& key) {
    if (const auto& index = n.at.property_index) {
      auto it = index->find(key);
      return it == index->end() ? nullptr : it->second;
    }
    return get(props.as_map(), key);
  }

  /// arrValidate: sizes, uniqueItems, items (the draft's form), contains.
  void array(const Node& n, Errors& errs) {
    const List& items = n.v.as_list();
    const size_t len = items.size();
    if (const Value* v = n[Keyword::MinItems];
        v != nullptr && static_cast<double>(len) < number_of(*v))
      errs.add(n.where, "minItems: got " + count_text(static_cast<double>(len)) + ", want " +
                            count_text(number_of(*v)));
    if (const Value* v = n[Keyword::MaxItems];
        v != nullptr && static_cast<double>(len) > number_of(*v))
      errs.add(n.where, "maxItems: got " + count_text(static_cast<double>(len)) + ", want " +
                            count_text(number_of(*v)));
    if (const Value* u = n[Keyword::UniqueItems]; u != nullptr && u->is_bool() && u->as_bool())
      if (auto pair = duplicates(items))
        errs.add(n.where, "items at " + count_text(static_cast<double>(pair->first)) + " and " +
                              count_text(static_cast<double>(pair->second)) + " are equal");
    if (n.draft < 2020)
      tuple_items(n, errs);
    else
      prefix_items(n, errs);
    contains(n, errs);
  }

  /// The first later item equal to an earlier one, and the first earlier one it equals.
  static std::optional<std::pair<size_t, size_t>> duplicates(const List& items) {
    std::vector<std::string> text;
    for (const Value& x : items) text.push_back(canonical_json(x));
    for (size_t i = 1; i < text.size(); ++i)
      for (size_t j = 0; j < i; ++j)
        if (text[i] == text[j]) return std::make_pair(j, i);
    return std::nullopt;
  }

  /// Drafts 4-2019: `items` as one schema or a tuple, then `additionalItems`. v6 names an
  /// additional item by its index among the additional ones (arr[evaluated:]), as here.
  void tuple_items(const Node& n, Errors& errs) {
    const List& items = n.v.as_list();
    const Value* schemas = n[Keyword::Items];
    size_t evaluated = 0;
    if (schemas != nullptr && (schemas->is_map() || schemas->is_bool())) {
      for (size_t i = 0; i < items.size(); ++i)
        errs.add(validate(*schemas, items[i], item(n.where, i)));
      evaluated = items.size();
      mark_items(errs, 0, evaluated);
    } else if (schemas != nullptr && schemas->is_list()) {
      const List& tuple = schemas->as_list();
      evaluated = std::min(tuple.size(), items.size());
      for (size_t i = 0; i < evaluated; ++i)
        errs.add(validate(tuple[i], items[i], item(n.where, i)));
      mark_items(errs, 0, evaluated);
      const Value* more = n[Keyword::AdditionalItems];
      if (more != nullptr) mark_items(errs, evaluated, items.size());
      if (more != nullptr && more->is_bool() && !more->as_bool() && evaluated != items.size())
        errs.add(n.where, "last " + count_text(static_cast<double>(items.size() - evaluated)) +
                              " additionalItem(s) not allowed");
      if (more != nullptr && more->is_map())
        for (size_t i = evaluated; i < items.size(); ++i)
          errs.add(validate(*more, items[i], item(n.where, i - evaluated)));
    }
  }

  /// 2020-12: `prefixItems`, then `items` for the rest (numbered from 0 among them, as v6 does).
  void prefix_items(const Node& n, Errors& errs) {
    const List& items = n.v.as_list();
    size_t evaluated = 0;
    if (const Value* prefix = n[Keyword::PrefixItems]; prefix != nullptr && prefix->is_list()) {
      evaluated = std::min(prefix->as_list().size(), items.size());
      for (size_t i = 0; i < evaluated; ++i)
        errs.add(validate(prefix->as_list()[i], items[i], item(n.where, i)));
      mark_items(errs, 0, evaluated);
    }
    const Value* rest = n[Keyword::Items];
    if (rest != nullptr && (rest->is_map() || rest->is_bool())) {
      // v6 names them by their index among the rest (arr[evaluated:]), as for additionalItems
      for (size_t i = evaluated; i < items.size(); ++i)
        errs.add(validate(*rest, items[i], item(n.where, i - evaluated)));
      mark_items(errs, evaluated, items.size());
    }
  }

  void mark_items(Errors& errs, size_t from, size_t to) const {
    if (!tracking()) return;
    for (size_t i = from; i < to; ++i) errs.evaluated.insert(std::to_string(i));
  }

  /// What was evaluated matters only to unevaluatedItems and unevaluatedProperties: where no
  /// schema in use has them, nothing is recorded (v6 records it all the same; no outcome
  /// changes).
  bool tracking() const { return m_set.uses_unevaluated(); }

  /// contains (with minContains/maxContains from 2019-09): the items that fail it are the
  /// causes of `no items match contains schema`.
  void contains(const Node& n, Errors& errs) {
    const Value* c = n[Keyword::Contains];
    if (c == nullptr || n.draft < 6) return;
    std::vector<Problem> failed;
    std::vector<size_t> matched;
    const List& items = n.v.as_list();
    for (size_t i = 0; i < items.size(); ++i) {
      Outcome o = validate(*c, items[i], item(n.where, i));
      if (o) {
        failed.push_back(std::move(*o));
      } else {
        matched.push_back(i);
        if (n.draft >= 2020) mark_items(errs, i, i + 1);  // 2020-12: contains evaluates
      }
    }
    const Value* min = n.draft >= 2019 ? n[Keyword::MinContains] : nullptr;
    const Value* max = n.draft >= 2019 ? n[Keyword::MaxContains] : nullptr;
    auto at = [&] { return fmt::format("{}", fmt::join(matched, " ")); };
    const std::string found = count_text(static_cast<double>(matched.size()));
    if (min != nullptr && static_cast<double>(matched.size()) < number_of(*min)) {
      const std::string want =
          "min " + count_text(number_of(*min)) + " items required to match contains schema, but ";
      errs.add(
          n.where,
          matched.empty() ? want + "none matched" : want + "matched " + found + " items at " + at(),
          std::move(failed));
    } else if (min == nullptr && matched.empty()) {
      errs.add(n.where, "no items match contains schema", std::move(failed));
    }
    if (max != nullptr && static_cast<double>(matched.size()) > number_of(*max))
      errs.add(n.where, "max " + count_text(number_of(*max)) +
                            " items required to match contains schema, but matched " + found +
                            " items at " + at());
  }

  /// strValidate: lengths in runes, then pattern (an unanchored Go regexp).
  void string(const Node& n, Errors& errs) {
    const std::string& str = n.v.as_string();
    size_t runes = 0;
    for (unsigned char c : str) runes += (c & 0xC0) != 0x80 ? 1 : 0;
    if (const Value* v = n[Keyword::MinLength];
        v != nullptr && static_cast<double>(runes) < number_of(*v))
      errs.add(n.where, "minLength: got " + count_text(static_cast<double>(runes)) + ", want " +
                            count_text(number_of(*v)));
    if (const Value* v = n[Keyword::MaxLength];
        v != nullptr && static_cast<double>(runes) > number_of(*v))
      errs.add(n.where, "maxLength: got " + count_text(static_cast<double>(runes)) + ", want " +
                            count_text(number_of(*v)));
    if (const Value* p = n[Keyword::Pattern];
        p != nullptr && p->is_string() && !search(p->as_string(), str))
      errs.add(n.where, [&] {
        return kind_quote(str) + " does not match pattern " + kind_quote(p->as_string());
      });
  }

  /// numValidate: minimum, maximum, their exclusive forms (draft 4: flags on them), multipleOf.
  void number(const Node& n, Errors& errs) {
    const double x = number_of(n.v);
    const Value* max = n[Keyword::Maximum];
    const Value* xmax = n[Keyword::ExclusiveMaximum];
    if (xmax != nullptr && xmax->is_bool()) {
      xmax = xmax->as_bool() ? std::exchange(max, nullptr) : nullptr;
    }
    const Value* min = n[Keyword::Minimum];
    const Value* xmin = n[Keyword::ExclusiveMinimum];
    if (xmin != nullptr && xmin->is_bool()) {
      xmin = xmin->as_bool() ? std::exchange(min, nullptr) : nullptr;
    }
    auto add = [&](std::string_view keyword, const Value& want) {
      errs.add(n.where, std::string(keyword) + ": got " + number_text(x) + ", want " +
                            number_text(number_of(want)));
    };
    if (min != nullptr && x < number_of(*min)) add("minimum", *min);
    if (max != nullptr && x > number_of(*max)) add("maximum", *max);
    if (xmin != nullptr && x <= number_of(*xmin)) add("exclusiveMinimum", *xmin);
    if (xmax != nullptr && x >= number_of(*xmax)) add("exclusiveMaximum", *xmax);
    if (const Value* m = n[Keyword::MultipleOf]; m != nullptr && number_of(*m) != 0)
      if (!multiple_of(x, number_of(*m))) add("multipleOf", *m);
  }

  /// condValidate: not, allOf, anyOf, oneOf, if/then/else on the same value.
  void conditions(const Node& n, Errors& errs) {
    if (const Value* no = n[Keyword::Not]; no != nullptr && !validate_quietly(*no, n.v, n.where))
      errs.add(n.where, "not failed");
    if (const Value* all = n[Keyword::AllOf]; all != nullptr && all->is_list()) {
      std::vector<Problem> failed;
      for (const Value& sub : all->as_list())
        if (Outcome o = validate(sub, n.v, n.where, &errs.evaluated)) failed.push_back(*o);
      if (!failed.empty()) errs.add(n.where, "allOf failed", std::move(failed));
    }
    if (const Value* any = n[Keyword::AnyOf]; any != nullptr && any->is_list()) {
      size_t failures = 0;
      for (const Value& sub : any->as_list())
        if (validate_quietly(sub, n.v, n.where, &errs.evaluated)) ++failures;
      if (failures == any->as_list().size())
        errs.add(n.where, "anyOf failed", failures_of(n, *any));
    }
    one_of(n, errs);
    if (const Value* cond = n[Keyword::If]; cond != nullptr && n.draft >= 7) {
      const bool holds = !validate_quietly(*cond, n.v, n.where, &errs.evaluated);
      if (const Value* branch = n[holds ? Keyword::Then : Keyword::Else]; branch != nullptr)
        errs.add(validate(*branch, n.v, n.where, &errs.evaluated));
    }
  }

  /// Validating quietly: only whether the value is valid is wanted (`not`, `if`, and `anyOf`
  /// and `oneOf` until they fail), so problems are not spelled out.
  Outcome validate_quietly(const Value& schema, const Value& v, const Where& where,
                           std::set<std::string>* evaluated = nullptr) {
    ++m_quiet;
    struct Leave {
      int& quiet;
      ~Leave() { --quiet; }
    } leave{m_quiet};
    return validate(schema, v, where, evaluated);
  }

  /// The problems of each of a list of subschemas that all failed (anyOf, oneOf), spelled
  /// out: they were first found quietly. None while quiet.
  std::vector<Problem> failures_of(const Node& n, const Value& subschemas) {
    std::vector<Problem> failed;
    if (m_quiet > 0) return failed;
    for (const Value& sub : subschemas.as_list())
      if (Outcome o = validate(sub, n.v, n.where)) failed.push_back(std::move(*o));
    return failed;
  }

  /// oneOf: `none matched` over every failure, or the first two that matched.
  void one_of(const Node& n, Errors& errs) {
    const Value* one = n[Keyword::OneOf];
    if (one == nullptr || !one->is_list()) return;
    std::optional<size_t> matched;
    for (size_t i = 0; i < one->as_list().size(); ++i) {
      if (validate_quietly(one->as_list()[i], n.v, n.where, &errs.evaluated)) continue;
      if (matched) {
        errs.add(n.where, "oneOf failed, subschemas " + count_text(static_cast<double>(*matched)) +
                              ", " + count_text(static_cast<double>(i)) + " matched");
        return;
      }
      matched = i;
    }
    if (!matched) errs.add(n.where, "oneOf failed, none matched", failures_of(n, *one));
  }

  /// unevaluatedProperties and unevaluatedItems (2019-09 on): the keys or items no keyword
  /// here, nor a valid subschema in place, evaluated (v6 walks them in a Go map's random
  /// order; ours is sorted).
  void unevaluated(const Node& n, Errors& errs) {
    if (const Value* rest = n[Keyword::UnevaluatedItems];
        rest != nullptr && json_type(n.v) == JsonType::Array) {
      const List& items = n.v.as_list();
      for (size_t i = 0; i < items.size(); ++i)
        if (errs.evaluated.count(std::to_string(i)) == 0)
          errs.add(validate(*rest, items[i], item(n.where, i)));
      mark_items(errs, 0, items.size());
    }
    const Value* rest = n[Keyword::UnevaluatedProperties];
    if (rest == nullptr || json_type(n.v) != JsonType::Object) return;
    for (const auto& [key, value] : n.v.as_map())
      if (errs.evaluated.count(key) == 0) errs.add(validate(*rest, value, child(n.where, key)));
    for (const auto& [key, _] : n.v.as_map()) errs.evaluated.insert(key);
  }

  /// Go's regexp.MatchString: an unanchored search (RE2 reads Go's syntax once `(?<name>` is
  /// spelled its way; \C, which only RE2 takes, is refused).
  bool search(const std::string& pattern, const std::string& text) {
    auto it = m_regexes.find(pattern);
    if (it == m_regexes.end()) {
      RE2::Options opts;
      opts.set_log_errors(false);
      auto re = std::make_unique<RE2>(sprig::re2_syntax(pattern), opts);
      // compiling checked Go's syntax; RE2 refusing what Go takes is ours to report
      if (!re->ok())
        throw Error(ErrorCode::Input,
                    "values.schema.json: the pattern " + go_quote(pattern) +
                        " is valid in Go but RE2 cannot compile it: " + re->error());
      it = m_regexes.emplace(pattern, std::move(re)).first;
    }
    return RE2::PartialMatch(text, *it->second);
  }

  const SchemaSet& m_set;
  const SchemaNode* m_meta = nullptr;  ///< the metaschema root in force (metaschema checks)
  std::map<std::string, const SchemaNode*> m_dialects;  ///< resource pointer -> its metaschema
  std::vector<Scope> m_scopes;                          ///< innermost last
  std::map<std::string, std::unique_ptr<RE2>> m_regexes;
  int m_quiet = 0;  ///< > 0: validating quietly (validate_quietly)
};

/// roots.validate: a schema (a document, or a value a `$ref` made one) against its draft's
/// metaschema; SchemaValidationError's text when it fails.
void check_against_metaschema(SchemaSet& set, const SchemaNode& node) {
  const bool one_dialect =
      std::all_of(node.doc->resources.begin(), node.doc->resources.end(), [&](const auto& r) {
        return r.second.draft == node.resource->draft && r.second.vocabs == node.resource->vocabs;
      });
  // the standard metaschema's rules, walked (metaschema_fast.hpp): valid needs no validator
  if (one_dialect && !node.resource->vocabs && metaschema_fast_path() &&
      surely_valid_against_metaschema(*node.value, node.resource->draft))
    return;
  const SchemaNode& meta = set.metaschema(*node.resource);
  std::map<std::string, const SchemaNode*> dialects;
  for (const auto& [ptr, res] : node.doc->resources)
    if (res.draft != node.resource->draft || res.vocabs != node.resource->vocabs)
      dialects[ptr] = &set.metaschema(res);
  std::vector<Problem> problems = Validator(set, meta, std::move(dialects)).run(meta, *node.value);
  if (problems.empty()) return;
  std::string out = go_quote(node.location()) +
                    " is not valid against metaschema: jsonschema validation failed with " +
                    kind_quote(meta.location());
  for (const Problem& p : problems) display_problem(p, 1, out);
  throw SchemaCompileError(out);
}

/// Go's %T of a values node Helm finds where a subchart's table should be.
std::string go_type(const Value& v) {
  switch (v.kind()) {
    case GoKind::Bool: return "bool";
    case GoKind::Int: return "int64";
    case GoKind::Uint: return "uint64";
    case GoKind::Float: return "float64";
    case GoKind::String: return "string";
    case GoKind::Slice: return "[]interface {}";
    default: return "map[string]interface {}";
  }
}

/// ValidateAgainstSchema: the chart's problems under `NAME:`, then each subchart's against
/// its own table; a subchart without values is skipped, one whose values are not a table
/// is reported.
void validate_tree(const Chart& chart, const Map& values, const SchemaIo& io, std::string& report) {
  if (chart.has_schema) {  // Helm's `Schema != nil`: an empty file is validated (and fails)
    std::string problems = schema_problems(*chart.schema, Value::map(values), io);
    if (!problems.empty()) report += chart.name() + ":\n" + problems;
  }
  for (const ChartPtr& sub : chart.dependencies) {
    auto it = values.find(sub->name());
    if (it == values.end() || it->second.kind() == GoKind::Invalid) continue;
    if (!it->second.is_map()) {
      report += sub->name() + ":\ninvalid type for values: expected object (map), got " +
                go_type(it->second) + "\n";
      continue;
    }
    validate_tree(*sub, it->second.as_map(), io, report);
  }
}

}  // namespace

std::string schema_problems(const std::string& schema_text, const Value& values,
                            const SchemaIo& io) {
  try {
    SchemaSet set(io, check_against_metaschema);
    const SchemaNode& root = set.compile("file:///values.schema.json", schema_text);
    std::vector<Problem> problems = Validator(set).run(root, values);
    if (problems.empty()) return "";
    std::string out;
    for (const Problem& p : problems) display_problem(p, 1, out);
    return out.substr(1) + "\n";  // JSONSchemaValidationError.Error(): first line gone, "\n" on
  } catch (const SchemaCompileError& e) {
    return e.what();  // ValidateAgainstSingleSchema returns it as it is, without "\n"
  }
}

void validate_values(const Chart& chart, const Map& values, const SchemaIo& io) {
  std::string report;
  validate_tree(chart, values, io, report);
  if (report.ends_with('\n')) report.pop_back();
  if (!report.empty())
    throw Error(ErrorCode::Input,
                "values don't meet the specifications of the schema(s) in the following "
                "chart(s):\n" +
                    report);
}

}  // namespace ejob::render::helm
