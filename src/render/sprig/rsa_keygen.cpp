// Two-prime RSA key generation as Go's crypto/rsa does it (see rsa_keygen.hpp for why not
// OpenSSL's EVP_PKEY_keygen): the primes are random, so the keys, like Go's, differ run by run.
#include "src/render/sprig/rsa_keygen.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/param_build.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "src/render/sprig/openssl_ptr.hpp"

namespace ejob::render::sprig {

namespace {

using Bn = OpensslPtr<BIGNUM, BN_clear_free>;
using BnCtx = OpensslPtr<BN_CTX, BN_CTX_free>;
using MontCtx = OpensslPtr<BN_MONT_CTX, BN_MONT_CTX_free>;
using ParamBld = OpensslPtr<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>;
using Params = OpensslPtr<OSSL_PARAM, OSSL_PARAM_free>;
using PKeyCtx = OpensslPtr<EVP_PKEY_CTX, EVP_PKEY_CTX_free>;

constexpr BN_ULONG k_public_exponent = 65537;
// Candidates share no factor below this with a prime; larger tables cost more division per
// candidate than the Miller-Rabin tests they save.
constexpr uint32_t k_sieve_limit = 4096;

Bn new_bn() { return Bn(BN_secure_new()); }

/// The odd primes below k_sieve_limit, multiplied into groups that each fit a BN_ULONG, so
/// that one BN_mod_word per group does the trial division of a candidate.
struct SmallPrimes {
  std::vector<uint32_t> primes;
  std::vector<BN_ULONG> products;
  std::vector<size_t> group_end;  // primes[group_end[i-1] .. group_end[i]) make products[i]
};

SmallPrimes make_small_primes() {
  SmallPrimes s;
  std::vector<bool> composite(k_sieve_limit, false);
  for (uint32_t i = 3; i < k_sieve_limit; i += 2) {
    if (composite[i]) continue;
    s.primes.push_back(i);
    for (uint32_t j = i * i; j < k_sieve_limit; j += 2 * i) composite[j] = true;
  }
  BN_ULONG product = 1;
  for (size_t i = 0; i < s.primes.size(); ++i) {
    if (product > static_cast<BN_ULONG>(-1) / s.primes[i]) {
      s.products.push_back(product);
      s.group_end.push_back(i);
      product = 1;
    }
    product *= s.primes[i];
  }
  s.products.push_back(product);
  s.group_end.push_back(s.primes.size());
  return s;
}

const SmallPrimes& small_primes() {
  static const SmallPrimes s = make_small_primes();
  return s;
}

/// Whether n (far larger than every small prime) has a small prime factor. An OpenSSL failure
/// reads as "divisible", which only discards the candidate.
bool has_small_factor(const BIGNUM* n) {
  const SmallPrimes& s = small_primes();
  size_t begin = 0;
  for (size_t g = 0; g < s.products.size(); ++g) {
    BN_ULONG r = BN_mod_word(n, s.products[g]);
    if (r == static_cast<BN_ULONG>(-1)) return true;
    for (size_t i = begin; i < s.group_end[g]; ++i) {
      if (r % s.primes[i] == 0) return true;
    }
    begin = s.group_end[g];
  }
  return false;
}

/// Miller-Rabin rounds for a random candidate of `bits` bits: the counts of Go's crypto/rsa
/// (keygen.go, from BoringSSL's bound for random candidates; OpenSSL 1.1 ran 3 on 1024 bits).
int miller_rabin_rounds(int bits) {
  if (bits >= 1345) return 4;
  if (bits >= 476) return 5;
  return 8;
}

/// One Miller-Rabin round per random base; false as soon as a base witnesses compositeness.
/// An OpenSSL failure also reads false (the candidate is discarded, never accepted).
bool probably_prime(const BIGNUM* n, int rounds, BN_CTX* ctx) {
  Bn n_minus_1 = new_bn(), d = new_bn(), base = new_bn(), x = new_bn(), range = new_bn();
  MontCtx mont(BN_MONT_CTX_new());
  if (!n_minus_1 || !d || !base || !x || !range || !mont) return false;
  if (BN_sub(n_minus_1.get(), n, BN_value_one()) != 1) return false;
  int s = 0;
  while (!BN_is_bit_set(n_minus_1.get(), s)) ++s;
  if (BN_rshift(d.get(), n_minus_1.get(), s) != 1 || BN_MONT_CTX_set(mont.get(), n, ctx) != 1 ||
      !BN_copy(range.get(), n_minus_1.get()) || BN_sub_word(range.get(), 2) != 1) {
    return false;
  }
  for (int round = 0; round < rounds; ++round) {
    // base in [2, n-2]
    if (BN_priv_rand_range_ex(base.get(), range.get(), 0, ctx) != 1 ||
        BN_add_word(base.get(), 2) != 1 ||
        BN_mod_exp_mont(x.get(), base.get(), d.get(), n, ctx, mont.get()) != 1) {
      return false;
    }
    if (BN_is_one(x.get()) || BN_cmp(x.get(), n_minus_1.get()) == 0) continue;
    bool witness = true;
    for (int i = 1; i < s && witness; ++i) {
      if (BN_mod_sqr(x.get(), x.get(), n, ctx) != 1 || BN_is_one(x.get())) return false;
      witness = BN_cmp(x.get(), n_minus_1.get()) != 0;
    }
    if (witness) return false;
  }
  return true;
}

/// A random prime of `bits` bits with its top two bits set (so that the product of two has
/// exactly twice the bits) and p - 1 prime to the public exponent.
Bn random_prime(int bits, BN_CTX* ctx) {
  Bn p = new_bn();
  if (!p) return nullptr;
  for (;;) {
    if (BN_priv_rand_ex(p.get(), bits, BN_RAND_TOP_TWO, BN_RAND_BOTTOM_ODD, 0, ctx) != 1) {
      return nullptr;
    }
    // 65537 is prime, so gcd(p - 1, e) = 1 unless p = 1 (mod e).
    if (BN_mod_word(p.get(), k_public_exponent) == 1 || has_small_factor(p.get())) continue;
    if (probably_prime(p.get(), miller_rabin_rounds(bits), ctx)) return p;
  }
}

/// The CRT key of primes p and q: d = e^-1 mod (p-1)(q-1), as OpenSSL's and Go's older key
/// generators compute it (any d that inverts e is a valid key; the values are random anyway).
struct RsaParts {
  Bn n = new_bn(), e = new_bn(), d = new_bn(), dp = new_bn(), dq = new_bn(), qinv = new_bn();
};

bool derive(const BIGNUM* p, const BIGNUM* q, RsaParts& k, BN_CTX* ctx) {
  Bn p1 = new_bn(), q1 = new_bn(), phi = new_bn();
  if (!p1 || !q1 || !phi || !k.n || !k.e || !k.d || !k.dp || !k.dq || !k.qinv) return false;
  if (!BN_copy(p1.get(), p) || BN_sub_word(p1.get(), 1) != 1 || !BN_copy(q1.get(), q) ||
      BN_sub_word(q1.get(), 1) != 1 || BN_mul(k.n.get(), p, q, ctx) != 1 ||
      BN_mul(phi.get(), p1.get(), q1.get(), ctx) != 1 ||
      BN_set_word(k.e.get(), k_public_exponent) != 1) {
    return false;
  }
  // The secrets take OpenSSL's constant-time paths.
  BN_set_flags(phi.get(), BN_FLG_CONSTTIME);
  BN_set_flags(p1.get(), BN_FLG_CONSTTIME);
  BN_set_flags(q1.get(), BN_FLG_CONSTTIME);
  return BN_mod_inverse(k.d.get(), k.e.get(), phi.get(), ctx) != nullptr &&
         BN_mod(k.dp.get(), k.d.get(), p1.get(), ctx) == 1 &&
         BN_mod(k.dq.get(), k.d.get(), q1.get(), ctx) == 1 &&
         BN_mod_inverse(k.qinv.get(), q, p, ctx) != nullptr;
}

EVP_PKEY* to_pkey(const BIGNUM* p, const BIGNUM* q, const RsaParts& k) {
  ParamBld bld(OSSL_PARAM_BLD_new());
  if (!bld || OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_N, k.n.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_E, k.e.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_D, k.d.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_FACTOR1, p) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_FACTOR2, q) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_EXPONENT1, k.dp.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_EXPONENT2, k.dq.get()) != 1 ||
      OSSL_PARAM_BLD_push_BN(bld.get(), OSSL_PKEY_PARAM_RSA_COEFFICIENT1, k.qinv.get()) != 1) {
    return nullptr;
  }
  Params params(OSSL_PARAM_BLD_to_param(bld.get()));
  PKeyCtx ctx(EVP_PKEY_CTX_new_from_name(nullptr, "RSA", nullptr));
  EVP_PKEY* key = nullptr;
  if (!params || !ctx || EVP_PKEY_fromdata_init(ctx.get()) != 1 ||
      EVP_PKEY_fromdata(ctx.get(), &key, EVP_PKEY_KEYPAIR, params.get()) != 1) {
    return nullptr;
  }
  return key;
}

}  // namespace

EVP_PKEY* generate_rsa_key(int bits) {
  BnCtx ctx(BN_CTX_secure_new());
  if (!ctx) return nullptr;
  for (;;) {
    Bn p = random_prime(bits / 2, ctx.get());
    Bn q = p ? random_prime(bits / 2, ctx.get()) : nullptr;
    if (!q) return nullptr;
    // Equal primes would give a key anyone can factor (sqrt n); astronomically unlikely.
    if (BN_cmp(p.get(), q.get()) == 0) continue;
    RsaParts parts;
    if (!derive(p.get(), q.get(), parts, ctx.get())) return nullptr;
    return to_pkey(p.get(), q.get(), parts);
  }
}

}  // namespace ejob::render::sprig
