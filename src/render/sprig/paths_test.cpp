// Expected values: Go 1.19 + Sprig 3.2.3 (text/template with sprig.TxtFuncMap()).
#include <catch2/catch.hpp>

#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: path functions are Go's path package") {
  CHECK(show("base", {S("/a/b.txt")}) == "b.txt");
  CHECK(show("dir", {S("/a/b.txt")}) == "/a");
  CHECK(show("clean", {S("a/../b/./c//")}) == "b/c");
  CHECK(show("ext", {S("x.tar.gz")}) == ".gz");
  CHECK(show("isAbs", {S("/x")}) == "true");
  CHECK(show("base", {S("")}) == ".");
  CHECK(show("dir", {S("x")}) == ".");
  CHECK(show("clean", {S("../../a")}) == "../../a");
  CHECK(show("clean", {S("/../a")}) == "/a");
  CHECK(show("osBase", {S("/a/")}) == "a");
}

TEST_CASE("sprig: urlParse and urlJoin follow net/url") {
  CHECK(show("urlParse", {S("https://u:p%40x@host.com:8080/pa%20th?q=1&r=2#fr%20ag")}) ==
        "map[fragment:fr ag host:host.com:8080 hostname:host.com opaque: path:/pa th "
        "query:q=1&r=2 scheme:https userinfo:u:p%40x]");
  CHECK(show("urlParse", {S("mailto:x@y.z")}) ==
        "map[fragment: host: hostname: opaque:x@y.z path: query: scheme:mailto userinfo:]");
  CHECK(show("urlParse", {S("/x:y")}) ==
        "map[fragment: host: hostname: opaque: path:/x:y query: scheme: userinfo:]");
  CHECK(error_of("urlParse", {S("http://[::1")}) ==
        "unable to parse url: parse \"http://[::1\": missing ']' in host");
  CHECK(error_of("urlParse", {S("https://Ö@h#f")}) ==
        "unable to parse url: parse \"https://Ö@h\": net/url: invalid userinfo");
  CHECK(error_of("urlParse", {S("1:b")}) ==
        "unable to parse url: parse \"1:b\": first path segment in URL cannot contain colon");
  // Go 1.26's parseHost (Helm v3.21's Go; the oracle's 1.24.4 predates it): IPv6 literals go
  // through netip.ParseAddr, '[' only first, and http(s) ports follow the first colon.
  CHECK(show("urlParse", {S("http://[fe80::1%25en0]:8080/")}) ==
        "map[fragment: host:[fe80::1%en0]:8080 hostname:fe80::1%en0 opaque: path:/ query: "
        "scheme:http userinfo:]");
  CHECK(error_of("urlParse", {S("http://[1.2.3.4]/")}) ==
        "unable to parse url: parse \"http://[1.2.3.4]/\": invalid IP-literal");
  CHECK(error_of("urlParse", {S("http://a[::1]/")}) ==
        "unable to parse url: parse \"http://a[::1]/\": invalid IP-literal");
  CHECK(error_of("urlParse", {S("http://[::1x]/")}) ==
        "unable to parse url: parse \"http://[::1x]/\": invalid host: ParseAddr(\"::1x\"): "
        "unexpected character, want colon (at \"x\")");
  CHECK(error_of("urlParse", {S("http://[::1%25%2F]/")}) ==
        "unable to parse url: parse \"http://[::1%25%2F]/\": invalid URL escape \"%2F\"");
  CHECK(error_of("urlParse", {S("http://a:1:2/")}) ==
        "unable to parse url: parse \"http://a:1:2/\": invalid port \":1:2\" after host");
  CHECK(show("urlParse", {S("mongodb://a:1,b:2/")}) ==
        "map[fragment: host:a:1,b:2 hostname:a:1,b opaque: path:/ query: scheme:mongodb "
        "userinfo:]");
  CHECK(show("urlJoin", {M({{"scheme", S("https")},
                            {"host", S("h.com")},
                            {"path", S("/a b")},
                            {"query", S("x=1")},
                            {"fragment", S("f g")},
                            {"userinfo", S("u:p@q")}})}) ==
        "https://u:p%40q@h.com/a%20b?x=1#f%20g");
  CHECK(show("urlJoin", {M({{"path", S("a:b")}})}) == "./a:b");
  CHECK(show("urlJoin", {M({{"host", S("h")}, {"path", S("p")}})}) == "//h/p");
  CHECK(error_of("urlJoin", {M({{"host", I(1)}})}) ==
        "unable to parse host key, must be of type string, but int found");
}

TEST_CASE("sprig: JSON functions") {
  CHECK(show("toJson", {M({{"a", S("<b>")}, {"c", F(1.5)}, {"d", L({I(1), N()})}})}) ==
        "{\"a\":\"\\u003cb\\u003e\",\"c\":1.5,\"d\":[1,null]}");
  CHECK(show("toRawJson", {M({{"a", S("<b>")}})}) == "{\"a\":\"<b>\"}");
  CHECK(show("toPrettyJson", {M({{"a", I(1)}, {"b", L({})}})}) == "{\n  \"a\": 1,\n  \"b\": []\n}");
  CHECK(show("fromJson", {S("{\"a\":1}")}) == "map[a:1]");
  CHECK(call("fromJson", {S("x")}).is_nil());
  CHECK(show("mustToJson", {F(1e21)}) == "1e+21");
  CHECK(error_of("mustFromJson", {S("{")}) == "unexpected end of JSON input");
  CHECK(error_of("fail", {S("boom")}) == "boom");
}
