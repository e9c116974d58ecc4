# The peer programs the tests drive, found once for every area's tests.
#   EJOB_SYSTEM_PYTHON  Debian's /usr/bin/python3: the one scripts/deps.sh gives PyYAML, torch
#                       and python-etcd (a python3 earlier on PATH, e.g. pyenv's, may have none).
#   EJOB_KUBECTLS       one "VERSION=PATH" entry per distinct kubectl version: the user's on PATH
#                       (1.20 or later) and Debian 12's and 13's, which scripts/peers.sh unpacks
#                       under .cache/peers. kubectl's own tests run once with each.
find_program(EJOB_SYSTEM_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT EJOB_SYSTEM_PYTHON)
  message(FATAL_ERROR "/usr/bin/python3 not found: the tests run Debian's python3 (with "
                      "python3-yaml, python3-torch, python3-etcd). Run scripts/deps.sh test.")
endif()

set(EJOB_PEERS_DIR "${PROJECT_SOURCE_DIR}/.cache/peers" CACHE PATH
    "Where scripts/peers.sh unpacks the private test peers")

# Sets OUT to kubectl's client gitVersion (v1.32.3), or to "" when it does not run.
function(ejob_kubectl_version kubectl out)
  execute_process(COMMAND ${kubectl} version --client -o json
                  OUTPUT_VARIABLE json ERROR_QUIET RESULT_VARIABLE rc TIMEOUT 30)
  set(version "")
  if(rc EQUAL 0)
    string(JSON version ERROR_VARIABLE json_error GET "${json}" clientVersion gitVersion)
    if(json_error)
      set(version "")
    endif()
  endif()
  set(${out} "${version}" PARENT_SCOPE)
endfunction()

function(ejob_find_kubectls out)
  find_program(EJOB_USER_KUBECTL kubectl)
  set(candidates ${EJOB_USER_KUBECTL})
  foreach(peer debian12-kubectl debian13-kubectl)
    set(path "${EJOB_PEERS_DIR}/${peer}/usr/bin/kubectl")
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "${path} not found: the kubectl tests run Debian 12's and 13's kubectl, "
                          "unpacked privately by scripts/peers.sh (scripts/deps.sh test runs it).")
    endif()
    list(APPEND candidates "${path}")
  endforeach()
  set(found "")
  set(versions "")
  foreach(kubectl ${candidates})
    ejob_kubectl_version(${kubectl} version)
    string(REGEX MATCH "^v([0-9]+)\\.([0-9]+)" _ "${version}")
    if(version STREQUAL "" OR CMAKE_MATCH_1 LESS 1 OR (CMAKE_MATCH_1 EQUAL 1 AND CMAKE_MATCH_2 LESS 20))
      message(STATUS "kubectl ${kubectl} (${version}) left out of the tests: it is not 1.20 or later")
    elseif(NOT version IN_LIST versions)
      list(APPEND versions "${version}")
      list(APPEND found "${version}=${kubectl}")
    endif()
  endforeach()
  message(STATUS "kubectl tests run with: ${found}")
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
ejob_find_kubectls(EJOB_KUBECTLS)
