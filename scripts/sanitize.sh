#!/usr/bin/env bash
# ASan + UBSan in the test command (`./dev.sh test`, after the ci tests): the render suite — the
# unit tests of src/render/go, src/render/yaml, src/render/text_template, src/render/sprig and
# src/render/helm, the differential cases (tests/diff/cases), the golden cases of the job chart
# (tests/golden) and a fixed-seed batch of the differential fuzzer, against an ejob built with
# -fsanitize=address,undefined — and the unit tests of ejob-agent (every room: the TCPStore
# server and client, etcd, the rendezvous, the workers, the preemption watch, the launcher) and
# of the local backend and src/util, into build/sanitize (preset `sanitize`: -O1, so that the
# extra build stays short). Only what those need is built. Every sanitizer report fails the
# run: the first one stops the process (halt_on_error, -fno-sanitize-recover) with exit status
# 86, and each report is also written under build/sanitize/sanitizer-reports/, which must be
# empty at the end (a test that expects ejob to fail could otherwise take a sanitizer's exit for
# the expected error). docs/reliability.md says why CI runs these and not the whole suite.
#   scripts/sanitize.sh [CTEST_REGEX]     default: all of the above
#   scripts/sanitize.sh --build-only      only build them (./dev.sh test builds while the ci
#                                         tests run)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
build=build/sanitize
suite='^(ejob_render_(go|yaml|text_template|sprig|helm):|diff/|diff-fuzz/|golden/|ejob_(util|local|agent_[a-z]+):)'
# Left out: Go's 100000 nested {{template}}s run on a 4 GiB stack of their own (src/render/
# text_template/exec.cpp), and ASan cannot follow an exception out of a stack over 64 MiB (it skips the
# cleanup, "ASan is ignoring requested __asan_handle_no_return", google/sanitizers#189, and then
# reports the frames the exception left as poisoned). The same holds for 10000 nested
# parentheses (Go 1.26's parse limit): ASan's frames are several times larger, so the unit test
# overflows its 8 MiB main stack, and ejob, which runs on its own 4 GiB stack (src/util/
# big_stack), throws the depth error out of ~150 MiB of it; and --set-json's 10000-deep unit test
# overflows the 8 MiB main stack the same way (the diff case runs, on ejob's big stack). The ci
# build runs those tests.
unfollowable='runaway template recursion|more than 10000 nested parentheses|go126-max-expression-depth|nested more than 10000 deep, as encoding/json'

cmake --preset sanitize >/dev/null
cmake --build "$build" -j"$jobs" --target ejob ejob_reference \
  ejob_render_go_test ejob_render_yaml_test ejob_render_text_template_test \
  ejob_render_sprig_test ejob_render_helm_test ejob_util_test ejob_local_test \
  ejob_agent_store_test ejob_agent_etcd_test ejob_agent_preemption_test \
  ejob_agent_rendezvous_test ejob_agent_launch_test ejob_agent_workers_test
[ "${1:-}" != --build-only ] || exit 0

reports=$PWD/$build/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
common="halt_on_error=1:exitcode=86:log_path=$reports/report:log_exe_name=1"
export ASAN_OPTIONS="$common:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="$common:print_stacktrace=1"

status=0
ctest --test-dir "$build" -j"$jobs" -R "${1:-$suite}" -E "$unfollowable" --output-on-failure ||
  status=$?
# shellcheck source=scripts/sanitizer-verdict.sh
source scripts/sanitizer-verdict.sh
sanitizer_verdict sanitize "$reports" "$status"
