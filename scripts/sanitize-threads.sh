#!/usr/bin/env bash
# The threaded code under ThreadSanitizer: the unit tests of ejob-agent's rooms (the store's
# server loop, the etcd watcher, the preemption watch, the worker group) and of the local
# backend (the supervisor's metadata service, the requests), and of src/util, built into
# build/tsan (preset `tsan`: -O1). Every report fails the run (halt_on_error): the first one
# stops the process with exit status 66 and is also written under build/tsan/tsan-reports/.
# Part of the test command (`./dev.sh test`, last): docs/reliability.md says what it costs CI.
#   scripts/sanitize-threads.sh [CTEST_REGEX]     default: every test of those areas
#   scripts/sanitize-threads.sh --build-only      only build them
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
build=build/tsan
targets=(ejob_util_test ejob_local_test ejob_agent_store_test ejob_agent_etcd_test
  ejob_agent_preemption_test ejob_agent_rendezvous_test ejob_agent_launch_test
  ejob_agent_workers_test)
cmake --preset tsan >/dev/null
cmake --build "$build" -j"$jobs" --target "${targets[@]}"
[ "${1:-}" != --build-only ] || exit 0
reports=$PWD/$build/tsan-reports
rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="halt_on_error=1:exitcode=66:second_deadlock_stack=1:log_path=$reports/report"
# Left out: ejob's own 4 GiB stack (src/util/big_stack), on which TSan's shadow memory cannot
# follow a thread (it crashes at once); the ASan render suite runs the deep recursions.
status=0
ctest --test-dir "$build" -j"$jobs" -R "${1:-^ejob_(util|local|agent_[a-z]+):}" -E "big stack" \
  --output-on-failure ||
  status=$?
# shellcheck source=scripts/sanitizer-verdict.sh
source scripts/sanitizer-verdict.sh
sanitizer_verdict sanitize-threads "$reports" "$status"
