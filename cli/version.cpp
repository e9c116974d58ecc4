#include "cli/version.hpp"

#include <curl/curl.h>
#include <fmt/core.h>
#include <openssl/crypto.h>
#include <toml++/impl/version.h>
#include <zlib.h>

#include <CLI/Version.hpp>
#include <nlohmann/json.hpp>

namespace ejob::cli {
namespace {

/// The libraries, as each reports itself: libcurl, OpenSSL and zlib at run time (what is
/// loaded), the header-only ones and fmt from their headers, yaml-cpp and RE2 from the
/// packages the build found (they have no version call).
std::string library_lines() {
  const curl_version_info_data* curl = curl_version_info(CURLVERSION_NOW);
  std::string out;
  out += fmt::format("libcurl: {}\n", curl->version);
  out += fmt::format("OpenSSL: {}\n", OpenSSL_version(OPENSSL_VERSION_STRING));
  out += fmt::format("zlib: {}\n", zlibVersion());
  out += fmt::format("yaml-cpp: {}\n", EJOB_YAML_CPP_VERSION);
  out += fmt::format("RE2: {}\n", EJOB_RE2_VERSION);
  out += fmt::format("fmt: {}.{}.{}\n", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                     FMT_VERSION % 100);
  out += fmt::format("nlohmann/json: {}.{}.{}\n", NLOHMANN_JSON_VERSION_MAJOR,
                     NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH);
  out += fmt::format("CLI11: {}\n", CLI11_VERSION);
  out += fmt::format("toml++: {}.{}.{}\n", TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH);
  return out;
}

}  // namespace

std::string_view version_number() { return EJOB_VERSION; }

std::string short_version() { return std::string("ejob ") + EJOB_VERSION; }

std::string version_text() {
  return fmt::format("version: {}\nrevision: {}\nbuild type: {}\n", EJOB_VERSION, build_revision(),
                     EJOB_BUILD_TYPE) +
         library_lines();
}

}  // namespace ejob::cli
