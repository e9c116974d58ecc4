#pragma once
/// TLS material parsed once per process and handed to each of libcurl's OpenSSL contexts.
///
/// libcurl 7.88 makes a new SSL_CTX for every connection and parses the CURLOPT_*_BLOB PEMs
/// into it each time: with OpenSSL 3 a certificate costs ~2 M instructions (its public key goes
/// through the provider decoders) and a private key ~4.5 M, so two connections spent ~16 M of
/// submit's ~80 M on parsing the same three PEMs twice. TlsMaterial parses the CA bundle once
/// into an X509_STORE and the client certificate and key once per identity, and installs them
/// from CURLOPT_SSL_CTX_FUNCTION (reference-counted, nothing copied).
///
/// The OpenSSL functions are those of the libssl/libcrypto that libcurl itself uses (looked up
/// in the already mapped libssl.so.3 and libcrypto.so.3): the lean executable's own static
/// libcrypto is a different library whose objects libssl cannot take. No OpenSSL type appears
/// in this header.

#include <memory>
#include <string>

namespace ejob::kubeapi {

class TlsMaterial {
 public:
  /// The material for a server whose trusted CAs are `ca_pem` (empty: the system store, left to
  /// curl). Returns nullptr when libcurl's TLS library is not OpenSSL 3 as mapped in this
  /// process, or when `ca_pem` holds no certificate: the caller then hands curl the PEM blobs
  /// as before, and curl reports what is wrong with them.
  static std::unique_ptr<TlsMaterial> load(const std::string& ca_pem);

  ~TlsMaterial();
  TlsMaterial(const TlsMaterial&) = delete;
  TlsMaterial& operator=(const TlsMaterial&) = delete;

  /// Whether load() took the trusted CAs (the caller then tells curl to load none).
  [[nodiscard]] bool has_ca() const;

  /// Puts the trusted CAs and, when `cert_pem` is not empty, the client certificate (with its
  /// chain) and key into `ssl_ctx` (an SSL_CTX*). The client pair is parsed on first use and
  /// reused while it stays the same. Returns an empty string, or why it failed. Thread-safe.
  std::string install(void* ssl_ctx, const std::string& cert_pem, const std::string& key_pem);

 private:
  struct Impl;
  explicit TlsMaterial(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

}  // namespace ejob::kubeapi
