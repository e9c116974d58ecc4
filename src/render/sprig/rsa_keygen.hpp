#pragma once
// RSA key generation for Sprig's genCA, genSelfSignedCert, genSignedCert and genPrivateKey.

#include <openssl/evp.h>

namespace ejob::render::sprig {

/// A new two-prime RSA key of `bits` bits (a multiple of 128, at least 1024) with public
/// exponent 65537, generated the way Go's crypto/rsa does: random odd candidates with the top two
/// bits set, trial division by small primes, then Miller-Rabin with Go's round counts for
/// random candidates — not OpenSSL's SP 800-56B path (EVP_PKEY_keygen), whose constant-time gcd
/// on every candidate made a 2048-bit key cost ~4-5 times as much CPU (~140 against ~30 ms
/// here). Returns nullptr when OpenSSL fails (no randomness, no memory); the caller owns it.
EVP_PKEY* generate_rsa_key(int bits);

}  // namespace ejob::render::sprig
