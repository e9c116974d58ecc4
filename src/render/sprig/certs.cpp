// Sprig's key and certificate functions (crypto.go): genPrivateKey, buildCustomCert, genCA,
// genCAWithKey, genSelfSignedCert(WithKey), genSignedCert(WithKey), built with OpenSSL to the
// shape Go's x509.CreateCertificate gives: v3, random 128-bit serial, subject CN only,
// NotBefore = now, NotAfter = now + days, KeyUsage (critical) digitalSignature +
// keyEncipherment (+ keyCertSign for a CA), ExtKeyUsage serverAuth + clientAuth,
// BasicConstraints (critical), SubjectKeyId for CAs, AuthorityKeyId from a CA signer, SANs.
// Keys are PEM as Go writes them (`RSA PRIVATE KEY` PKCS#1, `EC PRIVATE KEY` SEC1, `PRIVATE
// KEY` PKCS#8 for ed25519, `DSA PRIVATE KEY`), base64 in 64-column lines.
#include <openssl/bio.h>
#include <openssl/encoder.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <string>
#include <vector>

#include "src/render/sprig/openssl_ptr.hpp"
#include "src/render/sprig/rsa_keygen.hpp"
#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

using PKey = OpensslPtr<EVP_PKEY, EVP_PKEY_free>;
using X509Ptr = OpensslPtr<X509, X509_free>;
using BioPtr = OpensslPtr<BIO, BIO_free_all>;
using ExtPtr = OpensslPtr<X509_EXTENSION, X509_EXTENSION_free>;
using EncPtr = OpensslPtr<OSSL_ENCODER_CTX, OSSL_ENCODER_CTX_free>;
using BnPtr = OpensslPtr<BIGNUM, BN_free>;

/// Sprig's `certificate` struct: fields Cert and Key (PEM strings).
class CertificateObject : public Object {
 public:
  CertificateObject(std::string cert, std::string key)
      : m_cert(std::move(cert)), m_key(std::move(key)) {}
  [[nodiscard]] std::string type_name() const override { return "sprig.certificate"; }
  [[nodiscard]] bool has_method(std::string_view /*name*/) const override { return false; }
  [[nodiscard]] Value call(std::string_view name, std::span<const Value> /*args*/) const override {
    throw FuncError{"sprig.certificate has no method " + std::string(name)};
  }
  bool field(std::string_view name, Value& out) const override {
    if (name == "Cert") out = Value::string(m_cert);
    if (name == "Key") out = Value::string(m_key);
    return name == "Cert" || name == "Key";
  }
  [[nodiscard]] std::string format_v() const override { return "{" + m_cert + " " + m_key + "}"; }
  [[nodiscard]] const std::string& cert() const { return m_cert; }
  [[nodiscard]] const std::string& key() const { return m_key; }

 private:
  std::string m_cert;
  std::string m_key;
};

Value certificate(std::string cert, std::string key) {
  return Value::object(std::make_shared<CertificateObject>(std::move(cert), std::move(key)));
}

[[noreturn]] void fail(const std::string& message) { throw FuncError{message}; }

/// encoding/pem.Encode.
std::string pem_encode(const std::string& type, const std::string& der) {
  std::string b64 = base64_encode(der);
  std::string out = "-----BEGIN " + type + "-----\n";
  for (size_t i = 0; i < b64.size(); i += 64) out += b64.substr(i, 64) + "\n";
  return out + "-----END " + type + "-----\n";
}

std::string key_der(EVP_PKEY* key, const char* structure) {
  EncPtr ctx(
      OSSL_ENCODER_CTX_new_for_pkey(key, OSSL_KEYMGMT_SELECT_ALL, "DER", structure, nullptr));
  unsigned char* data = nullptr;
  size_t len = 0;
  if (!ctx || OSSL_ENCODER_to_data(ctx.get(), &data, &len) != 1) fail("error pem-encoding key");
  std::string out(reinterpret_cast<char*>(data), len);
  OPENSSL_free(data);
  return out;
}

/// Sprig's pemBlockForKey.
std::string key_pem(EVP_PKEY* key) {
  switch (EVP_PKEY_get_base_id(key)) {
    case EVP_PKEY_RSA: return pem_encode("RSA PRIVATE KEY", key_der(key, "type-specific"));
    case EVP_PKEY_EC: return pem_encode("EC PRIVATE KEY", key_der(key, "type-specific"));
    case EVP_PKEY_DSA: return pem_encode("DSA PRIVATE KEY", key_der(key, "type-specific"));
    default: return pem_encode("PRIVATE KEY", key_der(key, "PrivateKeyInfo"));
  }
}

PKey generate(const std::string& type) {
  EVP_PKEY* key = nullptr;
  if (type.empty() || type == "rsa") {
    key = generate_rsa_key(4096);
  } else if (type == "ecdsa") {
    key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
  } else if (type == "ed25519") {
    key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  } else if (type == "dsa") {
    OpensslPtr<EVP_PKEY_CTX, EVP_PKEY_CTX_free> pctx(
        EVP_PKEY_CTX_new_from_name(nullptr, "DSA", nullptr));
    EVP_PKEY* params = nullptr;
    if (pctx && EVP_PKEY_paramgen_init(pctx.get()) == 1 &&
        EVP_PKEY_CTX_set_dsa_paramgen_bits(pctx.get(), 2048) == 1 &&
        EVP_PKEY_CTX_set_dsa_paramgen_q_bits(pctx.get(), 256) == 1 &&
        EVP_PKEY_paramgen(pctx.get(), &params) == 1) {
      PKey p(params);
      OpensslPtr<EVP_PKEY_CTX, EVP_PKEY_CTX_free> kctx(
          EVP_PKEY_CTX_new_from_pkey(nullptr, p.get(), nullptr));
      if (kctx && EVP_PKEY_keygen_init(kctx.get()) == 1) EVP_PKEY_keygen(kctx.get(), &key);
    }
  }
  return PKey(key);
}

std::string gen_private_key(const std::string& type) {
  if (!type.empty() && type != "rsa" && type != "dsa" && type != "ecdsa" && type != "ed25519") {
    return "Unknown type " + type;
  }
  PKey key = generate(type);
  if (!key) return "failed to generate private key: key generation failed";
  return key_pem(key.get());
}

/// The first PEM block's type (pem.Decode), or "" when there is none.
std::string pem_type(const std::string& text) {
  size_t begin = text.find("-----BEGIN ");
  if (begin == std::string::npos) return "";
  size_t end = text.find("-----", begin + 11);
  if (end == std::string::npos) return "";
  return text.substr(begin + 11, end - begin - 11);
}

/// Sprig's parsePrivateKeyPEM.
PKey parse_key(const std::string& pem) {
  std::string type = pem_type(pem);
  if (type.empty()) fail("no PEM data in input");
  bool known = type == "PRIVATE KEY" || type == "RSA PRIVATE KEY" || type == "EC PRIVATE KEY" ||
               type == "DSA PRIVATE KEY";
  if (type != "PRIVATE KEY" && !type.ends_with(" PRIVATE KEY")) {
    fail("no private key data in PEM block of type " + type);
  }
  if (!known) fail("invalid private key type " + type);
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  PKey key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    if (type == "PRIVATE KEY") fail("decoding PEM as PKCS#8: asn1: structure error");
    std::string kind = type.substr(0, type.size() - 12);
    fail("parsing " + kind + " private key from PEM: asn1: structure error");
  }
  return key;
}

X509Ptr parse_cert(const std::string& pem, const std::string& what) {
  if (pem_type(pem).empty()) fail("unable to decode certificate");
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) fail("error parsing certificate: " + what + ": x509: malformed certificate");
  return cert;
}

std::vector<std::string> string_items(const Value& list, const std::string& what) {
  std::vector<std::string> out;
  if (list.is_nil()) return out;
  for (const Value& v : list.as_list()) {
    if (!v.is_string()) fail(what + strval(v) + " is not a string");  // Go's %v
    out.push_back(v.as_string());
  }
  return out;
}

/// Whether net.ParseIP accepts the text (IPv4 dotted quad or IPv6, no prefix length).
bool valid_ip(const std::string& ip) {
  OpensslPtr<ASN1_OCTET_STRING, ASN1_OCTET_STRING_free> o(a2i_IPADDRESS(ip.c_str()));
  return o != nullptr && ip.find('/') == std::string::npos;
}

void add_ext(X509* cert, X509V3_CTX* ctx, int nid, const std::string& value) {
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, ctx, nid, value.c_str()));
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) fail("error creating certificate: extension");
}

struct Request {
  std::string cn;
  std::vector<std::string> ips;
  std::vector<std::string> dns;
  int64_t days = 0;
  bool is_ca = false;
};

Request make_request(const FuncArgs& a, bool with_sans, bool is_ca) {
  Request r;
  r.cn = a[0].as_string();
  r.is_ca = is_ca;
  if (with_sans) {
    for (const Value& ip : a[1].as_list()) {
      if (!ip.is_string()) fail("error parsing ip: " + strval(ip) + " is not a string");
      if (!valid_ip(ip.as_string())) fail("error parsing ip: " + ip.as_string());
      r.ips.push_back(ip.as_string());
    }
    r.dns = string_items(a[2], "error processing alternate dns name: ");
    r.days = a[3].as_int();
  } else {
    r.days = a[1].as_int();
  }
  return r;
}

/// getCertAndKey: signs `req` for `signee` with `signer` (issuer = signer_cert or self).
Value build(const Env& env, const Request& req, EVP_PKEY* signee, X509* signer_cert,
            EVP_PKEY* signer_key) {
  X509Ptr cert(X509_new());
  X509_set_version(cert.get(), 2);
  unsigned char serial_bytes[16];
  RAND_bytes(serial_bytes, sizeof serial_bytes);
  BnPtr serial(BN_bin2bn(serial_bytes, sizeof serial_bytes, nullptr));
  BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get()));
  X509_NAME* name = X509_get_subject_name(cert.get());
  if (!req.cn.empty()) {
    // encoding/asn1 writes a PrintableString when it can, else a UTF8String.
    bool printable =
        req.cn.find_first_not_of(
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 '()+,-./:=?*&") ==
        std::string::npos;
    X509_NAME_add_entry_by_NID(name, NID_commonName,
                               printable ? V_ASN1_PRINTABLESTRING : V_ASN1_UTF8STRING,
                               reinterpret_cast<const unsigned char*>(req.cn.c_str()), -1, -1, 0);
  }
  X509_set_issuer_name(cert.get(), signer_cert ? X509_get_subject_name(signer_cert) : name);
  time_t now = static_cast<time_t>(env.now_unix_nanos() / 1000000000);
  ASN1_TIME_set(X509_getm_notBefore(cert.get()), now);
  ASN1_TIME_set(X509_getm_notAfter(cert.get()), now + req.days * 86400);
  X509_set_pubkey(cert.get(), signee);
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, signer_cert ? signer_cert : cert.get(), cert.get(), nullptr, nullptr, 0);
  add_ext(cert.get(), &ctx, NID_key_usage,
          req.is_ca ? "critical,digitalSignature,keyEncipherment,keyCertSign"
                    : "critical,digitalSignature,keyEncipherment");
  add_ext(cert.get(), &ctx, NID_ext_key_usage, "serverAuth,clientAuth");
  add_ext(cert.get(), &ctx, NID_basic_constraints,
          req.is_ca ? "critical,CA:TRUE" : "critical,CA:FALSE");
  if (req.is_ca) add_ext(cert.get(), &ctx, NID_subject_key_identifier, "hash");
  if (signer_cert && X509_get0_subject_key_id(signer_cert) != nullptr) {
    add_ext(cert.get(), &ctx, NID_authority_key_identifier, "keyid:always");
  }
  std::string san;
  for (const std::string& d : req.dns) san += (san.empty() ? "" : ",") + std::string("DNS:") + d;
  for (const std::string& ip : req.ips) san += (san.empty() ? "" : ",") + std::string("IP:") + ip;
  if (!san.empty()) add_ext(cert.get(), &ctx, NID_subject_alt_name, san);
  int type = EVP_PKEY_get_base_id(signer_key);
  const EVP_MD* md = type == EVP_PKEY_ED25519 ? nullptr : EVP_sha256();
  if (type == EVP_PKEY_DSA) {
    fail(
        "error creating certificate: x509: certificate private key does not implement "
        "crypto.Signer");
  }
  if (X509_sign(cert.get(), signer_key, md) <= 0)
    fail("error creating certificate: signing failed");
  unsigned char* der = nullptr;
  int len = i2d_X509(cert.get(), &der);
  std::string cert_der(reinterpret_cast<char*>(der), static_cast<size_t>(len));
  OPENSSL_free(der);
  return certificate(pem_encode("CERTIFICATE", cert_der), key_pem(signee));
}

PKey rsa_2048() {
  PKey key(generate_rsa_key(2048));
  if (!key) fail("error generating rsa key: key generation failed");
  return key;
}

PKey key_from_pem(const std::string& pem) {
  try {
    return parse_key(pem);
  } catch (const FuncError& e) {
    throw FuncError{"parsing private key: " + e.message};
  }
}

/// The `ca certificate` parameter (Param::Certificate, checked by the executor; a direct caller
/// that passes another value gets Go's assignment error).
const CertificateObject& ca_arg(const Value& v) {
  const auto* ca = v.is_object() ? dynamic_cast<const CertificateObject*>(&v.as_object()) : nullptr;
  if (ca == nullptr) {
    fail("wrong type for value; expected sprig.certificate; got " +
         (v.is_nil() ? std::string("<nil>") : v.type_name()));
  }
  return *ca;
}

Value signed_cert(const Env& env, const FuncArgs& a, PKey key) {
  Request req = make_request(a, true, false);
  const CertificateObject& ca = ca_arg(a[4]);
  X509Ptr signer = parse_cert(ca.cert(), "decodedSignerCert.Bytes");
  PKey signer_key;
  try {
    signer_key = parse_key(ca.key());
  } catch (const FuncError& e) {
    throw FuncError{"error parsing private key: " + e.message};
  }
  return build(env, req, key.get(), signer.get(), signer_key.get());
}

Value build_custom(const std::string& b64cert, const std::string& b64key) {
  std::string err;
  std::string cert = base64_decode(b64cert, err);
  if (!err.empty()) fail("unable to decode base64 certificate");
  std::string key = base64_decode(b64key, err);
  if (!err.empty()) fail("unable to decode base64 private key");
  parse_cert(cert, "decodedCert.Bytes");
  try {
    parse_key(key);
  } catch (const FuncError& e) {
    throw FuncError{"error parsing private key: " + e.message};
  }
  return certificate(cert, key);
}

}  // namespace

void register_sprig_certs(FuncMap& map, const std::shared_ptr<const Env>& env) {
  const Ret err = Ret::ValueError;
  auto s = [](const FuncArgs& a, size_t i) -> const std::string& { return a[i].as_string(); };
  map.add("genPrivateKey", fn({P::String}, [=](const FuncArgs& a) {
            return Value::string(gen_private_key(s(a, 0)));
          }));
  map.add("buildCustomCert",
          fn(
              {P::String, P::String},
              [=](const FuncArgs& a) { return build_custom(s(a, 0), s(a, 1)); }, err));
  map.add("genCA", fn(
                       {P::String, P::Int},
                       [=](const FuncArgs& a) {
                         PKey key = rsa_2048();
                         return build(*env, make_request(a, false, true), key.get(), nullptr,
                                      key.get());
                       },
                       err));
  map.add("genCAWithKey", fn(
                              {P::String, P::Int, P::String},
                              [=](const FuncArgs& a) {
                                PKey key = key_from_pem(s(a, 2));
                                return build(*env, make_request(a, false, true), key.get(), nullptr,
                                             key.get());
                              },
                              err));
  const std::vector<Param> sans = {P::String, P::ListAny, P::ListAny, P::Int};
  map.add("genSelfSignedCert", fn(
                                   sans,
                                   [=](const FuncArgs& a) {
                                     PKey key = rsa_2048();
                                     return build(*env, make_request(a, true, false), key.get(),
                                                  nullptr, key.get());
                                   },
                                   err));
  map.add("genSelfSignedCertWithKey", fn(
                                          {P::String, P::ListAny, P::ListAny, P::Int, P::String},
                                          [=](const FuncArgs& a) {
                                            PKey key = key_from_pem(s(a, 4));
                                            return build(*env, make_request(a, true, false),
                                                         key.get(), nullptr, key.get());
                                          },
                                          err));
  map.add("genSignedCert",
          fn(
              {P::String, P::ListAny, P::ListAny, P::Int, P::Certificate},
              [=](const FuncArgs& a) { return signed_cert(*env, a, rsa_2048()); }, err));
  map.add("genSignedCertWithKey",
          fn(
              {P::String, P::ListAny, P::ListAny, P::Int, P::Certificate, P::String},
              [=](const FuncArgs& a) { return signed_cert(*env, a, key_from_pem(s(a, 5))); }, err));
}

}  // namespace ejob::render::sprig
