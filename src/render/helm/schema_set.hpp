#pragma once
/// What jsonschema v6 (Helm >= 3.18) does before it validates anything (its Compiler): load the
/// documents a values.schema.json names, find their resources (`$id`, `id` under draft 4) and
/// anchors (`$anchor`, `$dynamicAnchor`, `#name` ids before 2019-09), resolve every `$ref`,
/// `$dynamicRef` and `$recursiveRef` against its resource's base URL, and check each document
/// (and each subschema a `$ref` points into) against its draft's metaschema. Its errors are v6's
/// texts (`json-pointer in "file:///values.schema.json#/$defs/x" not found`), which Helm prints
/// as they are.
///
/// Documents come from: the metaschemas of json-schema.org (embedded, never fetched), `file:`
/// URLs (read from disk), `http:`/`https:` (SchemaIo::fetch), `urn:` (Helm's urnLoader: a
/// warning once, then the permissive schema `true`). A custom metaschema's `$vocabulary` decides
/// which keywords apply (2019-09 on), and a subresource with a `$schema` of its own is checked
/// against its own dialect's metaschema (v6's handleMeta).

#include <array>
#include <bit>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "src/render/go/value.hpp"
#include "src/render/helm/schema.hpp"

namespace ejob::render::helm {

/// An error v6 reports while compiling; Helm prints `what()` under the chart's name.
class SchemaCompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// v6's resource: the root of a document or a subschema with its own id.
struct SchemaResource {
  std::string ptr;  ///< JSON pointer in its document
  std::string id;   ///< absolute URL, no fragment: the base of the refs inside it
  int draft = 2020;
  /// The vocabularies a custom metaschema requires (`$vocabulary`, 2019-09 on, names without
  /// the draft's prefix); none: the draft's defaults.
  std::optional<std::set<std::string>> vocabs;
  std::map<std::string, std::string> anchors;  ///< anchor -> JSON pointer in the document
  std::set<std::string> dynamic_anchors;

  /// dialect.hasVocab: whether the keywords of a vocabulary (`applicator`, `validation`,
  /// `unevaluated`, `format`, `format-assertion`…) apply here.
  bool has_vocab(std::string_view name) const;
};

/// One loaded document (v6's root).
struct SchemaDoc {
  std::string url;
  go::Value value;
  bool meta = false;  ///< a metaschema: formats asserted, never itself checked
  /// Its JSON text, for the numbers as written, which only a problem's text needs: read then
  /// (number_text). A view of the caller's text for the document compiled, else owned_text.
  std::string_view text;
  std::string owned_text;
  bool numbers_recorded = false;
  std::map<std::string, SchemaResource> resources;  ///< by pointer
  std::unordered_set<std::string> collected;        ///< pointers whose resources are known

  /// The resource a pointer lies in: the nearest enclosing one.
  const SchemaResource& resource_at(std::string_view ptr) const;
};

/// The keywords the validator reads, as bits of SchemaNode::keyword_mask.
enum class Keyword : uint8_t {
  Type,
  Const,
  Enum,
  Format,
  Required,
  MinProperties,
  MaxProperties,
  Properties,
  PatternProperties,
  AdditionalProperties,
  PropertyNames,
  Dependencies,
  DependentRequired,
  DependentSchemas,
  Items,
  PrefixItems,
  AdditionalItems,
  MinItems,
  MaxItems,
  UniqueItems,
  Contains,
  MinContains,
  MaxContains,
  MinLength,
  MaxLength,
  Pattern,
  Minimum,
  Maximum,
  ExclusiveMinimum,
  ExclusiveMaximum,
  MultipleOf,
  Not,
  AllOf,
  AnyOf,
  OneOf,
  If,
  Then,
  Else,
  DynamicRef,
  UnevaluatedItems,
  UnevaluatedProperties,
  Count
};

/// JSON Schema's type names in the order v6 prints them (`want integer or string`).
inline constexpr std::array<std::string_view, 7> k_json_types = {
    "null", "boolean", "number", "integer", "string", "array", "object"};

/// The bit of a type name in SchemaNode::type_mask; 0 for a name that is none.
unsigned json_type_bit(std::string_view name);

/// A compiled schema: where it is and what it is under.
struct SchemaNode {
  const SchemaDoc* doc = nullptr;
  std::string ptr;
  const go::Value* value = nullptr;
  const SchemaResource* resource = nullptr;
  /// Under a custom metaschema's vocabularies, the keywords of those only (v6 compiles no
  /// other); null: every keyword of `value`.
  std::shared_ptr<const go::Map> keywords;
  /// The values of the keywords above that the validator reads, found once when the node is
  /// compiled: validating looks up no keyword by name. A bit per Keyword present, and their
  /// values in Keyword order (a node has a few of the 41).
  uint64_t keyword_mask = 0;
  std::unique_ptr<const go::Value*[]> keyword_values;
  /// The types its `type` names, as bits of k_json_types (0: none, or no `type`).
  unsigned type_mask = 0;
  /// Its `properties` by name, hashed, where they are many (a metaschema's keywords): each
  /// property of each schema checked against it is looked up there.
  std::unique_ptr<const std::unordered_map<std::string_view, const go::Value*>> property_index;
  /// What its `$ref`, `$dynamicRef` and `$recursiveRef` resolve to (null: none).
  const SchemaNode* ref = nullptr;
  const SchemaNode* dynamic_ref = nullptr;
  const SchemaNode* recursive_ref = nullptr;

  int draft() const { return resource->draft; }
  /// A keyword's value; null where the node has none.
  const go::Value* get(Keyword k) const {
    const uint64_t bit = uint64_t{1} << static_cast<unsigned>(k);
    if ((keyword_mask & bit) == 0) return nullptr;
    return keyword_values[static_cast<size_t>(std::popcount(keyword_mask & (bit - 1)))];
  }
  /// v6's Schema.Location: `URL#POINTER`, the pointer path-escaped.
  std::string location() const;
};

class SchemaSet;

/// Checks one subschema against its dialect's metaschema; throws SchemaCompileError.
using MetaCheck = std::function<void(SchemaSet& set, const SchemaNode& node)>;

/// The compiled schemas of one values.schema.json and of everything it references.
class SchemaSet {
 public:
  SchemaSet(SchemaIo io, MetaCheck check);
  SchemaSet(const SchemaSet&) = delete;
  SchemaSet& operator=(const SchemaSet&) = delete;

  /// UnmarshalJSON + AddResource + Compile: the document at `url` and every schema reachable
  /// from it.
  const SchemaNode& compile(const std::string& url, const std::string& text);
  /// The metaschema root of a draft (4, 6, 7, 2019, 2020): compiled once per process and
  /// shared by every set (the lookups below also answer for its schemas).
  const SchemaNode& metaschema(int draft);
  /// dialect.getSchema: the draft's metaschema, or for a custom metaschema's vocabularies the
  /// allOf of theirs (`urn:mem:metaschema`).
  const SchemaNode& metaschema(const SchemaResource& dialect);

  /// The node of a compiled schema value; nullptr for a value that is not one.
  const SchemaNode* node(const go::Value& schema) const;
  /// Whether a schema compiled here or in the metaschemas in use has `unevaluatedItems` or
  /// `unevaluatedProperties` (2019-09 on): only then must validating track what it evaluated.
  bool uses_unevaluated() const;
  /// How a number of a document was written, when it came from JSON text.
  const std::string* number_text(const go::Value& v) const;
  /// The compiled node at a pointer of a document, if any.
  const SchemaNode* at(const SchemaDoc& doc, const std::string& ptr) const;
  /// The node at an anchor of a resource (a $dynamicAnchor's schema), if compiled.
  const SchemaNode* anchored(const SchemaResource& res, const SchemaDoc& doc,
                             const std::string& anchor) const;

 private:
  static const SchemaSet& shared_metaschema(int draft);
  template <typename Lookup>
  auto here_or_shared(Lookup lookup) const -> decltype(lookup(*this));
  SchemaDoc& load(const std::string& url);
  std::optional<std::string> document_text(const std::string& url);
  void warn_urn(const std::string& url);
  SchemaDoc& add_doc(const std::string& url, go::Value value, std::string_view text,
                     std::string owned_text = {});
  void collect(SchemaDoc& doc, const go::Value& v, std::string base, const std::string& ptr,
               const SchemaResource& fallback);
  std::optional<std::set<std::string>> vocabularies(const std::string& schema, int draft);
  void collect_anchors(SchemaDoc& doc, const go::Map& obj, const std::string& ptr,
                       SchemaResource& res);
  int draft_of(const SchemaDoc& doc, const std::string& ptr, const go::Map& obj, int fallback);
  std::pair<SchemaDoc*, std::string> resolve(SchemaDoc& doc, const std::string& ptr,
                                             const std::string& ref);
  const SchemaNode& enqueue(SchemaDoc& doc, const std::string& ptr);
  void compile_queue();
  void compile_node(SchemaNode& node);
  struct Keywords;
  void index_keywords(SchemaNode& node, const go::Map& obj);
  void compile_keywords(SchemaNode& node, const go::Map& obj);
  void check_regexes(const SchemaNode& node, const go::Map& obj, std::string_view keyword);
  void ensure_subschema(SchemaDoc& doc, const std::string& ptr);

  SchemaIo m_io;
  MetaCheck m_check;
  std::map<std::string, std::unique_ptr<SchemaDoc>> m_docs;
  /// A node's document and pointer, hashed (pointers share long prefixes: a tree compares
  /// them over and over).
  struct NodeKeyHash {
    size_t operator()(const std::pair<const SchemaDoc*, std::string>& k) const {
      return std::hash<std::string>()(k.second) ^ std::hash<const void*>()(k.first);
    }
  };
  std::unordered_map<std::pair<const SchemaDoc*, std::string>, std::unique_ptr<SchemaNode>,
                     NodeKeyHash>
      m_nodes;
  std::unordered_map<const go::Value*, const SchemaNode*> m_by_value;
  size_t m_unevaluated = 0;  ///< nodes with an unevaluated keyword in force
  std::deque<SchemaNode*> m_queue;
  /// Numbers as written, recorded from the documents' texts when first asked for.
  mutable std::unordered_map<const go::Value*, std::string> m_numbers;
  mutable std::mutex m_numbers_lock;       ///< the metaschema sets are shared between threads
  std::vector<const SchemaSet*> m_shared;  ///< the shared metaschema sets in use
};

/// jsonschema.UnmarshalJSON: a json.Decoder's first value (`unexpected EOF` where Unmarshal
/// says `unexpected end of JSON input`), and nothing after it; throws SchemaCompileError.
go::Value decode_document(std::string_view text);

/// v6's url.join: `ref` resolved against the absolute `base` as Go's URL.ResolveReference does
/// (RFC 3986 with Go's dot-segment rules), fragment split off and percent-decoded.
struct UrlFrag {
  std::string url;
  std::string frag;
};
UrlFrag join_url(const std::string& base, const std::string& ref);

/// Go's url.PathEscape of each `/`-separated token (v6's encode): how locations print.
std::string encode_fragment(std::string_view frag);

}  // namespace ejob::render::helm
