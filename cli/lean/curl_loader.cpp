// libcurl, loaded on first use (cmake/EjobLean.cmake). A lean executable links no libcurl:
// `ejob template`, `values`, `crds` and `init` never talk to a server, and mapping libcurl with
// its ~30 dependent libraries cost ~18 ms of CPU at every start (measured again in session 2:
// `ejob template` of bench/starter linked with libcurl took 26-29 ms of CPU, without 8-9 ms;
// bench/README.md). The libcurl entry points that ejob_kubeapi calls are defined here; the
// first call dlopens libcurl.so.4 (transport.cpp and url_fetch.cpp call curl_global_init before
// anything else) and each forwards to libcurl's own function.
//
// These definitions are not exported from the executable (it links no shared library that
// refers to them), so libcurl's calls to its own functions still reach libcurl.

#define CURL_DISABLE_TYPECHECK 1  // curl.h's type-checking macros would rename the definitions
#include <curl/curl.h>
#include <dlfcn.h>
#include <openssl/crypto.h>

#include <cstdarg>
#include <cstdint>
#include <string>

#include "src/util/error.hpp"

namespace {

// Every libcurl function ejob_kubeapi calls (`nm -C libejob_kubeapi.a | grep ' U curl_'`); a call
// to one not listed here fails to link the ejob executable.
#define EJOB_CURL_FUNCTIONS(X) \
  X(curl_global_init)          \
  X(curl_global_cleanup)       \
  X(curl_easy_init)            \
  X(curl_easy_cleanup)         \
  X(curl_easy_reset)           \
  X(curl_easy_perform)         \
  X(curl_easy_send)            \
  X(curl_easy_recv)            \
  X(curl_easy_setopt)          \
  X(curl_easy_getinfo)         \
  X(curl_easy_strerror)        \
  X(curl_free)                 \
  X(curl_slist_append)         \
  X(curl_slist_free_all)       \
  X(curl_url)                  \
  X(curl_url_cleanup)          \
  X(curl_url_get)              \
  X(curl_url_set)              \
  X(curl_url_strerror)         \
  X(curl_share_init)           \
  X(curl_share_cleanup)        \
  X(curl_share_setopt)         \
  X(curl_version_info)

constexpr const char* k_soname = "libcurl.so.4";

/// libcurl's functions, resolved once. Throws ejob::Error (Transport) when libcurl cannot be
/// loaded; the next call tries again.
struct Libcurl {
#define EJOB_CURL_POINTER(fn) decltype(&::fn) fn = nullptr;
  EJOB_CURL_FUNCTIONS(EJOB_CURL_POINTER)
#undef EJOB_CURL_POINTER

  Libcurl() {
    void* lib = dlopen(k_soname, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) fail(dlerror());
    skip_openssl_exit_cleanup();
#define EJOB_CURL_RESOLVE(fn)                              \
  fn = reinterpret_cast<decltype(&::fn)>(dlsym(lib, #fn)); \
  if (fn == nullptr) fail(std::string(k_soname) + " has no " #fn);
    EJOB_CURL_FUNCTIONS(EJOB_CURL_RESOLVE)
#undef EJOB_CURL_RESOLVE
  }

  /// OpenSSL 3 frees all its state from an atexit handler unless its first initialisation
  /// says otherwise (OPENSSL_INIT_NO_ATEXIT): 1.5 M instructions at the end of every submit for
  /// memory the kernel takes back anyway. Called before curl_global_init initialises the
  /// libcrypto.so.3 libcurl mapped; nothing happens when libcurl uses another TLS library.
  static void skip_openssl_exit_cleanup() {
    void* crypto = dlopen("libcrypto.so.3", RTLD_LAZY | RTLD_NOLOAD);
    if (crypto == nullptr) return;
    using Init = int (*)(uint64_t, const void*);
    if (auto init = reinterpret_cast<Init>(dlsym(crypto, "OPENSSL_init_crypto")))
      init(OPENSSL_INIT_NO_ATEXIT, nullptr);
  }

  [[noreturn]] static void fail(const std::string& why) {
    throw ejob::Error(ejob::ErrorCode::Transport, "cannot load libcurl: " + why);
  }
};

const Libcurl& libcurl() {
  static const Libcurl loaded;
  return loaded;
}

}  // namespace

extern "C" {

CURLcode curl_global_init(long flags) { return libcurl().curl_global_init(flags); }

void curl_global_cleanup() { libcurl().curl_global_cleanup(); }

CURL* curl_easy_init() { return libcurl().curl_easy_init(); }

void curl_easy_cleanup(CURL* handle) { libcurl().curl_easy_cleanup(handle); }

void curl_easy_reset(CURL* handle) { libcurl().curl_easy_reset(handle); }

CURLcode curl_easy_perform(CURL* handle) { return libcurl().curl_easy_perform(handle); }

// curl.h fixes these signatures: the last named parameter is an enum, which clang's -Wvarargs
// flags for va_start (an enum may promote). CURLoption, CURLINFO and CURLSHoption are int enums
// with non-negative values, passed as int, so va_start is well defined here.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvarargs"
#endif

/// The one variadic argument has the type the option's number range declares (curl.h).
CURLcode curl_easy_setopt(CURL* handle, CURLoption option, ...) {
  va_list ap;
  va_start(ap, option);
  const auto set = libcurl().curl_easy_setopt;
  CURLcode rc;
  if (option < CURLOPTTYPE_OBJECTPOINT) {
    rc = set(handle, option, va_arg(ap, long));
  } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
    rc = set(handle, option, va_arg(ap, void*));
  } else if (option < CURLOPTTYPE_OFF_T) {
    rc = set(handle, option, va_arg(ap, void (*)()));
  } else if (option < CURLOPTTYPE_BLOB) {
    rc = set(handle, option, va_arg(ap, curl_off_t));
  } else {
    rc = set(handle, option, va_arg(ap, void*));
  }
  va_end(ap);
  return rc;
}

/// Every CURLINFO takes a pointer to where the answer goes.
CURLcode curl_easy_getinfo(CURL* handle, CURLINFO info, ...) {
  va_list ap;
  va_start(ap, info);
  CURLcode rc = libcurl().curl_easy_getinfo(handle, info, va_arg(ap, void*));
  va_end(ap);
  return rc;
}

CURLcode curl_easy_send(CURL* handle, const void* buffer, size_t length, size_t* sent) {
  return libcurl().curl_easy_send(handle, buffer, length, sent);
}

CURLcode curl_easy_recv(CURL* handle, void* buffer, size_t length, size_t* received) {
  return libcurl().curl_easy_recv(handle, buffer, length, received);
}

const char* curl_easy_strerror(CURLcode code) { return libcurl().curl_easy_strerror(code); }

void curl_free(void* p) { libcurl().curl_free(p); }

curl_slist* curl_slist_append(curl_slist* list, const char* text) {
  return libcurl().curl_slist_append(list, text);
}

void curl_slist_free_all(curl_slist* list) { libcurl().curl_slist_free_all(list); }

CURLU* curl_url() { return libcurl().curl_url(); }

void curl_url_cleanup(CURLU* url) { libcurl().curl_url_cleanup(url); }

CURLUcode curl_url_get(CURLU* url, CURLUPart part, char** out, unsigned int flags) {
  return libcurl().curl_url_get(url, part, out, flags);
}

CURLUcode curl_url_set(CURLU* url, CURLUPart part, const char* text, unsigned int flags) {
  return libcurl().curl_url_set(url, part, text, flags);
}

const char* curl_url_strerror(CURLUcode code) { return libcurl().curl_url_strerror(code); }

curl_version_info_data* curl_version_info(CURLversion stamp) {
  return libcurl().curl_version_info(stamp);
}

CURLSH* curl_share_init() { return libcurl().curl_share_init(); }

CURLSHcode curl_share_cleanup(CURLSH* share) { return libcurl().curl_share_cleanup(share); }

/// SHARE/UNSHARE take an int (a curl_lock_data), LOCKFUNC/UNLOCKFUNC a function, USERDATA a
/// pointer (curl's share.c reads them so).
CURLSHcode curl_share_setopt(CURLSH* share, CURLSHoption option, ...) {
  va_list ap;
  va_start(ap, option);
  const auto set = libcurl().curl_share_setopt;
  CURLSHcode rc;
  if (option == CURLSHOPT_SHARE || option == CURLSHOPT_UNSHARE) {
    rc = set(share, option, va_arg(ap, int));
  } else if (option == CURLSHOPT_LOCKFUNC || option == CURLSHOPT_UNLOCKFUNC) {
    rc = set(share, option, va_arg(ap, void (*)()));
  } else {
    rc = set(share, option, va_arg(ap, void*));
  }
  va_end(ap);
  return rc;
}

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

}  // extern "C"
