// Expected outputs in testdata/toml_cases.inc come from BurntSushi/toml v1.2 under Go 1.19
// (testdata/gen_toml.py).
#include "src/render/helm/toml.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <vector>

#include "src/render/go/error.hpp"
#include "src/render/go/fmt.hpp"

namespace ejob::render::helm {

using go::FuncError;
using go::GoType;
using go::List;
using go::Map;
using go::Value;

namespace {

struct TomlEncodeCase {
  Value value;
  std::string want;  // the encoder's output, or "ERR:" + error
};
struct TomlDecodeCase {
  std::string text;
  std::string printed;  // %v of the decoded map
  std::string error;
};

#include "src/render/helm/testdata/toml_cases.inc"

TEST_CASE("toml: encode matches BurntSushi's encoder") {
  for (const auto& c : k_toml_encode_cases) {
    INFO(c.want);
    std::string got;
    try {
      got = toml::encode(c.value);
    } catch (const FuncError& e) {
      got = "ERR:" + e.message;
    }
    CHECK(got == c.want);
  }
}

TEST_CASE("toml: decode gives BurntSushi's values") {
  for (const auto& c : k_toml_decode_cases) {
    INFO(c.text);
    toml::Decoded d = toml::decode(c.text);
    CHECK(format_v(d.value) == c.printed);
    CHECK(d.error == c.error);
  }
}

TEST_CASE("toml: a syntax error names the line") {
  toml::Decoded d = toml::decode("a = 1\nb = \n");
  CHECK(d.error.starts_with("toml: line 2: "));
  CHECK(d.value.as_map().empty());
}

TEST_CASE("toml: a table header whose key starts with no key character is an error") {
  // Found by the template fuzzer: toml++ asserted this away (an abort without NDEBUG, an
  // assumption the compiler may build on with it) before its own check reported it.
  for (const char* text : {"a = 1\n[@t]\nname = 2\n", "[[ !x ]]\n", "[ ]\n"}) {
    toml::Decoded d = toml::decode(text);
    CHECK(d.error.starts_with("toml: line "));
    CHECK(d.value.as_map().empty());
  }
}

TEST_CASE("toml: a value followed by a non-ASCII character of a block without spaces is an error") {
  // Found by the template fuzzer: toml++'s Unicode tables took U+00E9 (a block of no white
  // space but U+00A0) as unreachable when asking whether it ends the value.
  for (const char* text :
       {"a = 1\u00e9\n", "a = 1\u3001\n", "a = \"v\"\u00e9\n", "a = 1\u00a0\n"}) {
    toml::Decoded d = toml::decode(text);
    CHECK(d.error.starts_with("toml: line 1"));
    CHECK(d.value.as_map().empty());
  }
}

}  // namespace
}  // namespace ejob::render::helm
