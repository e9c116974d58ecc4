#pragma once
/// Go's encoding/json over Value, byte for byte: what Helm's toJson/fromJson, Sprig's
/// toRawJson/toPrettyJson and the first half of toYaml (json.Marshal) produce and accept.
///
/// Encoding: map keys sorted, `<` `>` `&` escaped as \u003c… unless HtmlEscape::No (Sprig's
/// toRawJson), U+2028/U+2029 always escaped, invalid UTF-8 written as \ufffd, floats in 'f'
/// form unless |x| < 1e-6 or |x| >= 1e21 (then 'e' with `e-7`, `e+21`), []byte as base64.
/// `\b` and `\f` are written as `\b`/`\f`, as Go >= 1.22 (which builds current Helm) does.
///
/// Decoding (json.Unmarshal into interface{}): numbers become float64, objects
/// map[string]interface {}, arrays []interface {}; errors carry Go's exact text.

#include <string>
#include <string_view>

#include "src/render/go/value.hpp"

namespace ejob::render::go::json {

/// Whether `<`, `>` and `&` are escaped (json.Marshal does; Encoder.SetEscapeHTML(false) not).
enum class HtmlEscape : uint8_t { Yes, No };

/// json.Marshal. Throws render::FuncError with Go's message for values JSON cannot hold
/// (`json: unsupported value: NaN`).
std::string marshal(const Value& v, HtmlEscape html = HtmlEscape::Yes);

/// json.MarshalIndent(v, prefix, indent): one element per line, `[]`/`{}` kept compact.
/// Throws like marshal.
std::string marshal_indent(const Value& v, std::string_view prefix, std::string_view indent,
                           HtmlEscape html = HtmlEscape::Yes);

/// Go's json.Indent applied to already valid compact JSON text.
std::string indent(std::string_view compact, std::string_view prefix, std::string_view indent);

/// The outcome of decoding: `error` is empty on success, else Go's err.Error() text. When a
/// number overflows float64, Go stores nil for it, keeps decoding, and reports the error.
struct Decoded {
  Value value;
  std::string error;
};

/// The Go type the decoded value is stored into, which decides the type-mismatch errors.
enum class Target : uint8_t {
  Any,    ///< interface{}
  Map,    ///< map[string]interface{} (fromJson)
  Slice,  ///< []interface{} (fromJsonArray)
};

/// json.Unmarshal(text, &target). Syntax errors read like Go's
/// (`invalid character 'x' looking for beginning of value`, `unexpected end of JSON input`);
/// a non-object for Target::Map gives
/// `json: cannot unmarshal array into Go value of type map[string]interface {}`.
Decoded unmarshal(std::string_view text, Target target = Target::Any);

/// Go's JSON string literal of s (encodeState.string), including the quotes.
std::string quote(std::string_view s, HtmlEscape html = HtmlEscape::Yes);

/// The text encoding/json writes for a float64 (no error check: the caller rejects NaN/Inf).
std::string format_float(double f);

}  // namespace ejob::render::go::json
