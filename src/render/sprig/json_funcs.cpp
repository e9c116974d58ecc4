// Sprig's JSON functions (defaults.go) on encoding/json (go/json.hpp): fromJson, toJson,
// toPrettyJson, toRawJson and their must* forms. Helm replaces toJson and fromJson with its
// own versions; the rest stay Sprig's.
#include "src/render/go/json.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

Value from_json(const FuncArgs& a, bool must) {
  go::json::Decoded d = go::json::unmarshal(a[0].as_string());
  if (!d.error.empty()) {
    if (must) throw FuncError{d.error};
    // json.Unmarshal leaves the target nil on a syntax error; an overflowing number keeps the
    // partial result.
  }
  return d.value;
}

/// Encodes with `encode`; the plain forms swallow the error and return "".
template <class Encode>
Function encoder(Encode encode, bool must) {
  return fn(
      {P::Any},
      [=](const FuncArgs& a) {
        try {
          return Value::string(encode(a[0]));
        } catch (const FuncError&) {
          if (must) throw;
          return Value::string("");
        }
      },
      must ? Ret::ValueError : Ret::Value);
}

}  // namespace

void register_sprig_json(FuncMap& map) {
  map.add("fromJson", fn({P::String}, [](const FuncArgs& a) { return from_json(a, false); }));
  map.add("mustFromJson",
          fn(
              {P::String}, [](const FuncArgs& a) { return from_json(a, true); }, Ret::ValueError));
  auto compact = [](const Value& v) { return go::json::marshal(v); };
  auto pretty = [](const Value& v) { return go::json::marshal_indent(v, "", "  "); };
  auto raw = [](const Value& v) { return go::json::marshal(v, go::json::HtmlEscape::No); };
  map.add("toJson", encoder(compact, false));
  map.add("mustToJson", encoder(compact, true));
  map.add("toPrettyJson", encoder(pretty, false));
  map.add("mustToPrettyJson", encoder(pretty, true));
  // toRawJson panics on an encoding error, which text/template reports like an error return.
  Function to_raw = encoder(raw, true);
  to_raw.returns_error = false;
  map.add("toRawJson", to_raw);
  map.add("mustToRawJson", encoder(raw, true));
}

}  // namespace ejob::render::sprig
