// The JSON decoders of the render stack: Go's encoding/json (src/render/go/json_decode.cpp:
// fromJson, fromJsonArray, values.schema.json) into each Go target, and --set-json's value
// decoder (src/render/helm/strvals.cpp). What decodes is encoded back (toJson).
#include "src/render/go/json.hpp"
#include "src/render/helm/strvals.hpp"
#include "tests/fuzz/fuzz_input.hpp"

namespace json = ejob::render::go::json;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = ejob::fuzz::as_text(data, size);
  ejob::fuzz::refusals_expected([&] {
    for (json::Target target : {json::Target::Any, json::Target::Map, json::Target::Slice}) {
      const json::Decoded d = json::unmarshal(text, target);
      if (d.error.empty()) (void)json::marshal(d.value);
    }
  });
  ejob::fuzz::refusals_expected([&] {
    std::size_t consumed = 0;
    const auto v = ejob::render::helm::decode_json_value(text, consumed);
    if (consumed > text.size()) std::abort();  // the decoder claims bytes it was not given
    (void)json::marshal(v);
  });
  return 0;
}
