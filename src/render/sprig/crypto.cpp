// Sprig's hashing and secret functions (crypto.go): sha1sum, sha256sum, sha512sum, adler32sum,
// bcrypt, htpasswd, randBytes, uuidv4, derivePassword, encryptAES, decryptAES. Digests and AES come
// from OpenSSL, bcrypt from libcrypt ($2a$, cost 10, as golang.org/x/crypto/bcrypt writes),
// scrypt (derivePassword) from OpenSSL's EVP_PBE_scrypt.
//
// The digests call OpenSSL's SHA functions directly (SHA256_Init…, deprecated in 3.0 in favour
// of EVP): EVP_Digest looks the algorithm up through OpenSSL 3's provider machinery, which
// on its first use in a process ran 5.4 M instructions and touched ~1.8 MiB of libcrypto's code
// (28 of the 64 KiB windows the kernel maps around a fault) for a chart whose templates take a
// checksum of a ConfigMap, as most charts do: a third of `ejob template`'s resident code.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <crypt.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <openssl/sha.h>

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "src/render/sprig/support.hpp"

namespace ejob::render::sprig {

namespace {

using P = Param;

std::string hex(const unsigned char* data, size_t n) {
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    out += k_digits[data[i] >> 4];
    out += k_digits[data[i] & 0xF];
  }
  return out;
}

/// Hex digest of input by OpenSSL's Init/Update/Final functions of one algorithm.
template <class Ctx, size_t N>
std::string digest(const std::string& input, int (*init)(Ctx*),
                   int (*update)(Ctx*, const void*, size_t), int (*final)(unsigned char*, Ctx*)) {
  Ctx ctx;
  std::array<unsigned char, N> out{};
  init(&ctx);
  update(&ctx, input.data(), input.size());
  final(out.data(), &ctx);
  return hex(out.data(), N);
}

std::string sha1_hex(const std::string& s) {
  return digest<SHA_CTX, SHA_DIGEST_LENGTH>(s, SHA1_Init, SHA1_Update, SHA1_Final);
}
std::string sha256_hex(const std::string& s) {
  return digest<SHA256_CTX, SHA256_DIGEST_LENGTH>(s, SHA256_Init, SHA256_Update, SHA256_Final);
}
std::string sha512_hex(const std::string& s) {
  return digest<SHA512_CTX, SHA512_DIGEST_LENGTH>(s, SHA512_Init, SHA512_Update, SHA512_Final);
}

uint32_t adler32(const std::string& s) {
  uint32_t a = 1;
  uint32_t b = 0;
  for (unsigned char c : s) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  return b << 16 | a;
}

/// bcrypt's own base64 alphabet (no padding).
std::string bcrypt_base64(const unsigned char* data, size_t n) {
  static constexpr std::string_view k_alpha =
      "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::string out;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = static_cast<uint32_t>(data[i]) << 16;
    if (i + 1 < n) v |= static_cast<uint32_t>(data[i + 1]) << 8;
    if (i + 2 < n) v |= data[i + 2];
    size_t chars = i + 2 < n ? 4 : (i + 1 < n ? 3 : 2);
    for (size_t k = 0; k < chars; ++k) out += k_alpha[(v >> (18 - 6 * k)) & 0x3F];
  }
  return out;
}

std::string bcrypt(const std::string& password) {
  std::array<unsigned char, 16> salt{};
  if (RAND_bytes(salt.data(), static_cast<int>(salt.size())) != 1) {
    return "failed to encrypt string with bcrypt: crypto/rand: read failed";
  }
  std::string setting = "$2a$10$" + bcrypt_base64(salt.data(), salt.size());
  crypt_data data{};
  const char* hash = crypt_r(password.c_str(), setting.c_str(), &data);
  if (hash == nullptr || hash[0] == '*') {
    return "failed to encrypt string with bcrypt: crypt failed";
  }
  return hash;
}

std::string uuidv4(const Env& env) {
  std::array<unsigned char, 16> b{};
  for (size_t i = 0; i < 16; i += 8) {
    uint64_t r = env.random_u64();
    for (size_t k = 0; k < 8; ++k) b[i + k] = static_cast<unsigned char>(r >> (8 * k));
  }
  b[6] = (b[6] & 0x0F) | 0x40;
  b[8] = (b[8] & 0x3F) | 0x80;
  std::string h = hex(b.data(), b.size());
  return h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
         "-" + h.substr(20);
}

const std::map<std::string, std::vector<std::string>, std::less<>>& password_templates() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> k = {
      {"maximum", {"anoxxxxxxxxxxxxxxxxx", "axxxxxxxxxxxxxxxxxno"}},
      {"long",
       {"CvcvnoCvcvCvcv", "CvcvCvcvnoCvcv", "CvcvCvcvCvcvno", "CvccnoCvcvCvcv", "CvccCvcvnoCvcv",
        "CvccCvcvCvcvno", "CvcvnoCvccCvcv", "CvcvCvccnoCvcv", "CvcvCvccCvcvno", "CvcvnoCvcvCvcc",
        "CvcvCvcvnoCvcc", "CvcvCvcvCvccno", "CvccnoCvccCvcv", "CvccCvccnoCvcv", "CvccCvccCvcvno",
        "CvcvnoCvccCvcc", "CvcvCvccnoCvcc", "CvcvCvccCvccno", "CvccnoCvcvCvcc", "CvccCvcvnoCvcc",
        "CvccCvcvCvccno"}},
      {"medium", {"CvcnoCvc", "CvcCvcno"}},
      {"short", {"Cvcn"}},
      {"basic", {"aaanaaan", "aannaaan", "aaannaaa"}},
      {"pin", {"nnnn"}},
  };
  return k;
}

std::string_view template_chars(char c) {
  switch (c) {
    case 'V': return "AEIOU";
    case 'C': return "BCDFGHJKLMNPQRSTVWXYZ";
    case 'v': return "aeiou";
    case 'c': return "bcdfghjklmnpqrstvwxyz";
    case 'A': return "AEIOUBCDFGHJKLMNPQRSTVWXYZ";
    case 'a': return "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz";
    case 'n': return "0123456789";
    case 'o': return "@&%?,=[]_:-+*$#!'^~;()/.";
    default: return "AEIOUaeiouBCDFGHJKLMNPQRSTVWXYZbcdfghjklmnpqrstvwxyz0123456789!@#$%^&*()";
  }
}

void put_u32(std::string& buf, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) buf.push_back(static_cast<char>(v >> s));
}

/// The Master Password algorithm Sprig implements (scrypt N=32768 r=8 p=2, HMAC-SHA256).
std::string derive_password(uint32_t counter, const std::string& type, const std::string& password,
                            const std::string& user, const std::string& site) {
  auto it = password_templates().find(type);
  if (it == password_templates().end()) return "cannot find password template " + type;
  const std::string seed = "com.lyndir.masterpassword";
  std::string salt = seed;
  put_u32(salt, static_cast<uint32_t>(user.size()));
  salt += user;
  std::array<unsigned char, 64> key{};
  if (EVP_PBE_scrypt(password.data(), password.size(),
                     reinterpret_cast<const unsigned char*>(salt.data()), salt.size(), 32768, 8, 2,
                     uint64_t{64} << 20, key.data(), key.size()) != 1) {
    return "failed to derive password: scrypt failed";
  }
  std::string msg = seed;
  put_u32(msg, static_cast<uint32_t>(site.size()));
  msg += site;
  put_u32(msg, counter);
  std::array<unsigned char, EVP_MAX_MD_SIZE> mac{};
  unsigned int mac_len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), mac.data(), &mac_len);
  const std::vector<std::string>& templates = it->second;
  const std::string& tmpl = templates[mac[0] % templates.size()];
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    std::string_view chars = template_chars(tmpl[i]);
    out += chars[mac[i + 1] % chars.size()];
  }
  return out;
}

struct CipherCtxFree {
  void operator()(EVP_CIPHER_CTX* c) const { EVP_CIPHER_CTX_free(c); }
};

std::string aes_key(const std::string& password) {
  std::string key(32, '\0');
  key.replace(0, std::min<size_t>(32, password.size()), password.substr(0, 32));
  return key;
}

/// AES-256-CBC without OpenSSL's padding (Sprig pads and unpads itself).
std::string cbc(const std::string& key, const std::string& iv, const std::string& in,
                bool encrypt) {
  std::unique_ptr<EVP_CIPHER_CTX, CipherCtxFree> ctx(EVP_CIPHER_CTX_new());
  auto k = reinterpret_cast<const unsigned char*>(key.data());
  auto v = reinterpret_cast<const unsigned char*>(iv.data());
  EVP_CipherInit_ex(ctx.get(), EVP_aes_256_cbc(), nullptr, k, v, encrypt ? 1 : 0);
  EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
  std::string out(in.size() + 16, '\0');
  int len = 0;
  int fin = 0;
  auto o = reinterpret_cast<unsigned char*>(out.data());
  EVP_CipherUpdate(ctx.get(), o, &len, reinterpret_cast<const unsigned char*>(in.data()),
                   static_cast<int>(in.size()));
  EVP_CipherFinal_ex(ctx.get(), o + len, &fin);
  out.resize(static_cast<size_t>(len + fin));
  return out;
}

std::string encrypt_aes(const Env& env, const std::string& password, const std::string& plain) {
  if (plain.empty()) return "";
  std::string content = plain;
  size_t padding = 16 - content.size() % 16;
  content.append(padding, static_cast<char>(padding));
  std::string iv;
  for (int i = 0; i < 2; ++i) {
    uint64_t r = env.random_u64();
    for (int k = 0; k < 8; ++k) iv.push_back(static_cast<char>(r >> (8 * k)));
  }
  return base64_encode(iv + cbc(aes_key(password), iv, content, true));
}

std::string decrypt_aes(const std::string& password, const std::string& crypt64) {
  if (crypt64.empty()) return "";
  std::string error;
  std::string crypt = base64_decode(crypt64, error);
  if (!error.empty()) throw FuncError{error};
  if (crypt.size() < 16) {
    // Go slices the decode buffer, whose capacity is DecodedLen(len(input)).
    throw FuncError{"runtime error: slice bounds out of range [:16] with capacity " +
                    std::to_string(crypt64.size() / 4 * 3)};
  }
  std::string iv = crypt.substr(0, 16);
  std::string body = crypt.substr(16);
  if (body.size() % 16 != 0) throw FuncError{"crypto/cipher: input not full blocks"};
  if (body.empty()) throw FuncError{"runtime error: index out of range [-1]"};
  std::string plain = cbc(aes_key(password), iv, body, false);
  auto pad = static_cast<unsigned char>(plain.back());
  auto keep = static_cast<int64_t>(plain.size()) - pad;
  if (keep < 0) {
    throw FuncError{"runtime error: slice bounds out of range [:" + std::to_string(keep) + "]"};
  }
  return plain.substr(0, static_cast<size_t>(keep));
}

}  // namespace

void register_sprig_crypto(FuncMap& map, const std::shared_ptr<const Env>& env) {
  auto str = [](std::string s) { return Value::string(std::move(s)); };
  auto s = [](const FuncArgs& a, size_t i) -> const std::string& { return a[i].as_string(); };
  map.add("sha1sum", fn({P::String}, [=](const FuncArgs& a) { return str(sha1_hex(s(a, 0))); }));
  map.add("sha256sum",
          fn({P::String}, [=](const FuncArgs& a) { return str(sha256_hex(s(a, 0))); }));
  // Sprig v3.3.0 (Helm >= 3.17): sha512.Sum512 as lower-case hex.
  map.add("sha512sum",
          fn({P::String}, [=](const FuncArgs& a) { return str(sha512_hex(s(a, 0))); }));
  map.add("adler32sum", fn({P::String}, [=](const FuncArgs& a) {
            return str(std::to_string(adler32(s(a, 0))));
          }));
  map.add("bcrypt", fn({P::String}, [=](const FuncArgs& a) { return str(bcrypt(s(a, 0))); }));
  map.add("htpasswd", fn({P::String, P::String}, [=](const FuncArgs& a) {
            if (s(a, 0).find(':') != std::string::npos) return str("invalid username: " + s(a, 0));
            return str(s(a, 0) + ":" + bcrypt(s(a, 1)));
          }));
  map.add("randBytes", fn(
                           {P::Int},
                           [=](const FuncArgs& a) {
                             int64_t n = a[0].as_int();
                             if (n < 0)
                               throw FuncError{"runtime error: makeslice: len out of range"};
                             std::string buf;
                             while (static_cast<int64_t>(buf.size()) < n) {
                               uint64_t r = env->random_u64();
                               for (int k = 0; k < 8 && static_cast<int64_t>(buf.size()) < n; ++k) {
                                 buf.push_back(static_cast<char>(r >> (8 * k)));
                               }
                             }
                             return str(base64_encode(buf));
                           },
                           Ret::ValueError));
  map.add("uuidv4", fn({}, [=](const FuncArgs&) { return str(uuidv4(*env)); }));
  // Go declares counter as uint32; our parameter model has no uint32, so int is checked and
  // converted (a literal works the same; an int variable is accepted where Go refuses it).
  map.add("derivePassword",
          fn({P::Int, P::String, P::String, P::String, P::String}, [=](const FuncArgs& a) {
            return str(derive_password(static_cast<uint32_t>(a[0].as_int()), s(a, 1), s(a, 2),
                                       s(a, 3), s(a, 4)));
          }));
  map.add("encryptAES",
          fn(
              {P::String, P::String},
              [=](const FuncArgs& a) { return str(encrypt_aes(*env, s(a, 0), s(a, 1))); },
              Ret::ValueError));
  map.add("decryptAES", fn(
                            {P::String, P::String},
                            [=](const FuncArgs& a) { return str(decrypt_aes(s(a, 0), s(a, 1))); },
                            Ret::ValueError));
}

}  // namespace ejob::render::sprig
