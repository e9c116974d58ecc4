#include "src/render/sprig/rsa_keygen.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>

#include <catch2/catch.hpp>
#include <memory>

using namespace ejob::render::sprig;

namespace {

struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct CtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};

/// OpenSSL's full RSA check: p and q prime (its own 64-round test), n = pq, d inverts e, and the
/// CRT values agree.
bool openssl_accepts(EVP_PKEY* key) {
  std::unique_ptr<EVP_PKEY_CTX, CtxFree> ctx(EVP_PKEY_CTX_new_from_pkey(nullptr, key, nullptr));
  return ctx && EVP_PKEY_check(ctx.get()) == 1 && EVP_PKEY_pairwise_check(ctx.get()) == 1;
}

}  // namespace

TEST_CASE("sprig: generated RSA keys have the asked size, e = 65537, and pass OpenSSL's check") {
  for (int bits : {1024, 2048}) {
    std::unique_ptr<EVP_PKEY, KeyFree> key(generate_rsa_key(bits));
    REQUIRE(key);
    CHECK(EVP_PKEY_get_base_id(key.get()) == EVP_PKEY_RSA);
    CHECK(EVP_PKEY_get_bits(key.get()) == bits);
    BIGNUM* e = nullptr;
    REQUIRE(EVP_PKEY_get_bn_param(key.get(), OSSL_PKEY_PARAM_RSA_E, &e) == 1);
    CHECK(BN_get_word(e) == 65537);
    BN_free(e);
    CHECK(openssl_accepts(key.get()));
  }
}

TEST_CASE("sprig: two generated RSA keys differ") {
  std::unique_ptr<EVP_PKEY, KeyFree> a(generate_rsa_key(1024));
  std::unique_ptr<EVP_PKEY, KeyFree> b(generate_rsa_key(1024));
  REQUIRE(a);
  REQUIRE(b);
  CHECK(EVP_PKEY_eq(a.get(), b.get()) != 1);
}
