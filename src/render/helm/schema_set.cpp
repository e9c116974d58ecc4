#include "src/render/helm/schema_set.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>

#include "src/render/go/fmt.hpp"
#include "src/render/go/json.hpp"
#include "src/render/go/url.hpp"
#include "src/render/helm/metaschemas.hpp"
#include "src/render/sprig/regex.hpp"
#include "src/util/once.hpp"

namespace ejob::render::helm {

using go::go_quote;
using go::List;
using go::Map;
using go::Value;

namespace {

/// A draft v6 knows: its version, its metaschema's URL and the keyword of its ids.
struct Draft {
  int version;
  std::string_view url;
  std::string_view id;
};

constexpr std::array<Draft, 5> k_drafts = {{
    {4, "http://json-schema.org/draft-04/schema", "id"},
    {6, "http://json-schema.org/draft-06/schema", "$id"},
    {7, "http://json-schema.org/draft-07/schema", "$id"},
    {2019, "https://json-schema.org/draft/2019-09/schema", "$id"},
    {2020, "https://json-schema.org/draft/2020-12/schema", "$id"},
}};

const Draft& draft_info(int version) {
  for (const Draft& d : k_drafts)
    if (d.version == version) return d;
  return k_drafts.back();
}

std::pair<std::string, std::string> split_hash(std::string_view s) {
  const size_t hash = s.find('#');
  if (hash == std::string_view::npos) return {std::string(s), ""};
  return {std::string(s.substr(0, hash)), std::string(s.substr(hash + 1))};
}

std::string_view without_http(std::string_view u) {
  if (u.starts_with("http://")) return u.substr(7);
  if (u.starts_with("https://")) return u.substr(8);
  return u;
}

/// draftFromURL: the draft a `$schema` names; 0 for any other URL (it is loaded instead).
int draft_from_url(std::string_view url) {
  auto [u, frag] = split_hash(url);
  if (!frag.empty()) return 0;
  const std::string_view path = without_http(u);
  if (path == "json-schema.org/schema") return 2020;
  for (const Draft& d : k_drafts)
    if (path == without_http(d.url)) return d.version;
  return 0;
}

/// The vocabulary of a 2019-09/2020-12 keyword that only applies with it ("" for those that
/// always do: core keywords, annotations).
std::string_view vocabulary_of(std::string_view keyword, int draft) {
  static const std::set<std::string_view> k_applicator = {"prefixItems",
                                                          "items",
                                                          "contains",
                                                          "additionalProperties",
                                                          "properties",
                                                          "patternProperties",
                                                          "dependentSchemas",
                                                          "propertyNames",
                                                          "if",
                                                          "then",
                                                          "else",
                                                          "allOf",
                                                          "anyOf",
                                                          "oneOf",
                                                          "not",
                                                          "additionalItems",
                                                          "dependencies"};
  static const std::set<std::string_view> k_validation = {"type",          "enum",
                                                          "const",         "multipleOf",
                                                          "maximum",       "exclusiveMaximum",
                                                          "minimum",       "exclusiveMinimum",
                                                          "maxLength",     "minLength",
                                                          "pattern",       "maxItems",
                                                          "minItems",      "uniqueItems",
                                                          "maxContains",   "minContains",
                                                          "maxProperties", "minProperties",
                                                          "required",      "dependentRequired"};
  if (keyword == "unevaluatedItems" || keyword == "unevaluatedProperties")
    return draft == 2019 ? "applicator" : "unevaluated";
  if (k_applicator.count(keyword) > 0) return "applicator";
  if (k_validation.count(keyword) > 0) return "validation";
  return "";
}

/// A schema object less the keywords of the vocabularies its resource does not have.
Map keywords_of(const Map& obj, const SchemaResource& res) {
  Map out;
  for (const auto& [key, value] : obj) {
    std::string_view vocab = vocabulary_of(key, res.draft);
    if (vocab.empty() || res.has_vocab(vocab)) out.emplace(key, value);
  }
  return out;
}

/// A keyword position that holds subschemas: the value itself, each of an object's values
/// (`*`) or each of an array's items (`[]`).
struct Position {
  std::string_view keyword;
  char kind;  ///< ' ', '*' or '['
  int since;  ///< the first draft that has it
};

constexpr std::array<Position, 22> k_positions = {{
    {"definitions", '*', 4},
    {"not", ' ', 4},
    {"allOf", '[', 4},
    {"anyOf", '[', 4},
    {"oneOf", '[', 4},
    {"properties", '*', 4},
    {"additionalProperties", ' ', 4},
    {"patternProperties", '*', 4},
    {"items", ' ', 4},
    {"items", '[', 4},
    {"additionalItems", ' ', 4},
    {"dependencies", '*', 4},
    {"propertyNames", ' ', 6},
    {"contains", ' ', 6},
    {"if", ' ', 7},
    {"then", ' ', 7},
    {"else", ' ', 7},
    {"$defs", '*', 2019},
    {"dependentSchemas", '*', 2019},
    {"unevaluatedProperties", ' ', 2019},
    {"unevaluatedItems", ' ', 2019},
    {"contentSchema", ' ', 2019},
}};

std::string escape_token(std::string_view tok) {
  std::string out;
  out.reserve(tok.size());
  for (char c : tok) {
    if (c == '~' || c == '/') {
      out += '~';
      out += c == '~' ? '0' : '1';
    } else {
      out += c;
    }
  }
  return out;
}

/// The positions (bits of k_positions) whose keyword `obj` has: one pass over its keys, where
/// looking each position up would search the map 22 times for every subschema.
uint32_t positions_present(const Map& obj) {
  static const std::unordered_map<std::string_view, uint32_t> k_bits = [] {
    std::unordered_map<std::string_view, uint32_t> bits;
    for (size_t i = 0; i < k_positions.size(); ++i) bits[k_positions[i].keyword] |= 1U << i;
    return bits;
  }();
  uint32_t present = 0;
  for (const auto& [key, _] : obj)
    if (auto it = k_bits.find(key); it != k_bits.end()) present |= it->second;
  return present;
}

/// Each subschema of `obj` at `ptr` under `draft`, with its pointer (Go walks a map at random;
/// the order here is the keywords' and then the names').
std::vector<std::pair<std::string, const Value*>> subschemas(const Map& obj, const std::string& ptr,
                                                             int draft) {
  std::vector<std::pair<std::string, const Value*>> out;
  auto at = [&](std::string_view k) { return ptr + "/" + escape_token(k); };
  const uint32_t present = positions_present(obj);
  for (size_t i = 0; i < k_positions.size(); ++i) {
    const Position& p = k_positions[i];
    if (draft < p.since || (present & (1U << i)) == 0) continue;
    auto it = obj.find(p.keyword);
    if (it == obj.end()) continue;
    const Value& v = it->second;
    if (p.kind == ' ') out.emplace_back(at(p.keyword), &v);
    if (p.kind == '*' && v.is_map())
      for (const auto& [name, sub] : v.as_map())
        out.emplace_back(at(p.keyword) + "/" + escape_token(name), &sub);
    if (p.kind == '[' && v.is_list())
      for (size_t i = 0; i < v.as_list().size(); ++i)
        out.emplace_back(at(p.keyword) + "/" + std::to_string(i), &v.as_list()[i]);
  }
  if (draft >= 2020)
    if (auto it = obj.find("prefixItems"); it != obj.end() && it->second.is_list())
      for (size_t i = 0; i < it->second.as_list().size(); ++i)
        out.emplace_back(at("prefixItems") + "/" + std::to_string(i), &it->second.as_list()[i]);
  return out;
}

const std::string* string_at(const Map& obj, std::string_view key) {
  auto it = obj.find(key);
  return it != obj.end() && it->second.is_string() ? &it->second.as_string() : nullptr;
}

/// Draft.getID: the id of a schema object without its fragment ("" for none; before 2019-09
/// an object with `$ref` has none).
std::string id_of(const Map& obj, int draft) {
  if (draft < 2019 && obj.count("$ref") > 0) return "";
  const std::string* id = string_at(obj, draft_info(draft).id);
  return id == nullptr ? "" : split_hash(*id).first;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/// url.PathUnescape; throws v6's ParseURLError text for a bad escape.
std::string path_unescape(const std::string& s, const std::string& whole) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '%') {
      out += s[i];
      continue;
    }
    const bool complete = i + 2 < s.size();
    const int hi = complete ? hex_value(s[i + 1]) : -1;
    const int lo = complete ? hex_value(s[i + 2]) : -1;
    if (hi < 0 || lo < 0) {
      std::string bad = s.substr(i, std::min<size_t>(3, s.size() - i));
      throw SchemaCompileError("error in parsing " + go_quote(whole) + ": invalid URL escape " +
                               go_quote(bad));
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

/// Go's resolvePath: the merged path with `.` and `..` segments removed.
std::string resolve_path(const std::string& base, const std::string& ref) {
  std::string full;
  if (ref.empty()) {
    full = base;
  } else if (ref[0] != '/') {
    const size_t i = base.rfind('/');
    full = (i == std::string::npos ? "" : base.substr(0, i + 1)) + ref;
  } else {
    full = ref;
  }
  if (full.empty()) return "";
  std::vector<std::string> out;
  std::string elem;
  size_t start = 0;
  bool more = true;
  while (more) {
    const size_t slash = full.find('/', start);
    more = slash != std::string::npos;
    elem = full.substr(start, more ? slash - start : std::string::npos);
    start = slash + 1;
    if (elem == ".") continue;
    if (elem == "..") {
      if (!out.empty()) out.pop_back();
      continue;
    }
    out.push_back(elem);
  }
  std::string r;
  for (size_t i = 0; i < out.size(); ++i) r += (i == 0 ? "" : "/") + out[i];
  if (elem == "." || elem == "..") r += '/';
  if (r.empty() || r[0] != '/') r.insert(r.begin(), '/');
  if (r.size() > 1 && r[1] == '/') r.erase(r.begin());
  return r;
}

/// A URL's parts as Go's url.Parse splits them (enough for reference resolution).
struct UrlParts {
  std::string scheme;
  bool has_authority = false;
  std::string authority;
  std::string path;
  std::string query;
  bool has_query = false;
  bool opaque = false;  ///< `urn:x:y`: a scheme and a path without a leading `/`
};

UrlParts split_url(const std::string& s) {
  UrlParts u;
  std::string rest = s;
  const size_t colon = s.find(':');
  if (colon != std::string::npos && colon > 0 && std::isalpha(static_cast<unsigned char>(s[0])) &&
      s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.") ==
          colon) {
    u.scheme = s.substr(0, colon);
    rest = s.substr(colon + 1);
  }
  if (const size_t q = rest.find('?'); q != std::string::npos) {
    u.has_query = true;
    u.query = rest.substr(q + 1);
    rest.resize(q);
  }
  if (rest.starts_with("//")) {
    u.has_authority = true;
    const size_t slash = rest.find('/', 2);
    u.authority = rest.substr(2, slash == std::string::npos ? slash : slash - 2);
    rest = slash == std::string::npos ? "" : rest.substr(slash);
  } else if (!u.scheme.empty() && !rest.starts_with("/")) {
    u.opaque = true;
  }
  u.path = rest;
  return u;
}

std::string join_parts(const UrlParts& u) {
  std::string out = u.scheme.empty() ? "" : u.scheme + ":";
  if (u.has_authority ||
      (!u.scheme.empty() && !u.opaque && u.path.starts_with("/") && u.scheme == "file"))
    out += "//" + u.authority;
  out += u.path;
  if (u.has_query) out += "?" + u.query;
  return out;
}

/// URL.ResolveReference (with v6's fix for an opaque base).
std::string resolve_reference(const std::string& base, const std::string& ref) {
  const UrlParts b = split_url(base);
  UrlParts r = split_url(ref);
  if (!r.scheme.empty() || r.has_authority) {
    if (r.scheme.empty()) r.scheme = b.scheme;
    if (!r.opaque) r.path = resolve_path(r.path, "");
    return join_parts(r);
  }
  if (b.opaque) {  // v6 keeps an opaque base (`urn:x:y?q`) for a same-document reference
    const bool own_query = r.has_query || !r.path.empty();
    return b.scheme + ":" + b.path +
           (own_query ? (r.has_query ? "?" + r.query : "") : (b.has_query ? "?" + b.query : ""));
  }
  UrlParts u = b;
  u.has_query = r.has_query;
  u.query = r.query;
  if (r.path.empty() && !r.has_query) u.has_query = b.has_query, u.query = b.query;
  u.path = resolve_path(b.path, r.path);
  if (r.path.empty()) u.path = b.path;
  return join_parts(u);
}

/// The value a JSON pointer names in a document; nullptr where it names nothing. Throws v6's
/// InvalidJsonPointerError for a token with a bad `~` escape.
const Value* lookup(const SchemaDoc& doc, const std::string& ptr) {
  const Value* cur = &doc.value;
  size_t start = 1;
  std::string unescaped;
  while (cur != nullptr && start <= ptr.size() && !ptr.empty()) {
    const size_t slash = ptr.find('/', start);
    const std::string_view raw =
        std::string_view(ptr).substr(start, slash == std::string::npos ? slash : slash - start);
    std::string_view tok = raw;
    if (raw.find('~') != std::string_view::npos) {
      unescaped.clear();
      for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '~') {
          unescaped += raw[i];
        } else if (i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
          unescaped += raw[++i] == '0' ? '~' : '/';
        } else {
          throw SchemaCompileError("invalid json-pointer " +
                                   go_quote(doc.url + "#" + encode_fragment(ptr)));
        }
      }
      tok = unescaped;
    }
    if (cur->is_map()) {
      auto it = cur->as_map().find(tok);
      cur = it == cur->as_map().end() ? nullptr : &it->second;
    } else if (cur->is_list() && !tok.empty() &&
               tok.find_first_not_of("0123456789") == std::string::npos && tok.size() < 10 &&
               std::stoul(std::string(tok)) < cur->as_list().size()) {
      cur = &cur->as_list()[std::stoul(std::string(tok))];
    } else {
      cur = nullptr;
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return cur;
}

/// Records the text of each number of a (valid) JSON text against the Value it decoded into
/// (a later duplicate key replaces an earlier one, as in the decoder): v6 keeps numbers as
/// json.Number and prints an enum's or const's as written (`1.0`, `1e3`).
class NumberTexts {
 public:
  NumberTexts(std::string_view text, std::unordered_map<const Value*, std::string>& out)
      : m_text(text), m_out(out) {}

  void value(const Value* v) {
    space();
    const char c = m_text[m_at];
    if (c == '{') return object(v);
    if (c == '[') return array(v);
    if (c == '"') return skip_string();
    const size_t start = m_at;
    while (m_at < m_text.size() && in_literal(m_text[m_at])) ++m_at;
    if ((c == '-' || std::isdigit(static_cast<unsigned char>(c))) && v != nullptr)
      m_out[v] = std::string(m_text.substr(start, m_at - start));
  }

 private:
  void object(const Value* v) {
    ++m_at;
    for (space(); m_text[m_at] != '}'; space()) {
      const size_t start = m_at;
      skip_string();
      const std::string key = decode_key(m_text.substr(start, m_at - start));
      space();
      ++m_at;  // ':'
      const Value* child = nullptr;
      if (v != nullptr && v->is_map())
        if (auto it = v->as_map().find(key); it != v->as_map().end()) child = &it->second;
      value(child);
      space();
      if (m_text[m_at] == ',') ++m_at;
    }
    ++m_at;
  }

  void array(const Value* v) {
    ++m_at;
    size_t i = 0;
    for (space(); m_text[m_at] != ']'; space(), ++i) {
      const bool has = v != nullptr && v->is_list() && i < v->as_list().size();
      value(has ? &v->as_list()[i] : nullptr);
      space();
      if (m_text[m_at] == ',') ++m_at;
    }
    ++m_at;
  }

  /// A key as the decoder read it; the decoder itself only for escapes and non-ASCII text,
  /// which it may rewrite (invalid UTF-8 becomes U+FFFD).
  static std::string decode_key(std::string_view quoted) {
    const std::string_view inner = quoted.substr(1, quoted.size() - 2);
    if (std::all_of(inner.begin(), inner.end(),
                    [](char c) { return c != '\\' && static_cast<unsigned char>(c) < 0x80; }))
      return std::string(inner);
    const Value key = go::json::unmarshal(quoted).value;
    return key.is_string() ? key.as_string() : std::string();
  }

  void skip_string() {
    for (++m_at; m_text[m_at] != '"'; ++m_at)
      if (m_text[m_at] == '\\') ++m_at;
    ++m_at;
  }

  /// A character of a number, `true`, `false` or `null`.
  static bool in_literal(char c) {
    return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E' ||
           c == 't' || c == 'r' || c == 'u' || c == 'f' || c == 'a' || c == 'l' || c == 's' ||
           c == 'n';
  }

  void space() {
    while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t' ||
                                    m_text[m_at] == '\r' || m_text[m_at] == '\n'))
      ++m_at;
  }

  std::string_view m_text;
  size_t m_at = 0;
  std::unordered_map<const Value*, std::string>& m_out;
};

std::string read_file_url(const std::string& url) {
  const UrlParts u = split_url(url);
  const std::string path = path_unescape(u.path, url);
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::string why = std::strerror(errno);  // Go spells syscall errors in lower case
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    throw std::runtime_error("open " + path + ": " + why);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

namespace metaschemas {

std::optional<std::string_view> metaschema_text(std::string_view url) {
  if (!url.starts_with("http://json-schema.org/") && !url.starts_with("https://json-schema.org/"))
    return std::nullopt;
  std::string path(without_http(url).substr(std::string_view("json-schema.org/").size()));
  if (path == "schema") path = "draft/2020-12/schema";
  for (size_t i = 0; i < k_embedded_count; ++i)
    if (k_embedded[i].path == "metaschemas/" + path) return k_embedded[i].data;
  return std::nullopt;
}

}  // namespace metaschemas

Value decode_document(std::string_view text) {
  go::json::Decoded d = go::json::unmarshal(text);
  if (d.error == "unexpected end of JSON input") {
    const bool blank = text.find_first_not_of(" \t\r\n") == std::string_view::npos;
    throw SchemaCompileError(blank ? "EOF" : "unexpected EOF");
  }
  if (d.error.find("after top-level value") != std::string::npos)
    throw SchemaCompileError("invalid character after top-level value");
  if (!d.error.empty()) throw SchemaCompileError(d.error);
  return std::move(d.value);
}

UrlFrag join_url(const std::string& base, const std::string& ref) {
  auto [u, frag] = split_hash(ref);
  std::string decoded = path_unescape(frag, ref);
  if (std::string why; !go::parse_url(u, &why))
    throw SchemaCompileError("error in parsing " + go_quote(u) + ": " + why);
  return UrlFrag{resolve_reference(base, u), std::move(decoded)};
}

std::string encode_fragment(std::string_view frag) {
  static constexpr std::string_view k_keep =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~$&+=:@/";
  std::string out;
  for (unsigned char c : frag) {
    if (k_keep.find(static_cast<char>(c)) != std::string_view::npos) {
      out += static_cast<char>(c);
    } else {
      static constexpr char k_hex[] = "0123456789ABCDEF";
      out += '%';
      out += k_hex[c >> 4];
      out += k_hex[c & 15];
    }
  }
  return out;
}

const SchemaResource& SchemaDoc::resource_at(std::string_view ptr) const {
  if (resources.size() <= 8) {  // most documents: the longest enclosing pointer, in one pass
    const SchemaResource* nearest = nullptr;
    size_t nearest_size = 0;
    for (const auto& [at, res] : resources) {
      const bool encloses =
          ptr.starts_with(at) && (ptr.size() == at.size() || ptr[at.size()] == '/');
      if (encloses && (nearest == nullptr || at.size() >= nearest_size)) {
        nearest = &res;
        nearest_size = at.size();
      }
    }
    if (nearest != nullptr) return *nearest;
  }
  while (true) {
    if (auto it = resources.find(std::string(ptr)); it != resources.end()) return it->second;
    const size_t slash = ptr.rfind('/');
    if (slash == std::string_view::npos) break;
    ptr = ptr.substr(0, slash);
  }
  return resources.at("");
}

std::string SchemaNode::location() const { return doc->url + "#" + encode_fragment(ptr); }

SchemaSet::SchemaSet(SchemaIo io, MetaCheck check)
    : m_io(std::move(io)), m_check(std::move(check)) {}

/// The first answer of `lookup` from this set, else from the shared metaschema sets it uses.
template <typename Lookup>
auto SchemaSet::here_or_shared(Lookup lookup) const -> decltype(lookup(*this)) {
  if (auto found = lookup(*this)) return found;
  for (const SchemaSet* shared : m_shared)
    if (auto found = lookup(*shared)) return found;
  return nullptr;
}

const SchemaNode* SchemaSet::node(const Value& schema) const {
  return here_or_shared([&](const SchemaSet& set) -> const SchemaNode* {
    auto it = set.m_by_value.find(&schema);
    return it == set.m_by_value.end() ? nullptr : it->second;
  });
}

unsigned json_type_bit(std::string_view name) {
  auto it = std::find(k_json_types.begin(), k_json_types.end(), name);
  return it == k_json_types.end() ? 0U : 1U << (it - k_json_types.begin());
}

bool SchemaSet::uses_unevaluated() const {
  return m_unevaluated > 0 || std::any_of(m_shared.begin(), m_shared.end(),
                                          [](const auto* set) { return set->m_unevaluated > 0; });
}

const std::string* SchemaSet::number_text(const Value& v) const {
  return here_or_shared([&](const SchemaSet& set) -> const std::string* {
    const std::lock_guard<std::mutex> hold(set.m_numbers_lock);
    for (const auto& [url, doc] : set.m_docs) {
      if (doc->numbers_recorded || doc->text.empty()) continue;
      NumberTexts(doc->text, set.m_numbers).value(&doc->value);
      doc->numbers_recorded = true;
    }
    auto it = set.m_numbers.find(&v);
    return it == set.m_numbers.end() ? nullptr : &it->second;
  });
}

const SchemaNode* SchemaSet::at(const SchemaDoc& doc, const std::string& ptr) const {
  return here_or_shared([&](const SchemaSet& set) -> const SchemaNode* {
    auto it = set.m_nodes.find({&doc, ptr});
    return it == set.m_nodes.end() ? nullptr : it->second.get();
  });
}

const SchemaNode* SchemaSet::anchored(const SchemaResource& res, const SchemaDoc& doc,
                                      const std::string& anchor) const {
  auto a = res.anchors.find(anchor);
  return a == res.anchors.end() ? nullptr : at(doc, a->second);
}

const SchemaNode& SchemaSet::compile(const std::string& url, const std::string& text) {
  SchemaDoc& d = add_doc(url, decode_document(text), text);
  const SchemaNode& root = enqueue(d, "");
  compile_queue();
  return root;
}

const SchemaNode& SchemaSet::metaschema(int draft) {
  const SchemaSet& shared = shared_metaschema(draft);
  if (std::find(m_shared.begin(), m_shared.end(), &shared) == m_shared.end())
    m_shared.push_back(&shared);
  const std::string url(draft_info(draft).url);
  return *shared.at(*shared.m_docs.at(url), "");
}

/// A draft's metaschema compiled once per process, then read only: v6 compiles the drafts at
/// start, so that each values.schema.json pays only for its own check.
const SchemaSet& SchemaSet::shared_metaschema(int draft) {
  static std::array<Once, k_drafts.size()> once;
  static std::array<std::unique_ptr<SchemaSet>, k_drafts.size()> sets;
  size_t i = 0;
  while (i + 1 < k_drafts.size() && k_drafts[i].version != draft) ++i;
  once[i].run([&] {
    auto set = std::make_unique<SchemaSet>(SchemaIo{}, MetaCheck{});
    set->enqueue(set->load(std::string(k_drafts[i].url)), "");
    set->compile_queue();
    sets[i] = std::move(set);
  });
  return *sets[i];
}

/// getMetaVocabs: the vocabularies a custom metaschema requires in its `$vocabulary` (drafts
/// 2019-09 on); none for a draft's own metaschema or one that lists none. A required vocabulary
/// v6 does not know is an error (Helm registers none of its own).
std::optional<std::set<std::string>> SchemaSet::vocabularies(const std::string& schema, int draft) {
  if (draft_from_url(schema) != 0 || draft < 2019) return std::nullopt;
  const std::string url = split_hash(schema).first;
  const SchemaDoc& meta = load(url);
  const Value* listed = nullptr;
  if (meta.value.is_map())
    if (auto it = meta.value.as_map().find("$vocabulary"); it != meta.value.as_map().end())
      listed = &it->second;
  if (listed == nullptr || !listed->is_map()) return std::nullopt;
  const std::string prefix = draft == 2019 ? "https://json-schema.org/draft/2019-09/vocab/"
                                           : "https://json-schema.org/draft/2020-12/vocab/";
  static const std::set<std::string> k_known2019 = {"core",      "applicator", "validation",
                                                    "meta-data", "format",     "content"};
  static const std::set<std::string> k_known2020 = {
      "core",      "applicator",        "unevaluated",      "validation",
      "meta-data", "format-annotation", "format-assertion", "content"};
  const auto& known = draft == 2019 ? k_known2019 : k_known2020;
  std::set<std::string> out;
  for (const auto& [vocab, required] : listed->as_map()) {
    if (!required.is_bool() || !required.as_bool()) continue;
    const std::string name = vocab.starts_with(prefix) ? vocab.substr(prefix.size()) : "";
    if (known.count(name) == 0)
      throw SchemaCompileError("unsupported vocabulary " + go_quote(vocab) + " in " +
                               go_quote(url));
    out.insert(name);
  }
  out.insert("core");
  return out;
}

bool SchemaResource::has_vocab(std::string_view name) const {
  if (name == "core" || draft < 2019) return true;
  if (vocabs) return vocabs->count(std::string(name)) > 0;
  if (draft == 2019) return name == "applicator" || name == "validation";
  return name == "applicator" || name == "unevaluated" || name == "validation";
}

/// Helm's urnLoader: nothing resolves URNs, so it logs once per URN and process (Go's log
/// with Helm's Lshortfile flag: the file and line of the call) and accepts anything.
void SchemaSet::warn_urn(const std::string& url) {
  static std::mutex lock;
  static std::set<std::string> warned;
  const std::lock_guard<std::mutex> hold(lock);
  if (warned.insert(url).second && m_io.warn)
    m_io.warn(
        "jsonschema.go:192: WARNING: unresolved URN reference ignored; using permissive "
        "schema: " +
        url);
}

const SchemaNode& SchemaSet::metaschema(const SchemaResource& dialect) {
  if (!dialect.vocabs) return metaschema(dialect.draft);
  // an allOf of the vocabularies' own metaschemas, core among them, as v6 builds it
  const std::string draft_url(draft_info(dialect.draft).url);
  const std::string meta_dir = draft_url.substr(0, draft_url.size() - 6) + "meta/";
  std::string key = "urn:mem:metaschema";
  List all;
  for (const std::string& vocab : *dialect.vocabs) {
    key += " " + vocab;
    all.push_back(Value::map(Map{{"$ref", Value::string(meta_dir + vocab)}}));
  }
  auto it = m_docs.find(key);
  if (it == m_docs.end()) {
    Map meta{{"$schema", Value::string(draft_url)}, {"allOf", Value::list(std::move(all))}};
    if (dialect.draft >= 2020) meta.emplace("$dynamicAnchor", Value::string("meta"));
    auto doc = std::make_unique<SchemaDoc>();
    doc->url = "urn:mem:metaschema";
    doc->value = Value::map(std::move(meta));
    doc->meta = true;
    collect(*doc, doc->value, doc->url, "", SchemaResource{});
    it = m_docs.emplace(key, std::move(doc)).first;
  }
  const SchemaNode& root = enqueue(*it->second, "");
  compile_queue();
  return root;
}

/// defaultLoader.load + addRoot: a document by URL, loaded once.
SchemaDoc& SchemaSet::load(const std::string& url) {
  if (auto it = m_docs.find(url); it != m_docs.end()) return *it->second;
  std::optional<std::string> text;
  Value value = Value::boolean(true);  // what Helm's urnLoader answers
  try {
    text = document_text(url);
    if (text) value = decode_document(*text);
  } catch (const std::exception& e) {
    throw SchemaCompileError("failing loading " + go_quote(url) + ": " + e.what());
  }
  std::string owned = text.value_or("");
  return add_doc(url, std::move(value), owned, std::move(owned));
}

/// SchemeURLLoader with Helm's loaders: the text of a document, or none for a `urn:` (Helm's
/// urnLoader resolves nothing and answers `true`). Throws the loader's error.
std::optional<std::string> SchemaSet::document_text(const std::string& url) {
  if (auto meta = metaschemas::metaschema_text(url)) return std::string(*meta);
  const std::string scheme = split_url(url).scheme;
  if (scheme == "file") return read_file_url(url);
  if (scheme == "http" || scheme == "https") {
    if (!m_io.fetch) throw std::runtime_error("HTTP request failed for " + url + ": no network");
    return m_io.fetch(url);
  }
  if (scheme != "urn") throw std::runtime_error("no URLLoader registered for " + go_quote(url));
  warn_urn(url);
  return std::nullopt;
}

/// roots.addRoot: resources and anchors collected, then the document checked against its
/// metaschema (a metaschema itself is not).
SchemaDoc& SchemaSet::add_doc(const std::string& url, Value value, std::string_view text,
                              std::string owned_text) {
  auto doc = std::make_unique<SchemaDoc>();
  doc->url = url;
  doc->value = std::move(value);
  doc->owned_text = std::move(owned_text);
  doc->text = doc->owned_text.empty() ? text : doc->owned_text;
  doc->meta = metaschemas::metaschema_text(url).has_value();
  // v6 finds no root resource in a document that is neither an object nor a boolean and
  // dereferences nil; Helm recovers the panic into this text
  if (!doc->value.is_map() && !doc->value.is_bool())
    throw SchemaCompileError(
        "unable to validate schema: runtime error: invalid memory address or nil pointer "
        "dereference");
  SchemaDoc& d = *doc;
  m_docs[url] = std::move(doc);
  try {
    collect(d, d.value, url, "", SchemaResource{});
  } catch (...) {
    m_docs.erase(url);
    throw;
  }
  if (!d.meta) {
    SchemaNode root{&d, "", &d.value, &d.resource_at("")};
    m_check(*this, root);
  }
  return d;
}

/// loader.getDraft: the draft of a schema object from its `$schema`, following a custom
/// metaschema's own `$schema` to a draft v6 knows.
int SchemaSet::draft_of(const SchemaDoc& doc, const std::string& ptr, const Map& obj,
                        int fallback) {
  const std::string* schema = string_at(obj, "$schema");
  std::set<std::string> seen;
  std::string at = doc.url;
  std::string at_ptr = ptr;
  while (schema != nullptr) {
    if (int d = draft_from_url(*schema)) return d;
    const std::string url = split_hash(*schema).first;
    if (std::string why; !go::parse_url(url, &why))
      throw SchemaCompileError("invalid $schema in " +
                               go_quote(at + "#" + encode_fragment(at_ptr)) + ": " + why);
    if (at_ptr.empty() && url == at)
      throw SchemaCompileError("draft " + go_quote(url) + " is not supported");
    if (!seen.insert(url).second)
      throw SchemaCompileError("cycle in resolving $schema in " + go_quote(url));
    const SchemaDoc& meta = load(url);
    if (!meta.value.is_map()) return fallback;
    schema = string_at(meta.value.as_map(), "$schema");
    at = url;
    at_ptr.clear();
  }
  return fallback;
}

/// roots._collectResources: the resources and anchors under one subschema position.
void SchemaSet::collect(SchemaDoc& doc, const Value& v, std::string base, const std::string& ptr,
                        const SchemaResource& fallback) {
  if (!doc.collected.insert(ptr).second) return;
  if (v.is_bool() && ptr.empty())
    doc.resources[""] = SchemaResource{"", base, fallback.draft, fallback.vocabs, {}, {}};
  if (!v.is_map()) return;
  const Map& obj = v.as_map();
  const std::string* schema = string_at(obj, "$schema");
  int draft = draft_of(doc, ptr, obj, fallback.draft);
  std::string id = id_of(obj, draft);
  bool own_schema = schema != nullptr;
  if (id.empty() && !ptr.empty()) {
    draft = fallback.draft;  // a `$schema` counts only at a resource's root
    own_schema = false;
    id = id_of(obj, draft);
  }
  if (!id.empty() || ptr.empty()) {
    try {
      if (!id.empty()) base = join_url(base, id).url;
    } catch (const SchemaCompileError&) {
      throw SchemaCompileError("error in parsing id at " +
                               go_quote(doc.url + "#" + encode_fragment(ptr)));
    }
    bool found = false;
    for (const auto& [p, res] : doc.resources) {
      if (res.id != base) continue;
      found = true;
      if (p != ptr)
        throw SchemaCompileError("duplicate id " + go_quote(base) + " in " + go_quote(doc.url) +
                                 " at " + go_quote(ptr) + " and " + go_quote(p));
    }
    if (!found && own_schema)
      doc.resources[ptr] = SchemaResource{ptr, base, draft, vocabularies(*schema, draft), {}, {}};
    if (!found && !own_schema)
      doc.resources[ptr] = SchemaResource{ptr, base, fallback.draft, fallback.vocabs, {}, {}};
  }
  SchemaResource* base_res = nullptr;
  for (auto& [p, res] : doc.resources)
    if (res.id == base) base_res = &res;
  collect_anchors(doc, obj, ptr, *base_res);
  SchemaResource children;  // what the subschemas inherit: the draft and vocabularies
  children.draft = base_res->draft;
  children.vocabs = base_res->vocabs;
  for (const auto& [sub_ptr, sub] : subschemas(obj, ptr, draft))
    collect(doc, *sub, base, sub_ptr, children);
}

void SchemaSet::collect_anchors(SchemaDoc& doc, const Map& obj, const std::string& ptr,
                                SchemaResource& res) {
  auto add = [&](const std::string& anchor) {
    auto [it, fresh] = res.anchors.emplace(anchor, ptr);
    if (!fresh && it->second != ptr)
      throw SchemaCompileError("duplicate anchor " + go_quote(anchor) + " in " + go_quote(doc.url) +
                               " at " + go_quote(it->second) + " and " + go_quote(ptr));
  };
  if (res.draft < 2019) {
    if (obj.count("$ref") > 0) return;
    if (const std::string* id = string_at(obj, draft_info(res.draft).id)) {
      std::string frag = path_unescape(split_hash(*id).second, *id);
      if (!frag.empty() && frag[0] != '/') add(frag);
    }
    return;
  }
  if (const std::string* a = string_at(obj, "$anchor")) add(*a);
  if (res.draft < 2020) return;
  if (const std::string* a = string_at(obj, "$dynamicAnchor")) {
    add(*a);
    res.dynamic_anchors.insert(*a);
  }
}

/// objCompiler.enqueueRef + root.resolve: the document and pointer a reference names, the
/// document loaded when it is not the referring one.
std::pair<SchemaDoc*, std::string> SchemaSet::resolve(SchemaDoc& doc, const std::string& ptr,
                                                      const std::string& ref) {
  const UrlFrag uf = join_url(doc.resource_at(ptr).id, ref);
  SchemaDoc* in = &doc;
  const SchemaResource* res = nullptr;
  if (uf.url == doc.url) res = &doc.resource_at("");
  for (const auto& [p, r] : doc.resources)
    if (res == nullptr && r.id == uf.url) res = &r;
  if (res == nullptr) {
    in = &load(uf.url);
    res = &in->resource_at("");
  }
  if (uf.frag.empty() || uf.frag[0] == '/') return {in, res->ptr + uf.frag};
  auto a = res->anchors.find(uf.frag);
  if (a == res->anchors.end())
    throw SchemaCompileError("anchor in " + go_quote(res->id + "#" + encode_fragment(uf.frag)) +
                             " not found in schema " + go_quote(in->url));
  return {in, a->second};
}

const SchemaNode& SchemaSet::enqueue(SchemaDoc& doc, const std::string& ptr) {
  auto& slot = m_nodes[{&doc, ptr}];
  if (!slot) {
    slot = std::make_unique<SchemaNode>();
    slot->doc = &doc;
    slot->ptr = ptr;
    m_queue.push_back(slot.get());
  }
  return *slot;
}

void SchemaSet::compile_queue() {
  while (!m_queue.empty()) {
    SchemaNode* n = m_queue.front();
    m_queue.pop_front();
    compile_node(*n);
  }
}

/// roots.ensureSubschema: a `$ref` into a place that is no subschema position (`#/x/y`) makes
/// that value a schema, with its resources, checked against the metaschema.
void SchemaSet::ensure_subschema(SchemaDoc& doc, const std::string& ptr) {
  if (doc.collected.count(ptr) > 0) return;
  const Value* v = lookup(doc, ptr);
  const SchemaResource& res = doc.resource_at(ptr);
  collect(doc, *v, res.id, ptr, res);
  if (doc.meta) return;
  SchemaNode sub{&doc, ptr, v, &doc.resource_at(ptr)};
  m_check(*this, sub);
}

void SchemaSet::compile_node(SchemaNode& node) {
  SchemaDoc& doc = const_cast<SchemaDoc&>(*node.doc);
  node.value = lookup(doc, node.ptr);
  if (node.value == nullptr)
    throw SchemaCompileError("json-pointer in " + go_quote(node.location()) + " not found");
  ensure_subschema(doc, node.ptr);
  node.resource = &doc.resource_at(node.ptr);
  m_by_value[node.value] = &node;
  enqueue(doc, node.resource->ptr);  // v6 compiles each schema's resource with it
  if (!node.value->is_map()) return;
  if (node.resource->vocabs)
    node.keywords = std::make_shared<const Map>(keywords_of(node.value->as_map(), *node.resource));
  const Map& obj = node.keywords ? *node.keywords : node.value->as_map();
  // v6 compiles a resource's dynamic anchors with it, for $dynamicRef to find.
  if (node.draft() >= 2020 && node.resource->ptr == node.ptr)
    for (const std::string& a : node.resource->dynamic_anchors)
      enqueue(doc, node.resource->anchors.at(a));
  index_keywords(node, obj);
  compile_keywords(node, obj);
}

/// The validator's keywords of a node, by Keyword.
void SchemaSet::index_keywords(SchemaNode& node, const Map& obj) {
  using K = Keyword;
  // sorted by name, for a binary search per key of the node
  static constexpr std::array<std::pair<std::string_view, Keyword>, static_cast<size_t>(K::Count)>
      k_names = {{{"$dynamicRef", K::DynamicRef},
                  {"additionalItems", K::AdditionalItems},
                  {"additionalProperties", K::AdditionalProperties},
                  {"allOf", K::AllOf},
                  {"anyOf", K::AnyOf},
                  {"const", K::Const},
                  {"contains", K::Contains},
                  {"dependencies", K::Dependencies},
                  {"dependentRequired", K::DependentRequired},
                  {"dependentSchemas", K::DependentSchemas},
                  {"else", K::Else},
                  {"enum", K::Enum},
                  {"exclusiveMaximum", K::ExclusiveMaximum},
                  {"exclusiveMinimum", K::ExclusiveMinimum},
                  {"format", K::Format},
                  {"if", K::If},
                  {"items", K::Items},
                  {"maxContains", K::MaxContains},
                  {"maxItems", K::MaxItems},
                  {"maxLength", K::MaxLength},
                  {"maxProperties", K::MaxProperties},
                  {"maximum", K::Maximum},
                  {"minContains", K::MinContains},
                  {"minItems", K::MinItems},
                  {"minLength", K::MinLength},
                  {"minProperties", K::MinProperties},
                  {"minimum", K::Minimum},
                  {"multipleOf", K::MultipleOf},
                  {"not", K::Not},
                  {"oneOf", K::OneOf},
                  {"pattern", K::Pattern},
                  {"patternProperties", K::PatternProperties},
                  {"prefixItems", K::PrefixItems},
                  {"properties", K::Properties},
                  {"propertyNames", K::PropertyNames},
                  {"required", K::Required},
                  {"then", K::Then},
                  {"type", K::Type},
                  {"unevaluatedItems", K::UnevaluatedItems},
                  {"unevaluatedProperties", K::UnevaluatedProperties},
                  {"uniqueItems", K::UniqueItems}}};
  static_assert(std::is_sorted(k_names.begin(), k_names.end()));
  static_assert(static_cast<size_t>(K::Count) <= 64);
  std::array<const Value*, static_cast<size_t>(K::Count)> found{};
  for (const auto& [key, value] : obj) {
    auto it =
        std::lower_bound(k_names.begin(), k_names.end(), key,
                         [](const auto& entry, const std::string& k) { return entry.first < k; });
    if (it == k_names.end() || it->first != key) continue;
    found[static_cast<size_t>(it->second)] = &value;
    node.keyword_mask |= uint64_t{1} << static_cast<unsigned>(it->second);
  }
  node.keyword_values = std::make_unique<const Value*[]>(std::popcount(node.keyword_mask));
  size_t n = 0;
  for (const Value* v : found)
    if (v != nullptr) node.keyword_values[n++] = v;
  if (node.draft() >= 2019 &&
      (node.get(Keyword::UnevaluatedItems) || node.get(Keyword::UnevaluatedProperties)))
    ++m_unevaluated;
  if (const Value* t = node.get(Keyword::Type)) {
    if (t->is_string()) node.type_mask |= json_type_bit(t->as_string());
    if (t->is_list())
      for (const Value& x : t->as_list())
        if (x.is_string()) node.type_mask |= json_type_bit(x.as_string());
  }
  constexpr size_t k_indexed_from = 12;  // properties; fewer are found as fast in the map
  if (const Value* p = node.get(Keyword::Properties);
      p != nullptr && p->is_map() && p->as_map().size() >= k_indexed_from) {
    auto index = std::make_unique<std::unordered_map<std::string_view, const Value*>>();
    for (const auto& [name, sub] : p->as_map()) index->emplace(name, &sub);
    node.property_index = std::move(index);
  }
}

/// What objCompiler does with one keyword of one schema: enqueue its subschemas (the value, an
/// array's items, an object's values) or resolve its reference.
struct SchemaSet::Keywords {
  SchemaSet& set;
  SchemaNode& node;
  const Map& obj;
  SchemaDoc& doc;

  std::string at(std::string_view kw) const { return node.ptr + "/" + escape_token(kw); }
  void prop(std::string_view kw) const {
    if (obj.find(kw) != obj.end()) set.enqueue(doc, at(kw));
  }
  void items(std::string_view kw) const {
    if (auto it = obj.find(kw); it != obj.end() && it->second.is_list())
      for (size_t i = 0; i < it->second.as_list().size(); ++i)
        set.enqueue(doc, at(kw) + "/" + std::to_string(i));
  }
  void values(std::string_view kw) const {  // `dependencies` also holds lists of names
    if (auto it = obj.find(kw); it != obj.end() && it->second.is_map())
      for (const auto& [name, sub] : it->second.as_map())
        if (!sub.is_list()) set.enqueue(doc, at(kw) + "/" + escape_token(name));
  }
  void additional(std::string_view kw) const {  // a boolean is no schema to compile
    if (auto it = obj.find(kw); it != obj.end() && !it->second.is_bool()) prop(kw);
  }
  void ref(std::string_view kw) const {
    if (const std::string* r = string_at(obj, kw)) {
      auto [in, ptr] = set.resolve(doc, node.ptr, *r);
      const SchemaNode* target = &set.enqueue(*in, ptr);
      (kw == "$ref"          ? node.ref
       : kw == "$dynamicRef" ? node.dynamic_ref
                             : node.recursive_ref) = target;
    }
  }
};

/// objCompiler.compile: the subschemas of the keywords v6 compiles for the node's draft, in
/// its order (a `$defs` entry, a `then` without `if`, an `additionalItems` beside a single
/// `items` schema are compiled only when something refers to them), references resolved and
/// regexps checked where it does.
void SchemaSet::compile_keywords(SchemaNode& node, const Map& obj) {
  const Keywords k{*this, node, obj, const_cast<SchemaDoc&>(*node.doc)};
  const int draft = node.draft();
  k.ref("$ref");
  k.items("allOf"), k.items("anyOf"), k.items("oneOf"), k.prop("not");
  if (auto it = obj.find("items"); draft < 2020 && it != obj.end()) {
    if (it->second.is_list()) k.items("items"), k.additional("additionalItems");
    if (!it->second.is_list()) k.prop("items");
  }
  k.values("properties"), k.values("patternProperties");
  check_regexes(node, obj, "patternProperties");
  k.additional("additionalProperties");
  k.values("dependencies");
  check_regexes(node, obj, "pattern");
  if (draft >= 6) k.prop("contains"), k.prop("propertyNames");
  if (auto it = obj.find("if"); draft >= 7 && it != obj.end()) {
    k.prop("if");
    if (!it->second.is_bool() || it->second.as_bool()) k.prop("then");
    if (!it->second.is_bool() || !it->second.as_bool()) k.prop("else");
  }
  if (draft >= 2019) {
    k.ref("$recursiveRef");
    k.values("dependentSchemas"), k.prop("unevaluatedItems"), k.prop("unevaluatedProperties");
  }
  if (draft >= 2020) k.ref("$dynamicRef"), k.items("prefixItems"), k.prop("items");
}

/// objCompiler: patternProperties' names (`keyword` patternProperties) or `pattern` compiled as
/// Go regexps (the metaschemas check them as `format: regex` too, but draft 4's and 6's do not
/// for names).
void SchemaSet::check_regexes(const SchemaNode& node, const Map& obj, std::string_view keyword) {
  auto fail = [&](const std::string& re, const std::string& why) {
    throw SchemaCompileError("invalid regex " + go_quote(re) + " at " +
                             go_quote(node.location() + "/" + encode_fragment(keyword)) + ": " +
                             why);
  };
  auto it = obj.find(keyword);
  if (it == obj.end()) return;
  if (keyword == "patternProperties" && it->second.is_map())
    for (const auto& [re, _] : it->second.as_map())
      if (std::string why = sprig::regexp_compile_error(re); !why.empty()) fail(re, why);
  if (keyword == "pattern" && it->second.is_string())
    if (std::string why = sprig::regexp_compile_error(it->second.as_string()); !why.empty())
      fail(it->second.as_string(), why);
}

}  // namespace ejob::render::helm
