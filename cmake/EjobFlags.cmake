# Compiler flags for all of ejob's own code, as one INTERFACE target.
add_library(ejob_flags INTERFACE)
# The one include root: every project header is included by its path from the repository root
# (`#include "src/job/jobs.hpp"`, `#include "cli/run.hpp"`, `#include "tests/kube/objects.hpp"`),
# as V8 and Chromium include theirs, so the include names the file a reader, grep or a tool
# opens.
target_include_directories(ejob_flags INTERFACE ${PROJECT_SOURCE_DIR})
target_compile_options(ejob_flags INTERFACE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # g++ 12 at -O2/-O3 reports false -Wrestrict, -Wstringop-overflow and -Warray-bounds
  # warnings inside libstdc++'s char_traits::copy for `"literal" + std::string(...)` (GCC bugs
  # 105329, 105651); they are not about our code. Sanitizer builds check bounds at run time.
  target_compile_options(ejob_flags INTERFACE -Wno-restrict -Wno-stringop-overflow
                                              -Wno-array-bounds)
endif()
if(EJOB_WERROR)
  target_compile_options(ejob_flags INTERFACE -Werror)
endif()
if(EJOB_SANITIZE)
  target_compile_options(ejob_flags INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                              -fno-sanitize-recover=undefined)
  target_link_options(ejob_flags INTERFACE -fsanitize=address,undefined)
endif()
if(EJOB_TSAN)
  target_compile_options(ejob_flags INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(ejob_flags INTERFACE -fsanitize=thread)
endif()
if(EJOB_FUZZ)
  # libFuzzer builds (tests/fuzz, preset `fuzz`): all of our code carries the coverage
  # instrumentation libFuzzer steers by, and ASan + UBSan so that a bad input stops at the fault.
  # Only the fuzz targets link libFuzzer's main (-fsanitize=fuzzer, tests/fuzz/CMakeLists.txt).
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "EJOB_FUZZ needs clang (libFuzzer): configure with the preset `fuzz`.")
  endif()
  target_compile_options(ejob_flags INTERFACE -fsanitize=fuzzer-no-link,address,undefined
                                              -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(ejob_flags INTERFACE -fsanitize=address,undefined)
endif()
