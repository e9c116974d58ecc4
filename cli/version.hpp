#pragma once
/// What `ejob version` prints: the version, the git revision and build type it was built
/// from, and each library it links with the version that library reports at run time (the
/// build's packages where a library has no such call).

#include <string>
#include <string_view>

namespace ejob::cli {

/// `git describe --always --dirty --abbrev=12` of the source tree at build time, or
/// "unknown" (defined in the build tree by cmake/write_revision.cmake).
const char* build_revision();

/// The version number alone (`0.1.0`).
std::string_view version_number();

/// The first line alone (`ejob --version`): `ejob VERSION`.
std::string short_version();

/// The whole text of `ejob version`, one `NAME: VALUE` line each.
std::string version_text();

}  // namespace ejob::cli
