#include "src/util/base64.hpp"

#include <catch2/catch.hpp>
#include <utility>
#include <vector>

using ejob::base64_decode;
using ejob::base64_encode;

// Expected values are what Go 1.19's encoding/base64 StdEncoding gives (EncodeToString,
// DecodeString and its error), the reference every caller of these functions follows.

TEST_CASE("base64: encoding is RFC 4648's, padded") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
      {std::string("\x00\x01\xfe\xff", 4), "AAH+/w=="}};
  for (const auto& [raw, text] : cases) {
    CHECK(base64_encode(raw) == text);
    CHECK(base64_decode(text) == raw);
  }
}

TEST_CASE("base64: decoding skips newlines and fails as Go does, at Go's byte offsets") {
  CHECK(base64_decode("aGVs\nbG8h") == "hello!");
  CHECK(base64_decode("YQ==\n\r") == "a");
  CHECK(base64_decode("YQ\n=\n=") == "a");
  const std::vector<std::pair<std::string, std::pair<std::string, std::string>>> bad = {
      {"a$b", {"", "illegal base64 data at input byte 1"}},
      {"aGk=aGk=", {"hi", "illegal base64 data at input byte 4"}},
      {"abc", {"", "illegal base64 data at input byte 0"}},
      {"YQ=", {"", "illegal base64 data at input byte 3"}},
      {"YQ==\nYQ==", {"a", "illegal base64 data at input byte 5"}},
      {"Y===", {"", "illegal base64 data at input byte 1"}},
      {"Zm9vYg=x", {"foo", "illegal base64 data at input byte 6"}},
      {"aGVs bG8h", {"hel", "illegal base64 data at input byte 4"}}};
  for (const auto& [text, expected] : bad) {
    std::string error;
    const std::string out = base64_decode(text, error);
    CHECK(std::make_pair(out, error) == expected);
    CHECK_FALSE(base64_decode(text).has_value());
  }
}
