// Expected values: Go 1.19 + Sprig 3.2.3 (text/template with sprig.TxtFuncMap()).
#include <catch2/catch.hpp>

#include "src/render/sprig/testing.hpp"

using namespace ejob::render::sprig;
using namespace ejob::render::sprig::testing;

TEST_CASE("sprig: digests and derivePassword") {
  CHECK(show("sha256sum", {S("abc")}) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(show("sha1sum", {S("abc")}) == "a9993e364706816aba3e25717850c26c9cd0d89d");
  // Sprig v3.3.0's crypto_test.go TestSha512Sum.
  CHECK(show("sha512sum", {S("abc")}) ==
        "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3"
        "feebbd454d4423643ce80e2a9ac94fa54ca49f");
  CHECK(show("adler32sum", {S("abc")}) == "38600999");
  CHECK(show("adler32sum", {S("hello")}) == "103547413");
  CHECK(show("derivePassword", {I(1), S("long"), S("password"), S("user"), S("example.com")}) ==
        "ZedaFaxcZaso9*");
  CHECK(show("derivePassword", {I(1), S("nope"), S("p"), S("u"), S("s")}) ==
        "cannot find password template nope");
}

TEST_CASE("sprig: bcrypt, htpasswd, AES round trip and their errors") {
  std::string hash = call("bcrypt", {S("secret")}).as_string();
  CHECK(hash.substr(0, 7) == "$2a$10$");
  CHECK(hash.size() == 60);
  CHECK(show("htpasswd", {S("a:b"), S("c")}) == "invalid username: a:b");
  CHECK(call("htpasswd", {S("user"), S("pw")}).as_string().substr(0, 12) == "user:$2a$10$");
  Value enc = call("encryptAES", {S("secretkey"), S("plaintext")});
  CHECK(show("decryptAES", {S("secretkey"), enc}) == "plaintext");
  CHECK(show("encryptAES", {S("k"), S("")}) == "");
  CHECK(error_of("decryptAES", {S("k"), S("YWJj")}) ==
        "runtime error: slice bounds out of range [:16] with capacity 3");
  CHECK(error_of("decryptAES", {S("k"), S("!!")}) == "illegal base64 data at input byte 0");
  std::string uuid = call("uuidv4", {}).as_string();
  CHECK(uuid.size() == 36);
  CHECK(uuid[14] == '4');
  CHECK(call("randBytes", {I(5)}).as_string().size() == 8);
}

TEST_CASE("sprig: genCA and genSignedCert produce a CA and a certificate it signs") {
  Value ca = call("genCA", {S("foo"), I(365)});
  CHECK(ca.type_name() == "sprig.certificate");
  Value cert_pem;
  REQUIRE(ca.as_object().field("Cert", cert_pem));
  CHECK(cert_pem.as_string().starts_with("-----BEGIN CERTIFICATE-----\n"));
  Value key_pem;
  REQUIRE(ca.as_object().field("Key", key_pem));
  CHECK(key_pem.as_string().starts_with("-----BEGIN RSA PRIVATE KEY-----\n"));
  Value leaf = call("genSignedCert", {S("bar"), L({S("10.0.0.1")}), L({S("a.b")}), I(30), ca});
  Value leaf_pem;
  REQUIRE(leaf.as_object().field("Cert", leaf_pem));
  CHECK(leaf_pem.as_string().ends_with("-----END CERTIFICATE-----\n"));
  CHECK(error_of("genSignedCert", {S("bar"), L({}), L({}), I(30), M({})}) ==
        "wrong type for value; expected sprig.certificate; got map[string]interface {}");
  CHECK(error_of("genSelfSignedCert", {S("x"), L({I(1)}), L({}), I(3)}) ==
        "error parsing ip: 1 is not a string");
  CHECK(show("genPrivateKey", {S("foo")}) == "Unknown type foo");
  std::string ec = call("genPrivateKey", {S("ecdsa")}).as_string();
  CHECK(ec.starts_with("-----BEGIN EC PRIVATE KEY-----\n"));
  Value with_key = call("genCAWithKey", {S("k"), I(1), S(ec)});
  Value with_key_pem;
  REQUIRE(with_key.as_object().field("Key", with_key_pem));
  CHECK(with_key_pem.as_string() == ec);
  CHECK(error_of("genCAWithKey", {S("k"), I(1), S("nope")}) ==
        "parsing private key: no PEM data in input");
}
