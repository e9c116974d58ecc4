#include "src/kubeapi/tls_material.hpp"

#include <curl/curl.h>
#include <dlfcn.h>
#include <openssl/decoder.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <mutex>
#include <string_view>
#include <vector>

namespace ejob::kubeapi {
namespace {

// The OpenSSL functions TlsMaterial calls, from libcurl's libssl.so.3 / libcrypto.so.3.
#define EJOB_SSL_FUNCTIONS(X) \
  X(SSL_CTX_set1_cert_store)  \
  X(SSL_CTX_use_certificate)  \
  X(SSL_CTX_use_PrivateKey)   \
  X(SSL_CTX_ctrl)
#define EJOB_CRYPTO_FUNCTIONS(X)   \
  X(BIO_new_mem_buf)               \
  X(BIO_free)                      \
  X(PEM_read_bio_X509)             \
  X(PEM_read_bio_PrivateKey)       \
  X(X509_free)                     \
  X(X509_STORE_set_flags)          \
  X(EVP_PKEY_free)                 \
  X(X509_STORE_new)                \
  X(X509_STORE_add_cert)           \
  X(X509_STORE_free)               \
  X(ERR_clear_error)               \
  X(ERR_peek_last_error)           \
  X(ERR_error_string_n)            \
  X(OSSL_DECODER_CTX_new_for_pkey) \
  X(OSSL_DECODER_from_data)        \
  X(OSSL_DECODER_CTX_free)

struct OpenSsl {
#define EJOB_SSL_POINTER(fn) decltype(&::fn) fn = nullptr;
  EJOB_SSL_FUNCTIONS(EJOB_SSL_POINTER)
  EJOB_CRYPTO_FUNCTIONS(EJOB_SSL_POINTER)
#undef EJOB_SSL_POINTER

  /// Resolves the functions in the libraries libcurl mapped; false when one is missing.
  bool resolve() {
    void* ssl = dlopen("libssl.so.3", RTLD_LAZY | RTLD_NOLOAD);
    void* crypto = dlopen("libcrypto.so.3", RTLD_LAZY | RTLD_NOLOAD);
    if (ssl == nullptr || crypto == nullptr) return false;
    bool ok = true;
#define EJOB_SSL_RESOLVE(lib, fn)                          \
  fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, #fn)); \
  ok = ok && fn != nullptr;
#define EJOB_SSL_FROM_SSL(fn) EJOB_SSL_RESOLVE(ssl, fn)
#define EJOB_SSL_FROM_CRYPTO(fn) EJOB_SSL_RESOLVE(crypto, fn)
    EJOB_SSL_FUNCTIONS(EJOB_SSL_FROM_SSL)
    EJOB_CRYPTO_FUNCTIONS(EJOB_SSL_FROM_CRYPTO)
#undef EJOB_SSL_FROM_CRYPTO
#undef EJOB_SSL_FROM_SSL
#undef EJOB_SSL_RESOLVE
    return ok;
  }

  /// The last OpenSSL error of this thread as text (the queue is cleared).
  std::string last_error() const {
    char buf[256] = {0};
    const unsigned long e = ERR_peek_last_error();
    if (e != 0) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return buf[0] ? buf : "no PEM data";
  }

  /// Every certificate in `pem`, in order.
  std::vector<X509*> certificates(const std::string& pem) const {
    std::vector<X509*> out;
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    if (bio == nullptr) return out;
    while (X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) out.push_back(x);
    ERR_clear_error();  // the end of the data is reported as an error
    BIO_free(bio);
    return out;
  }

  /// The private key in `pem`. A PKCS#1 RSA or SEC1 EC key (what kubeadm and openssl's
  /// traditional output write) is decoded with its type named: OpenSSL 3.0 otherwise gathers
  /// the decoders of every key type first (~4.4 M instructions a key, named ~1.4 M).
  EVP_PKEY* private_key(const std::string& pem) const {
    const size_t begin = pem.find("-----BEGIN ");
    const std::string_view first =
        begin == std::string::npos ? std::string_view() : std::string_view(pem).substr(begin);
    const char* type = first.starts_with("-----BEGIN EC PRIVATE KEY-----")    ? "EC"
                       : first.starts_with("-----BEGIN RSA PRIVATE KEY-----") ? "RSA"
                                                                              : nullptr;
    EVP_PKEY* key = nullptr;
    if (type != nullptr) {
      OSSL_DECODER_CTX* ctx = OSSL_DECODER_CTX_new_for_pkey(&key, "PEM", "type-specific", type,
                                                            EVP_PKEY_KEYPAIR, nullptr, nullptr);
      const auto* data = reinterpret_cast<const unsigned char*>(pem.data());
      size_t len = pem.size();
      if (ctx != nullptr && OSSL_DECODER_from_data(ctx, &data, &len) != 1) key = nullptr;
      if (ctx != nullptr) OSSL_DECODER_CTX_free(ctx);
      if (key != nullptr) return key;
      ERR_clear_error();  // the general decoder below reports what is wrong
    }
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    if (bio == nullptr) return nullptr;
    key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
    BIO_free(bio);
    return key;
  }
};

/// curl's TLS library is OpenSSL 3 (the only one whose SSL_CTX this code knows).
bool curl_uses_openssl3() {
  const curl_version_info_data* v = curl_version_info(CURLVERSION_NOW);
  return v != nullptr && v->ssl_version != nullptr &&
         std::string_view(v->ssl_version).substr(0, 10) == "OpenSSL/3.";
}

}  // namespace

struct TlsMaterial::Impl {
  OpenSsl ssl;
  X509_STORE* store = nullptr;  ///< the trusted CAs; nullptr: the system store (curl's)

  std::mutex client_mutex;
  std::string cert_pem;  ///< the identity parsed below
  std::string key_pem;
  std::vector<X509*> chain;  ///< leaf first
  EVP_PKEY* key = nullptr;

  ~Impl() {
    forget_client();
    if (store != nullptr) ssl.X509_STORE_free(store);
  }

  void forget_client() {
    for (X509* x : chain) ssl.X509_free(x);
    chain.clear();
    if (key != nullptr) ssl.EVP_PKEY_free(key);
    key = nullptr;
    cert_pem.clear();
    key_pem.clear();
  }

  /// Parses the client pair unless it is the one parsed last; called with client_mutex held.
  std::string parse_client(const std::string& cert, const std::string& private_key) {
    if (key != nullptr && cert == cert_pem && private_key == key_pem) return {};
    forget_client();
    chain = ssl.certificates(cert);
    if (chain.empty()) return "cannot read the client certificate: " + ssl.last_error();
    key = ssl.private_key(private_key);
    if (key == nullptr) {
      const std::string why = ssl.last_error();
      forget_client();
      return "cannot read the client key: " + why;
    }
    cert_pem = cert;
    key_pem = private_key;
    return {};
  }

  /// Puts the parsed client pair into `ctx`; called with client_mutex held.
  std::string use_client(SSL_CTX* ctx) {
    if (ssl.SSL_CTX_use_certificate(ctx, chain.front()) != 1)
      return "cannot use the client certificate: " + ssl.last_error();
    for (size_t i = 1; i < chain.size(); ++i)  // SSL_CTX_add1_chain_cert
      if (ssl.SSL_CTX_ctrl(ctx, SSL_CTRL_CHAIN_CERT, 1, chain[i]) != 1)
        return "cannot use the client certificate chain: " + ssl.last_error();
    // Checks that the key belongs to the certificate.
    if (ssl.SSL_CTX_use_PrivateKey(ctx, key) != 1)
      return "cannot use the client key: " + ssl.last_error();
    return {};
  }
};

TlsMaterial::TlsMaterial(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

TlsMaterial::~TlsMaterial() = default;

std::unique_ptr<TlsMaterial> TlsMaterial::load(const std::string& ca_pem) {
  if (!curl_uses_openssl3()) return nullptr;
  auto impl = std::make_unique<Impl>();
  if (!impl->ssl.resolve()) return nullptr;
  if (!ca_pem.empty()) {
    std::vector<X509*> cas = impl->ssl.certificates(ca_pem);
    if (cas.empty()) return nullptr;
    impl->store = impl->ssl.X509_STORE_new();
    // As curl sets it on the store it fills: a trusted intermediate is an anchor too.
    bool ok = impl->store != nullptr &&
              impl->ssl.X509_STORE_set_flags(impl->store, X509_V_FLAG_PARTIAL_CHAIN) == 1;
    for (X509* x : cas) {
      ok = ok && impl->ssl.X509_STORE_add_cert(impl->store, x) == 1;  // takes a reference
      impl->ssl.X509_free(x);
    }
    if (!ok) return nullptr;
  }
  return std::unique_ptr<TlsMaterial>(new TlsMaterial(std::move(impl)));
}

bool TlsMaterial::has_ca() const { return m_impl->store != nullptr; }

std::string TlsMaterial::install(void* ssl_ctx, const std::string& cert_pem,
                                 const std::string& key_pem) {
  auto* ctx = static_cast<SSL_CTX*>(ssl_ctx);
  Impl& m = *m_impl;
  if (m.store != nullptr) m.ssl.SSL_CTX_set1_cert_store(ctx, m.store);  // shared, counted
  if (cert_pem.empty()) return {};
  std::lock_guard lock(m.client_mutex);
  std::string why = m.parse_client(cert_pem, key_pem);
  return why.empty() ? m.use_client(ctx) : why;
}

}  // namespace ejob::kubeapi
