# Debian packages from the install rules (CPack DEB, one package per component):
#   ejob        the CLI (cli component): bin/ejob, the charts under share/ejob, the man pages,
#               the bash, zsh and fish completions, its copyright file
#   ejob-agent  the static agent for image builds (agent component)
# `cmake --build BUILD --target package` writes BUILD/ejob_VERSION_ARCH.deb and
# ejob-agent_VERSION_ARCH.deb. Depends: dpkg-shlibdeps on what is linked, plus libcurl4, which
# ejob loads with dlopen on its first request (cli/lean/curl_loader.cpp) and shlibdeps cannot
# see. The version is the project's with the git revision (`0.1.0+git5252995abcde`).

execute_process(COMMAND git -C ${PROJECT_SOURCE_DIR} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE ejob_revision OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
string(REPLACE "-" "." ejob_revision "${ejob_revision}")  # '-' separates Debian's revision
set(CPACK_PACKAGE_NAME ejob)
set(CPACK_PACKAGE_VENDOR "the ejob developers")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL cli agent)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_VERSION "${PROJECT_VERSION}")
if(ejob_revision)
  set(CPACK_DEBIAN_PACKAGE_VERSION "${PROJECT_VERSION}+git${ejob_revision}")
endif()
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "ejob developers <ejob@localhost>")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME ejob)
set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libcurl4 (>= 7.88)")
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "ejob-agent, etcd-server")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "python3-torch, kubectl")
string(CONCAT CPACK_DEBIAN_CLI_DESCRIPTION
       "PyTorch training jobs onto Kubernetes, elastically and on spot nodes\n"
       "ejob renders a job's objects from a Helm-style chart, as helm template\n"
       "does, for the engine the cluster runs (Kubeflow PyTorchJob, Trainer\n"
       "TrainJob, TorchElastic ElasticJob), sends them to the API server itself\n"
       "and follows the job: logs, describe, wait, evict. The same job runs\n"
       "locally with --local.")
set(CPACK_DEBIAN_AGENT_PACKAGE_NAME ejob-agent)
string(CONCAT CPACK_DEBIAN_AGENT_DESCRIPTION
       "drop-in for torchrun as a static binary, for training images\n"
       "ejob-agent takes torchrun's flags and PET_* environment and speaks its\n"
       "rendezvous protocols (c10d, etcd, etcd-v2), so it shares a rendezvous\n"
       "with torchrun agents. It is linked statically and runs in any x86-64\n"
       "image with glibc 2.31 or newer.")
set(CPACK_COMPONENT_CLI_DISPLAY_NAME ejob)
set(CPACK_COMPONENT_AGENT_DISPLAY_NAME ejob-agent)

# Each package's copyright file and changelog where Debian puts them (the changelog names this
# version; a native package's is changelog.gz, compressed at build time as Policy 12.7 wants).
string(TIMESTAMP ejob_package_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
foreach(package ejob ejob-agent)
  set(changelog ${PROJECT_BINARY_DIR}/packaging/${package}/changelog)
  file(WRITE ${changelog}
       "${package} (${CPACK_DEBIAN_PACKAGE_VERSION}) unstable; urgency=medium\n\n"
       "  * Built from the ejob repository at revision ${ejob_revision}.\n\n"
       " -- ${CPACK_DEBIAN_PACKAGE_MAINTAINER}  ${ejob_package_date}\n")
  add_custom_command(OUTPUT ${changelog}.gz COMMAND gzip -9nkf ${changelog}
                     DEPENDS ${changelog} VERBATIM)
  list(APPEND ejob_changelogs ${changelog}.gz)
endforeach()
add_custom_target(ejob_package_docs ALL DEPENDS ${ejob_changelogs})
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
              ${PROJECT_BINARY_DIR}/packaging/ejob/changelog.gz
        DESTINATION share/doc/ejob COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
              ${PROJECT_BINARY_DIR}/packaging/ejob-agent/changelog.gz
        DESTINATION share/doc/ejob-agent COMPONENT agent)
include(CPack)
