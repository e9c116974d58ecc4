# Every third-party dependency comes from Debian's packages (scripts/deps.sh lists them).
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(CLI11 CONFIG REQUIRED)            # libcli11-dev
find_package(yaml-cpp CONFIG REQUIRED)         # libyaml-cpp-dev
find_package(CURL REQUIRED)                    # libcurl4-openssl-dev
find_package(OpenSSL REQUIRED)                 # libssl-dev
find_package(nlohmann_json CONFIG REQUIRED)    # nlohmann-json3-dev
find_package(fmt CONFIG REQUIRED)              # libfmt-dev
find_package(ZLIB REQUIRED)                    # zlib1g-dev (packaged .tgz subcharts)
pkg_check_modules(RE2 REQUIRED IMPORTED_TARGET re2)   # libre2-dev
# toml++ is header-only (libtomlplusplus-dev)
find_path(TOMLPP_INCLUDE_DIR toml++/toml.h REQUIRED)
add_library(tomlplusplus INTERFACE)
target_include_directories(tomlplusplus SYSTEM INTERFACE ${TOMLPP_INCLUDE_DIR})
if(EJOB_TESTS)
  find_package(Catch2 2 REQUIRED)              # catch2 (2.x)
endif()
include(${CMAKE_CURRENT_LIST_DIR}/EjobLean.cmake)  # ejob::* wrappers: static deps for lean executables
