# ejob_add_library(NAME DEPS...): builds the folder's *.cpp (without *_test.cpp) into library
# NAME, and, when tests are on, its *_test.cpp into NAME_test registered with CTest. Sources are
# globbed so areas can grow one file pair at a time. Headers live beside their sources and are
# included by their path from the repository root (`#include "src/render/go/value.hpp"`), the
# one include directory of every target (ejob_flags, cmake/EjobFlags.cmake); which area may
# include which is docs/ARCHITECTURE.md's table, checked by scripts/check-layers.py.

# Catch2's main, compiled once for every test executable (it is the slowest file to compile:
# about as long as a whole area's tests).
function(ejob_catch_main_target)
  if(NOT TARGET ejob_catch_main)
    add_library(ejob_catch_main OBJECT ${PROJECT_SOURCE_DIR}/tests/catch_main.cpp)
    target_link_libraries(ejob_catch_main PUBLIC ejob_flags Catch2::Catch2)
    target_compile_options(ejob_catch_main PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
  endif()
endfunction()

# Catch2's header parsed once per test executable, not once per test file (~1.2 s each). The
# test code itself is compiled at -O1 in optimized builds: the code under test keeps its -O3,
# and -O3 of the tests' own expansions only lengthens the build (catch_main 18.5 → 12.2 s of
# CPU, a test file ~20% less).
function(ejob_test_pch target)
  target_precompile_headers(${target} PRIVATE <catch2/catch.hpp>)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release,RelWithDebInfo>:-O1>)
endfunction()

# Batches TARGET's sources 8 to a compile when EJOB_UNITY is on (the root CMakeLists.txt says
# why). A file that cannot share a unit (its anonymous namespace holds a type a class of its
# header keeps, or it needs a macro before its first include) is named in its folder's
# CMakeLists.txt with SKIP_UNITY_BUILD_INCLUSION and the reason.
function(ejob_unity target)
  set_target_properties(${target} PROPERTIES UNITY_BUILD ${EJOB_UNITY} UNITY_BUILD_BATCH_SIZE 8)
endfunction()

function(ejob_add_library name)
  cmake_parse_arguments(ARG "" "" "DEPS;TEST_DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*.cpp)
  file(GLOB tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*_test.cpp)
  list(REMOVE_ITEM srcs ${tests})
  add_library(${name} STATIC ${srcs})
  ejob_unity(${name})
  target_link_libraries(${name} PUBLIC ejob_flags ${ARG_DEPS})
  if(EJOB_TESTS AND tests)
    ejob_catch_main_target()
    add_executable(${name}_test ${tests})
    target_link_libraries(${name}_test PRIVATE ${name} ejob_catch_main Catch2::Catch2
                                               ${ARG_TEST_DEPS})
    ejob_test_pch(${name}_test)
    catch_discover_tests(${name}_test TEST_PREFIX "${name}: " PROPERTIES TIMEOUT 300
                         DISCOVERY_TIMEOUT 60)
  endif()
endfunction()
