// Expected values: Go 1.19 + Sprig 3.2.3 (text/template with sprig.TxtFuncMap()).
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

#include "src/render/sprig/limits.hpp"
#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: trunc, substr, repeat and trims slice bytes as Go does") {
  CHECK(show("trunc", {I(3), S("abcdef")}) == "abc");
  CHECK(show("trunc", {I(-3), S("abcdef")}) == "def");
  CHECK(show("trunc", {I(-5), S("abc")}) == "abc");
  CHECK(show("substr", {I(1), I(3), S("abcdef")}) == "bc");
  CHECK(show("substr", {I(1), I(5), S("abc")}) == "bc");
  CHECK(show("repeat", {I(3), S("ab")}) == "ababab");
  CHECK(show("trimAll", {S("-"), S("--a-b--")}) == "a-b");
  CHECK(show("trimAll", {S("$é"), S("$éa$é")}) == "a");
  CHECK(show("trimSuffix", {S("-"), S("a-")}) == "a");
  CHECK(show("trimPrefix", {S("-"), S("-a")}) == "a");
  CHECK(show("contains", {S("b"), S("abc")}) == "true");
  CHECK(show("hasPrefix", {S("a"), S("abc")}) == "true");
  CHECK(show("hasSuffix", {S("c"), S("abc")}) == "true");
}

TEST_CASE("sprig: out-of-range substr and negative counts fail with Go's runtime errors") {
  CHECK(error_of("substr", {I(5), I(2), S("abc")}) ==
        "runtime error: slice bounds out of range [5:2]");
  CHECK(error_of("substr", {I(-1), I(5), S("abc")}) ==
        "runtime error: slice bounds out of range [:5] with length 3");
  CHECK(error_of("substr", {I(4), I(-1), S("abc")}) ==
        "runtime error: slice bounds out of range [4:3]");
  CHECK(error_of("substr", {I(-1), I(-2), S("abc")}) ==
        "runtime error: slice bounds out of range [:-2]");
  CHECK(error_of("repeat", {I(-1), S("a")}) == "strings: negative Repeat count");
  CHECK(error_of("indent", {I(-1), S("a")}) == "strings: negative Repeat count");
}

TEST_CASE("sprig: a string larger than the machine's memory is refused, not allocated") {
  // Found by the template fuzzer: indent 7.7e12 asked the allocator for 7.7 TB. Helm's Go dies
  // there ("fatal error: runtime: out of memory"); ejob says so as the function's error.
  CHECK(max_string_bytes() > 0);
  CHECK(error_of("indent", {I(7'700'000'000'000), S("a")}) ==
        "runtime: out of memory: a string of 7700000000000 bytes is more than this machine's "
        "memory");
  const std::int64_t machine = max_string_bytes();
  set_max_string_bytes(1000);
  CHECK(error_of("repeat", {I(1001), S("a")}).rfind("runtime: out of memory", 0) == 0);
  CHECK(show("repeat", {I(1000), S("a")}).size() == 1000);
  // Found by the template fuzzer with a core of its own: each pad under the limit, the result
  // (a pad after every newline) over it.
  CHECK(error_of("indent", {I(300), S("a\nb\nc\nd")}) ==
        "runtime: out of memory: a string of 1207 bytes is more than this machine's memory");
  CHECK(show("indent", {I(200), S("a\nb\nc\nd")}).size() == 807);
  CHECK(error_of("replace", {S("a"), S(std::string(600, 'x')), S("aa")}) ==
        "runtime: out of memory: a string of 1200 bytes is more than this machine's memory");
  CHECK(error_of("replace", {S(""), S(std::string(400, 'x')), S("ab")})
            .rfind("runtime: out of memory: a string of 1202 bytes", 0) == 0);
  set_max_string_bytes(machine);
}

TEST_CASE("sprig: indent, replace, plural, split and abbreviations") {
  CHECK(show("indent", {I(2), S("a\nb")}) == "  a\n  b");
  CHECK(show("nindent", {I(2), S("a")}) == "\n  a");
  CHECK(show("replace", {S("a"), S("b"), S("aaa")}) == "bbb");
  CHECK(show("replace", {S(""), S("x"), S("abc")}) == "xaxbxcx");
  CHECK(show("plural", {S("one"), S("many"), I(2)}) == "many");
  CHECK(show("toString", {F(1.5)}) == "1.5");
  CHECK(show("toString", {F(1e6)}) == "1e+06");
  CHECK(show("splitList", {S(","), S("a,b")}) == "[a b]");
  CHECK(call("splitList", {S(","), S("a,b")}).type_name() == "[]string");
  CHECK(show("split", {S(","), S("a,b")}) == "map[_0:a _1:b]");
  CHECK(show("split", {S(""), S("aé")}) == "map[_0:a _1:é]");
  CHECK(show("splitn", {S(""), I(2), S("aéb")}) == "map[_0:a _1:éb]");
  CHECK(show("splitn", {S(","), I(0), S("a,b")}) == "map[]");
  CHECK(show("abbrev", {I(5), S("hello world")}) == "he...");
  CHECK(show("abbrevboth", {I(5), I(10), S("1234 5678 9123 4567")}) == "...5678...");
  CHECK(show("wrap", {I(5), S("Hello World")}) == "Hello\nWorld");
  CHECK(show("wrap", {I(5), S("Hello World thisisalongword x")}) ==
        "Hello\nWorld\nthisisalongword\nx");
  CHECK(show("wrapWith", {I(5), S("<br>"), S("Hello World thisisalongword")}) ==
        "Hello<br>World<br>thisi<br>salon<br>gword");
}

TEST_CASE("sprig: case conversions follow Go's unicode and xstrings 1.3.3") {
  CHECK(show("upper", {S("héllo")}) == "HÉLLO");
  CHECK(show("lower", {S("HÉLLO")}) == "héllo");
  CHECK(show("title", {S("hello world")}) == "Hello World");
  CHECK(show("title", {S("hello_world foo-bar éa")}) == "Hello_world Foo-Bar Éa");
  CHECK(show("untitle", {S("Hello World")}) == "hello world");
  CHECK(show("trim", {S("  a b \n")}) == "a b");
  CHECK(show("nospace", {S("a b c")}) == "abc");
  CHECK(show("nospace", {S("a é\u00a0b")}) == "aÃ©Âb");
  CHECK(show("initials", {S("First Try")}) == "FT");
  CHECK(show("initials", {S("ab é\u00a0cd")}) == "aÃc");
  CHECK(show("swapcase", {S("Hello World")}) == "hELLO wORLD");
  CHECK(show("swapcase", {S("Hello wOrld ǅ")}) == "hELLO WoRLD ǆ");
  CHECK(show("snakecase", {S("FirstName")}) == "first_name");
  CHECK(show("snakecase", {S("HTTPServer_fooBar2x")}) == "http_server_foo_bar_2x");
  CHECK(show("snakecase", {S("a.b$c")}) == "a.b_$_c");
  CHECK(show("kebabcase", {S("HTTPServer")}) == "http-server");
  CHECK(show("kebabcase", {S("Bld4Floor3rd")}) == "bld4-floor-3rd");
  CHECK(show("camelcase", {S("http_server")}) == "HttpServer");
  CHECK(show("camelcase", {S("http_server-foo bar")}) == "HttpServerFooBar");
  CHECK(show("camelcase", {S("_a__b")}) == "_A_B");
}

TEST_CASE("sprig: quote, squote, cat, join and sortAlpha skip nil and use %v") {
  CHECK(show("quote", {S("a\"b"), I(1), N()}) == "\"a\\\"b\" \"1\"");
  CHECK(show("quote", {I(1), N(), S("a\n"), F(1.5), F(1e6)}) == "\"1\" \"a\\n\" \"1.5\" \"1e+06\"");
  CHECK(show("squote", {S("a"), I(2), N(), F(1.5)}) == "'a' '2' '1.5'");
  CHECK(show("cat", {S("a"), I(1), N(), S("b")}) == "a 1 b");
  CHECK(show("cat", {S(""), S("x"), S("")}) == " x ");  // Sprintf("%v %v %v")
  CHECK(show("join", {S(","), L({I(1), S("a"), N()})}) == "1,a");
  CHECK(show("join", {S("-"), I(3)}) == "3");
  CHECK(show("join", {S("-"), N()}) == "");
  CHECK(show("toStrings", {L({I(1), I(2)})}) == "[1 2]");
  CHECK(call("toStrings", {I(1)}).type_name() == "[]string");
  CHECK(show("sortAlpha", {L({S("b"), S("a"), I(1)})}) == "[1 a b]");
  CHECK(show("sortAlpha", {N()}) == "[<nil>]");
}

TEST_CASE("sprig: base64 and base32 round trips and Go's decode errors") {
  CHECK(show("b64enc", {S("hello")}) == "aGVsbG8=");
  CHECK(show("b64dec", {S("aGVsbG8=")}) == "hello");
  CHECK(show("b64dec", {S("aGVsbG8")}) == "illegal base64 data at input byte 4");
  CHECK(show("b64dec", {S("a!")}) == "illegal base64 data at input byte 1");
  CHECK(show("b32enc", {S("hello")}) == "NBSWY3DP");
  CHECK(show("b32dec", {S("NBSWY3DP")}) == "hello");
  CHECK(show("b32dec", {S("NBSWY3D")}) == "illegal base32 data at input byte 0");
}

TEST_CASE("sprig: random strings draw from the injected source") {
  std::string s = call("randAlphaNum", {I(16)}).as_string();
  CHECK(s.size() == 16);
  for (char c : s) CHECK(std::isalnum(static_cast<unsigned char>(c)));
  std::string n = call("randNumeric", {I(8)}).as_string();
  for (char c : n) CHECK(std::isdigit(static_cast<unsigned char>(c)));
  CHECK(call("randAlpha", {I(-1)}).as_string().empty());
  CHECK(error_of("randInt", {I(5), I(5)}) == "invalid argument to Intn");
}

// Conformance: xstrings v1.5.0's convert_test.go (TestToPascalCase,
// TestToSnakeCaseAndToKebabCase) and Sprig v3.3.0's functions_test.go (TestCamelCase,
// TestSnakeCase, TestKebabCase): Helm v3.21 links both. camelcase is ToPascalCase since Sprig
// v3.3.0.
TEST_CASE(
    "sprig: camelcase, snakecase and kebabcase pass xstrings v1.5.0's and Sprig v3.3.0's tests") {
  const std::vector<std::pair<std::string, std::string>> pascal = {
      {"http_server", "HttpServer"},
      {"_camel_case", "_CamelCase"},
      {"no_https", "NoHttps"},
      {"_complex__case_", "_Complex_Case_"},
      {" complex -case ", " Complex Case "},
      {"all", "All"},
      {"GOLANG_IS_GREAT", "GolangIsGreat"},
      {"GOLANG", "Golang"},
      {"a", "A"},
      {"好", "好"},
      {"FROM CamelCase to snake/kebab-case", "FromCamelCaseToSnake/kebabCase"},
      {"", ""},
      // Sprig v3.3.0 TestCamelCase
      {"http_server", "HttpServer"},
      {"_camel_case", "_CamelCase"},
      {"no_https", "NoHttps"},
      {"_complex__case_", "_Complex_Case_"},
      {"all", "All"},
  };
  for (const auto& [in, want] : pascal) CHECK(show("camelcase", {S(in)}) == want);
  const std::vector<std::pair<std::string, std::string>> snake = {
      {"HTTPServer", "http_server"},
      {"_camelCase", "_camel_case"},
      {"NoHTTPS", "no_https"},
      {"Wi_thF", "wi_th_f"},
      {"_AnotherTES_TCaseP", "_another_tes_t_case_p"},
      {"ALL", "all"},
      {"_HELLO_WORLD_", "_hello_world_"},
      {"HELLO_WORLD", "hello_world"},
      {"HELLO____WORLD", "hello____world"},
      {"TW", "tw"},
      {"_C", "_c"},
      {"http2xx", "http_2xx"},
      {"HTTP2XX", "http2_xx"},
      {"HTTP20xOK", "http_20x_ok"},
      {"HTTP20xStatus", "http_20x_status"},
      {"HTTP-20xStatus", "http_20x_status"},
      {"a", "a"},
      {"Duration2m3s", "duration_2m3s"},
      {"Bld4Floor3rd", "bld4_floor_3rd"},
      {" _-_ ", "_____"},
      {"a1b2c3d", "a_1b2c3d"},
      {"A//B%%2c", "a//b%%2c"},
      {"HTTP状态码404/502Error", "http_状态码404/502_error"},
      {"中文(字符)", "中文(字符)"},
      {"混合ABCWords与123数字456", "混合_abc_words_与123_数字456"},
      {"  sentence case  ", "__sentence_case__"},
      {" Mixed-hyphen case _and SENTENCE_case and UPPER-case",
       "_mixed_hyphen_case__and_sentence_case_and_upper_case"},
      {"FROM CamelCase to snake/kebab-case", "from_camel_case_to_snake/kebab_case"},
      {"", ""},
      {"Abc\uFFFDE\uFFFDf\uFFFDd\uFFFD2\uFFFD00z\uFFFDZZ\uFFFDZZ",
       "abc_\uFFFDe\uFFFDf\uFFFDd_\uFFFD2\uFFFD00z_\uFFFDzz\uFFFDzz"},
      {"\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD", "\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD"},
      {"abc_123_def", "abc_123_def"},
      // Sprig v3.3.0 TestSnakeCase / TestKebabCase
      {"FirstName", "first_name"},
      {"HTTPServer", "http_server"},
      {"NoHTTPS", "no_https"},
      {"GO_PATH", "go_path"},
      {"GO PATH", "go_path"},
      {"GO-PATH", "go_path"},
  };
  for (const auto& [in, want] : snake) {
    CHECK(show("snakecase", {S(in)}) == want);
    std::string kebab = want;
    std::replace(kebab.begin(), kebab.end(), '_', '-');
    CHECK(show("kebabcase", {S(in)}) == kebab);
  }
}
