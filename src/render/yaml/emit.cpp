#include "src/render/yaml/emit.hpp"

#include <algorithm>
#include <climits>
#include <vector>

#include "src/render/go/error.hpp"
#include "src/render/go/fmt.hpp"
#include "src/render/go/json.hpp"
#include "src/render/go/strconv.hpp"
#include "src/render/yaml/emitter.hpp"
#include "src/render/yaml/scalar.hpp"
#include "src/util/base64.hpp"

namespace ejob::render::yaml {

using go::format_float;
using go::FuncError;
using go::GoType;
using go::Value;

namespace {

using detail::emit_document;
using detail::Flavor;
using detail::YNode;

std::string yaml_float(double f) {
  std::string s = format_float(f, 'g', -1, 64);
  if (s == "+Inf") return ".inf";
  if (s == "-Inf") return "-.inf";
  if (s == "NaN") return ".nan";
  return s;
}

// A JSON number as go-yaml v2 resolves and re-formats it.
std::string number_text(const std::string& json_text) {
  yaml::Resolved r = yaml::resolve_plain(json_text);
  switch (r.kind) {
    case yaml::ScalarKind::Int: return std::to_string(r.i);
    case yaml::ScalarKind::Uint: return std::to_string(r.u);
    case yaml::ScalarKind::Float: return yaml_float(r.f);
    default: return json_text;
  }
}

bool is_ascii(std::string_view s) {
  for (char c : s) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// A string after json.Marshal and go-yaml's reading of the JSON text: invalid UTF-8 became
// U+FFFD, and raw U+0085 (NEL, which JSON leaves unescaped) is a line break inside the
// double-quoted scalar, folded like one: a run of spaces and n NELs reads as one space when
// n == 1, else as n-1 newlines.
std::string json_string(const std::string& s) {
  if (is_ascii(s)) return s;  // no NEL to fold, no invalid UTF-8 to replace: nothing changes
  std::string out;
  std::string_view v = s;
  for (size_t i = 0; i < v.size();) {
    go::Rune r = go::decode_rune(v.substr(i));
    if (r.r == ' ' || r.r == 0x85) {
      size_t j = i;
      int nels = 0;
      while (j < v.size()) {
        go::Rune q = go::decode_rune(v.substr(j));
        if (q.r != ' ' && q.r != 0x85) break;
        if (q.r == 0x85) ++nels;
        j += q.width;
      }
      if (nels == 0)
        out.append(v.substr(i, j - i));
      else if (nels == 1)
        out += ' ';
      else
        out.append(static_cast<size_t>(nels - 1), '\n');
      i = j;
      continue;
    }
    if (r.r == go::k_rune_error && r.width == 1)
      go::append_rune(out, go::k_rune_error);
    else
      out.append(v.substr(i, r.width));
    i += r.width;
  }
  return out;
}

// Orders a map node's entries with go-yaml's key order.
void sort_keys(YNode& n) {
  std::vector<size_t> order(n.keys.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return yaml_key_less(n.keys[a], n.keys[b]); });
  YNode sorted;
  for (size_t i : order) {
    sorted.keys.push_back(std::move(n.keys[i]));
    sorted.items.push_back(std::move(n.items[i]));
  }
  n.keys = std::move(sorted.keys);
  n.items = std::move(sorted.items);
}

YNode to_node(const Value& v) {
  YNode n;
  switch (v.type()) {
    case GoType::Nil: n.text = "null"; break;
    case GoType::Bool: n.text = v.as_bool() ? "true" : "false"; break;
    case GoType::Int:
    case GoType::Int64:
    case GoType::Int32:
    case GoType::Uint8:
    case GoType::Uint64:
    case GoType::Float64: n.text = number_text(go::json::marshal(v)); break;
    case GoType::String:
      n.kind = YNode::String;
      n.text = json_string(v.as_string());
      break;
    case GoType::Bytes:
    case GoType::Object: {
      // Whatever JSON makes of them (base64 text, or the object's own form).
      go::json::Decoded d = go::json::unmarshal(go::json::marshal(v));
      return to_node(d.value);
    }
    case GoType::ListAny:
    case GoType::ListString:
    case GoType::ListInt:
    case GoType::ListList:
      if (v.is_nil_list()) {  // json.Marshal writes a nil slice as null
        n.text = "null";
        break;
      }
      n.kind = YNode::Seq;
      for (const Value& item : v.as_list()) n.items.push_back(to_node(item));
      break;
    case GoType::MapAny:
    case GoType::MapString:
    case GoType::Values:
      n.kind = YNode::Map;
      for (const auto& [k, item] : v.as_map()) {
        n.keys.push_back(json_string(k));
        n.items.push_back(to_node(item));
      }
      sort_keys(n);
      break;
  }
  return n;
}

// go-yaml v3 encodes the Go value itself (no JSON step): numbers keep their Go type.
YNode to_node_v3(const Value& v) {
  YNode n;
  switch (v.type()) {
    case GoType::Nil: n.text = "null"; break;
    case GoType::Bool: n.text = v.as_bool() ? "true" : "false"; break;
    case GoType::Uint64: n.text = std::to_string(v.as_uint()); break;
    case GoType::Int:
    case GoType::Int64:
    case GoType::Int32:
    case GoType::Uint8: n.text = std::to_string(v.as_int()); break;
    case GoType::Float64: n.text = yaml_float(v.as_float()); break;
    case GoType::String:
      if (go::valid_utf8(v.as_string())) {
        n.kind = YNode::String;
        n.text = v.as_string();
      } else {
        // Invalid UTF-8 cannot be written as text: v3 writes it base64-encoded as !!binary.
        n.kind = YNode::Tagged;
        n.tag = "!!binary";
        n.text = base64_encode(v.as_string());
      }
      break;
    case GoType::Bytes:
      n.kind = YNode::Seq;  // a []byte is a slice of uint8 to the encoder
      for (char c : v.as_string())
        n.items.push_back(YNode{YNode::Scalar, std::to_string(static_cast<unsigned char>(c))});
      break;
    case GoType::Object: {
      Value u = v.as_object().underlying();
      return u.is_nil() ? to_node_v3(Value::string(v.as_object().format_v())) : to_node_v3(u);
    }
    case GoType::ListAny:
    case GoType::ListString:
    case GoType::ListInt:
    case GoType::ListList:
      n.kind = YNode::Seq;
      for (const Value& item : v.as_list()) n.items.push_back(to_node_v3(item));
      break;
    case GoType::MapAny:
    case GoType::MapString:
    case GoType::Values:
      n.kind = YNode::Map;
      for (const auto& [k, item] : v.as_map()) {
        n.keys.push_back(k);
        n.items.push_back(to_node_v3(item));
      }
      sort_keys(n);
      break;
  }
  return n;
}

bool is_letter(char32_t r) { return go::is_letter(r); }
bool is_digit(char32_t r) { return go::is_digit(r); }

std::vector<char32_t> runes(std::string_view s) {
  std::vector<char32_t> out;
  for (size_t i = 0; i < s.size();) {
    go::Rune r = go::decode_rune(s.substr(i));
    out.push_back(r.r);
    i += std::max<size_t>(r.width, 1);
  }
  return out;
}

/// go-yaml's keyList.Less over two sequences of runes (std::vector<char32_t>, or the bytes of
/// an ASCII string, where each byte is its rune).
template <typename Runes>
bool key_less(const Runes& ar, const Runes& br) {
  for (size_t i = 0; i < ar.size() && i < br.size(); ++i) {
    if (ar[i] == br[i]) continue;
    bool al = is_letter(ar[i]), bl = is_letter(br[i]);
    if (al && bl) return ar[i] < br[i];
    if (al || bl) return bl;
    int64_t an = 0, bn = 0;
    if (ar[i] == '0' || br[i] == '0') {
      for (size_t j = i; j-- > 0 && is_digit(ar[j]);) {
        if (ar[j] != '0') {
          an = bn = 1;
          break;
        }
      }
    }
    // Go's int arithmetic: a run of more than 18 digits wraps around (two's complement), and the
    // keys sort as go-yaml sorts them then, without C++'s undefined signed overflow.
    const auto times_ten_plus = [](int64_t n, char32_t digit) {
      return static_cast<int64_t>(static_cast<uint64_t>(n) * 10 + (digit - '0'));
    };
    size_t ai = i, bi = i;
    for (; ai < ar.size() && is_digit(ar[ai]); ++ai) an = times_ten_plus(an, ar[ai]);
    for (; bi < br.size() && is_digit(br[bi]); ++bi) bn = times_ten_plus(bn, br[bi]);
    if (an != bn) return an < bn;
    if (ai != bi) return ai < bi;
    return ar[i] < br[i];
  }
  return ar.size() < br.size();
}

/// The bytes of an ASCII string as runes, without copying them (sorting a map's keys compares
/// each key many times; decoding both into vectors each time was 5% of a big chart's render).
struct AsciiRunes {
  std::string_view s;
  [[nodiscard]] size_t size() const { return s.size(); }
  char32_t operator[](size_t i) const { return static_cast<unsigned char>(s[i]); }
};

}  // namespace

bool yaml_key_less(std::string_view as, std::string_view bs) {
  if (is_ascii(as) && is_ascii(bs)) return key_less(AsciiRunes{as}, AsciiRunes{bs});
  return key_less(runes(as), runes(bs));
}

std::string to_yaml(const Value& v) {
  YNode root;
  try {
    root = to_node(v);
  } catch (const FuncError& e) {
    throw FuncError{"error marshaling into JSON: " + e.message};
  }
  return emit_document(root, Flavor::V2);
}

std::string to_yaml_pretty(const Value& v) { return emit_document(to_node_v3(v), Flavor::V3); }

}  // namespace ejob::render::yaml
