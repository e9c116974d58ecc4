#include "src/render/helm/toml.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "src/render/go/error.hpp"
#include "src/render/go/fmt.hpp"

using ejob::render::go::FuncError;
using ejob::render::go::GoType;
using ejob::render::go::List;
using ejob::render::go::Map;
using ejob::render::go::Value;

namespace ejob::render::helm::toml {
namespace {

using Key = std::vector<std::string>;
using ejob::render::go::format_float;

// dblQuotedReplacer: quotes, backslashes and control characters only.
std::string escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7F) {
          static constexpr char k_hex[] = "0123456789abcdef";
          out += "\\u00";
          out += k_hex[c >> 4];
          out += k_hex[c & 0xF];
        } else {
          out += ch;
        }
    }
  }
  return out;
}

bool is_bare(std::string_view k) {
  return std::all_of(k.begin(), k.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

std::string quoted_key(std::string_view k) {
  if (k.empty()) return "\"\"";
  if (is_bare(k)) return std::string(k);
  return "\"" + escape(k) + "\"";
}

std::string key_string(const Key& key) {
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    if (i > 0) out += '.';
    out += quoted_key(key[i]);
  }
  return out;
}

[[noreturn]] void fail(const std::string& message) { throw FuncError{message}; }

enum class TomlType : uint8_t { None, Scalar, Array, Hash, ArrayHash };

// tomlTypeOfGo: maps are hashes, non-empty lists of only maps arrays of tables; a nil list
// element anywhere is an error.
TomlType type_of(const Value& v) {
  if (v.is_nil()) return TomlType::None;
  if (v.is_map()) return TomlType::Hash;
  if (v.is_list()) {
    const List& items = v.as_list();
    if (items.empty()) return TomlType::Array;
    bool all_hash = true;
    for (const Value& item : items) {
      TomlType t = type_of(item);
      if (t == TomlType::None) fail("toml: cannot encode array with nil element");
      if (t != TomlType::Hash) all_hash = false;
    }
    return all_hash ? TomlType::ArrayHash : TomlType::Array;
  }
  if (v.type() == GoType::Bytes) return TomlType::Array;
  return TomlType::Scalar;
}

bool is_table(TomlType t) { return t == TomlType::Hash || t == TomlType::ArrayHash; }

class Encoder {
 public:
  std::string out;

  void encode(const Key& key, const Value& v) {
    if (v.is_nil()) return;
    if (v.is_map()) {
      table(key, v);
    } else if (v.is_list() && type_of(v) == TomlType::ArrayHash) {
      array_of_tables(key, v);
    } else {
      key_value(key, v, false);
    }
  }

 private:
  bool m_written = false;

  void write(std::string_view s) {
    out += s;
    m_written = true;
  }
  void newline() {
    if (m_written) write("\n");
  }
  static std::string indent(const Key& key) {
    std::string s;
    for (size_t i = 1; i < key.size(); ++i) s += "  ";
    return s;
  }

  void key_value(const Key& key, const Value& v, bool inline_) {
    if (key.empty()) fail("toml: top-level values must be Go maps or structs");
    write(indent(key) + quoted_key(key.back()) + " = ");
    element(v);
    if (!inline_) newline();
  }

  void element(const Value& v) {
    switch (v.type()) {
      case GoType::String: write("\"" + escape(v.as_string()) + "\""); return;
      case GoType::Bool: write(v.as_bool() ? "true" : "false"); return;
      case GoType::Uint64: write(std::to_string(v.as_uint())); return;
      case GoType::Int:
      case GoType::Int64:
      case GoType::Int32:
      case GoType::Uint8: write(std::to_string(v.as_int())); return;
      case GoType::Float64: float64(v.as_float()); return;
      case GoType::Bytes: {
        List items;
        for (char c : v.as_string())
          items.push_back(Value::integer(static_cast<unsigned char>(c), GoType::Uint8));
        element(Value::list(std::move(items)));
        return;
      }
      case GoType::Object: element(Value::string(v.as_object().format_v())); return;
      case GoType::Nil: fail("toml: cannot encode array with nil element");
      default: break;
    }
    if (v.is_list()) {
      const List& items = v.as_list();
      write("[");
      for (size_t i = 0; i < items.size(); ++i) {
        element(items[i]);
        if (i + 1 != items.size()) write(", ");
      }
      write("]");
      return;
    }
    map(Key{}, v, true);
  }

  void float64(double f) {
    if (std::isnan(f)) {
      write("nan");
    } else if (std::isinf(f)) {
      write(std::signbit(f) ? "-inf" : "+inf");
    } else {
      std::string s = format_float(f, 'f', -1, 64);
      if (s.find('.') == std::string::npos) s += ".0";
      write(s);
    }
  }

  void array_of_tables(const Key& key, const Value& v) {
    if (key.empty()) fail("toml: top-level values must be Go maps or structs");
    for (const Value& item : v.as_list()) {
      newline();
      write(indent(key) + "[[" + key_string(key) + "]]");
      newline();
      map(key, item, false);
    }
  }

  void table(const Key& key, const Value& v) {
    if (key.size() == 1) newline();
    if (!key.empty()) {
      write(indent(key) + "[" + key_string(key) + "]");
      newline();
    }
    map(key, v, false);
  }

  void map(const Key& key, const Value& v, bool inline_) {
    std::vector<std::string> direct, sub;
    for (const auto& [k, item] : v.as_map()) (is_table(type_of(item)) ? sub : direct).push_back(k);
    if (inline_) write("{");
    write_keys(key, v.as_map(), direct, !sub.empty(), inline_);
    write_keys(key, v.as_map(), sub, false, inline_);
    if (inline_) write("}");
  }

  void write_keys(const Key& key, const Map& m, const std::vector<std::string>& keys,
                  bool trailing_comma, bool inline_) {
    for (size_t i = 0; i < keys.size(); ++i) {
      const Value& item = m.find(keys[i])->second;
      if (item.is_nil()) continue;
      if (inline_) {
        key_value(Key{keys[i]}, item, true);
        if (trailing_comma || i != keys.size() - 1) write(", ");
      } else {
        Key k = key;
        k.push_back(keys[i]);
        encode(k, item);
      }
    }
  }
};

}  // namespace

std::string encode(const Value& v) {
  if (v.is_nil()) fail("toml: top-level values must be Go maps or structs");
  Encoder e;
  e.encode(Key{}, v);
  return std::move(e.out);
}

}  // namespace ejob::render::helm::toml
