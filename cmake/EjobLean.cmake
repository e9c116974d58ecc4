# Lean executables: what a target marked with ejob_link_lean() links instead of shared libraries.
#
# Mapping a shared library costs page faults at every start, and page faults are what a short
# process spends its time on (10-25 us each on the development VM). Each piece below was
# measured by relinking `ejob` without it and timing `ejob template` of bench/starter, the
# variants interleaved, 300 runs each (bench/README.md has the method); the figure is the CPU
# each piece saves per process, against ~9 ms for the whole lean process in that run
# (~33 ms linked the ordinary way). A lean target
#   - links no libcurl (-18 ms): cli/lean/curl_loader.cpp defines the libcurl entry points
#     that ejob_kubeapi calls and loads libcurl.so.4 (with its ~30 libraries) on the first of
#     them; libcurl then maps its own libssl/libcrypto, and the static libcrypto stays private
#     to the executable,
#   - links yaml-cpp, RE2, libcrypto, libcrypt, zlib, fmt and the C++ runtime statically
#     (-7 ms; Debian ships their archives; fmt's is built here from its headers,
#     cmake/fmt_format.cpp),
#   - is not position-independent (-2 ms: no relocations to apply to its ~400 KiB of vtables),
#   - takes libm's few functions from libm.a (-1.1 ms), so that libc is its only shared
#     library; test lean-libs/<target> fails when another one creeps in (libz.so.1 cost
#     0.5 ms),
#   - maps its first 128 KiB of heap at once (-0.9 ms, cli/lean/prefault.cpp),
#   - takes small objects from per-thread free lists (-0.55 ms and 28% of the instructions;
#     in-process renders 1.7x faster; cli/lean/small_alloc.cpp),
#   - is linked by gold with the functions a render runs placed side by side at the start of
#     the text (cli/lean/hot-text.txt, written by scripts/hot-text.py, with the public charts of
#     bench/charts.py among its renders): the kernel maps an executable's pages 64 KiB at a
#     time around each fault and counts them all as resident, and in the compiler's order the
#     ~1.2 MiB of code `ejob template` runs was spread over 5.6 MiB of such windows
#     (bench/README.md: the big chart's peak RSS).
# Other targets (tests, ejob-agent) link the shared libraries as before. The compile flags are
# the same either way: the static twins carry their shared library's usage requirements.
#
# The libraries' own CMakeLists name the wrappers below (ejob::yaml-cpp, …), which choose per
# linking target with $<TARGET_PROPERTY:EJOB_LEAN>.

set(EJOB_LIBDIR /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE})

# ejob_static_twin(TWIN SHARED ARCHIVE [LIBS...]): a STATIC IMPORTED target for ARCHIVE with the
# compile usage requirements of SHARED, linking LIBS after it.
function(ejob_static_twin twin shared archive)
  add_library(${twin} STATIC IMPORTED)
  set_target_properties(${twin} PROPERTIES IMPORTED_LOCATION ${archive})
  if(TARGET ${shared})
    foreach(p INTERFACE_INCLUDE_DIRECTORIES INTERFACE_COMPILE_DEFINITIONS
              INTERFACE_COMPILE_OPTIONS INTERFACE_COMPILE_FEATURES)
      get_target_property(v ${shared} ${p})
      if(v)
        set_property(TARGET ${twin} PROPERTY ${p} "${v}")
      endif()
    endforeach()
  endif()
  if(ARGN)
    set_property(TARGET ${twin} PROPERTY INTERFACE_LINK_LIBRARIES ${ARGN})
  endif()
endfunction()

# ejob_lean_choice(WRAPPER SHARED LEAN): WRAPPER links LEAN for lean targets, SHARED otherwise.
function(ejob_lean_choice wrapper shared lean)
  add_library(${wrapper} INTERFACE IMPORTED GLOBAL)
  set_property(TARGET ${wrapper} PROPERTY INTERFACE_LINK_LIBRARIES
               "$<IF:$<BOOL:$<TARGET_PROPERTY:EJOB_LEAN>>,${lean},${shared}>")
endfunction()

ejob_static_twin(ejob_static_yaml_cpp yaml-cpp ${EJOB_LIBDIR}/libyaml-cpp.a)
ejob_static_twin(ejob_static_re2 PkgConfig::RE2 ${EJOB_LIBDIR}/libre2.a Threads::Threads)
ejob_static_twin(ejob_static_crypto OpenSSL::Crypto ${EJOB_LIBDIR}/libcrypto.a ${CMAKE_DL_LIBS}
                 Threads::Threads)
ejob_static_twin(ejob_static_crypt "" ${EJOB_LIBDIR}/libcrypt.a)
ejob_static_twin(ejob_static_zlib ZLIB::ZLIB ${EJOB_LIBDIR}/libz.a)

add_library(ejob_static_fmt STATIC EXCLUDE_FROM_ALL
            ${PROJECT_SOURCE_DIR}/cmake/fmt_format.cpp)
foreach(p INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_FEATURES)
  get_target_property(v fmt::fmt INTERFACE_${p})
  if(v)
    set_property(TARGET ejob_static_fmt PROPERTY ${p} "${v}")
    set_property(TARGET ejob_static_fmt PROPERTY INTERFACE_${p} "${v}")
  endif()
endforeach()

add_library(ejob_curl_loader STATIC EXCLUDE_FROM_ALL
            ${PROJECT_SOURCE_DIR}/cli/lean/curl_loader.cpp)
target_include_directories(ejob_curl_loader PUBLIC ${CURL_INCLUDE_DIRS})
target_link_libraries(ejob_curl_loader PRIVATE ejob_flags ejob_util PUBLIC ${CMAKE_DL_LIBS})

ejob_lean_choice(ejob::yaml-cpp yaml-cpp ejob_static_yaml_cpp)
ejob_lean_choice(ejob::re2 PkgConfig::RE2 ejob_static_re2)
ejob_lean_choice(ejob::crypto OpenSSL::Crypto ejob_static_crypto)
ejob_lean_choice(ejob::crypt crypt ejob_static_crypt)
ejob_lean_choice(ejob::fmt fmt::fmt ejob_static_fmt)
ejob_lean_choice(ejob::curl CURL::libcurl ejob_curl_loader)
ejob_lean_choice(ejob::zlib ZLIB::ZLIB ejob_static_zlib)

# The libm functions ejob calls (`nm -D --undefined-only ejob` against libm.so.6's exports:
# fmod and remainder from src/render, fegetround and fesetround from libstdc++'s to_chars and
# from_chars). -u marks them undefined and libm.a is scanned right after, as a link option,
# i.e. before any object file: at that point these four are the only undefined symbols, so only
# their members are taken. Anything else (floor/ceil where the compiler does not inline them,
# as in Debug builds) resolves later from the shared libm, never from libm.a, whose IFUNC'd
# members (floor, ceil, exp, ...) cannot link into a dynamic executable (_dl_x86_cpu_features).
# Optimized builds need nothing else from libm, which test lean-libs/<target> checks.
set(EJOB_LEAN_LIBM_SYMBOLS -Wl,-u,fmod,-u,remainder,-u,fegetround,-u,fesetround
                           "-Wl,--push-state,-Bstatic,-lm,--pop-state")

# gold (binutils) reads a section ordering file; where it is missing, the order is the compiler's.
include(CheckLinkerFlag)
check_linker_flag(CXX "-fuse-ld=gold" EJOB_HAVE_GOLD)
set(EJOB_HOT_TEXT ${PROJECT_SOURCE_DIR}/cli/lean/hot-text.txt)

# ejob_link_lean(TARGET): TARGET links the lean way (see the top of this file).
# Sanitizer builds link the ordinary way (the sanitizers bring their own operator new and
# intercept the C++ runtime's shared symbols).
function(ejob_link_lean target)
  if(EJOB_ANY_SANITIZER)
    return()
  endif()
  set_property(TARGET ${target} PROPERTY EJOB_LEAN ON)
  target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/cli/lean/prefault.cpp
                                   ${PROJECT_SOURCE_DIR}/cli/lean/small_alloc.cpp)
  target_link_options(${target} PRIVATE -no-pie -static-libstdc++ -static-libgcc -Wl,-O1
                      -Wl,--as-needed ${EJOB_LEAN_LIBM_SYMBOLS})
  target_link_libraries(${target} PRIVATE m)
  if(EJOB_HAVE_GOLD)
    target_link_options(${target} PRIVATE -fuse-ld=gold
                        "-Wl,--section-ordering-file,${EJOB_HOT_TEXT}")
    set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS ${EJOB_HOT_TEXT})
  endif()
  if(EJOB_TESTS)
    # Every shared library costs each start ~0.5 ms of CPU here (libm.so.6 did): a lean
    # executable needs libc alone (unoptimized builds call floor/ceil from libm.so too).
    add_test(NAME lean-libs/${target}
             COMMAND sh -c "readelf -d \"$1\" | grep NEEDED | grep -v -e 'libc[.]so' -e ld-linux \
                            $<$<CONFIG:Debug>:-e libm[.]so> && exit 1 || exit 0"
                     lean-libs $<TARGET_FILE:${target}>)
    set_tests_properties(lean-libs/${target} PROPERTIES LABELS lean)
    if(EJOB_HAVE_GOLD AND target STREQUAL "ejob")
      add_test(NAME lean-text/${target}
               COMMAND python3 ${PROJECT_SOURCE_DIR}/scripts/hot-text.py --check
                       $<TARGET_FILE:${target}> ${EJOB_HOT_TEXT})
      set_tests_properties(lean-text/${target} PROPERTIES LABELS lean)
    endif()
  endif()
endfunction()
