#include "src/render/go/printer_en.hpp"

#include <catch2/catch.hpp>

using ejob::render::go::english_float;
using ejob::render::go::english_int;

// Each expected text is what golang.org/x/text/message's English printer gave, through
// jsonschema v6's messages (`maximum: got %v`, `minItems: got %d`), with Debian's x/text
// v0.7.0; from v0.23.0 on (Helm v3.21.4 builds with v0.40.0) the scientific form has no narrow
// no-break spaces around the `×` (x/text commit 221d88c), as here.
TEST_CASE("printer_en: %d groups thousands") {
  CHECK(english_int(0) == "0");
  CHECK(english_int(999) == "999");
  CHECK(english_int(1066) == "1,066");
  CHECK(english_int(65535) == "65,535");
  CHECK(english_int(1234567) == "1,234,567");
  CHECK(english_int(-25) == "-25");
  CHECK(english_int(-1000) == "-1,000");
}

TEST_CASE("printer_en: %v of a float64, decimal between 1e-4 and 1e6, else scientific") {
  CHECK(english_float(0) == "0");
  CHECK(english_float(0.5) == "0.5");
  CHECK(english_float(2.25) == "2.25");
  CHECK(english_float(10000) == "10,000");
  CHECK(english_float(999999) == "999,999");
  CHECK(english_float(123456.789) == "123,456.789");
  CHECK(english_float(100000.5) == "100,000.5");
  CHECK(english_float(-1234.5) == "-1,234.5");
  CHECK(english_float(0.0001) == "0.0001");
  CHECK(english_float(-0.00012) == "-0.00012");
  CHECK(english_float(1e6) == "1\u00d710\u2070\u2076");
  CHECK(english_float(1.0000001e6) == "1.0000001\u00d710\u2070\u2076");
  CHECK(english_float(1e21) == "1\u00d710\u00b2\u00b9");
  CHECK(english_float(1.5e25) == "1.5\u00d710\u00b2\u2075");
  CHECK(english_float(-1e300) == "-1\u00d710\u00b3\u2070\u2070");
  CHECK(english_float(1e-5) == "1\u00d710\u207b\u2070\u2075");
  CHECK(english_float(2.5e-5) == "2.5\u00d710\u207b\u2070\u2075");
  CHECK(english_float(1.2345678901234567e19) == "1.2345678901234567\u00d710\u00b9\u2079");
}
