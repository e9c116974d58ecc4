#!/usr/bin/env bash
# The two commands of the README.
#   ./dev.sh demo   install what is missing, build, and run the main job: examples/digits.yaml
#                   trained on this machine (ejob submit --local: etcd + 2 ejob-agent nodes)
#   ./dev.sh test   install what is missing (test peers included), build, and pass every test,
#                   then the render suite and the agent's and local backend's unit tests again
#                   under ASan + UBSan (scripts/sanitize.sh), and the threaded ones under TSan
#                   (scripts/sanitize-threads.sh); those two are built while the tests run
# On failure it says which step failed and what to do (the step's own output names the cause).
set -Eeuo pipefail
cd "$(dirname "$0")"
jobs=$(nproc 2>/dev/null || echo 2)

step=""
hint=""
run_step() { # run_step NAME HINT COMMAND...: runs COMMAND as the step NAME, and says how long it took
  step=$1 hint=$2
  shift 2
  echo "dev.sh: $step" >&2
  local start=$SECONDS
  "$@"
  echo "dev.sh: $step: done in $((SECONDS - start)) s (the test command so far: $SECONDS s)" >&2
}
on_failure() {
  echo "dev.sh: step '$step' failed (exit $1)." >&2
  [ -z "$hint" ] || echo "dev.sh: what to do: $hint" >&2
}
trap 'on_failure $?' ERR

# The build and the private peers are written inside the checkout.
writable_checkout() {
  local probe
  probe=$(mktemp -p . .dev-write-XXXXXX 2>/dev/null) || {
    echo "dev.sh: the checkout $PWD is read-only; building writes build/ and .cache/ inside it." >&2
    echo "dev.sh: what to do: clone it to a writable place: git clone $PWD ~/ejob && ~/ejob/dev.sh ${1:-test}" >&2
    return 1
  }
  rm -f "$probe"
}

# The main job: a CNN trained on scikit-learn's digits by 2 simulated nodes of this machine
# (a private etcd, one ejob-agent each), the workers' logs shown live; the wall time at the end.
run_demo_job() {
  local start=$SECONDS
  build/release/ejob submit examples/digits.yaml --local --follow
  echo "dev.sh: the job trained in $((SECONDS - start)) s (wall time, from submit to its end)" >&2
}

# Where the demo's binaries are and what to try next.
next_steps() {
  cat >&2 <<NEXT

dev.sh: built build/release/ejob and build/release/ejob-agent (the worker images' torchrun).
dev.sh: next, try:
  build/release/ejob list && build/release/ejob describe NAME      # the job just run (NAME above)
  build/release/ejob submit examples/digits.yaml --local -- examples/digits/train.py --epochs=200
      then: build/release/ejob evict NAME --worker 1 --grace 2      # a spot drill: it resumes
  build/release/ejob template examples/job.yaml --gpus 2          # the manifests for a cluster
  cmake --install build/release --prefix ~/.local                 # ejob and ejob-agent on PATH
NEXT
}

# The ci tests leave about half of the CPU idle (they wait on agents, servers and torch
# workers: 440 s of CPU in 420 s on 2 cores), so the sanitizer builds run meanwhile, at the
# lowest priority, in a session of their own that stops with this script. Their output goes to
# build/sanitizer-builds.log.
sanitizer_builds=""
start_sanitizer_builds() {
  mkdir -p build
  setsid bash -c 'nice -n 19 scripts/sanitize.sh --build-only &&
    nice -n 19 scripts/sanitize-threads.sh --build-only' >build/sanitizer-builds.log 2>&1 &
  sanitizer_builds=$!
}
stop_sanitizer_builds() {
  [ -z "$sanitizer_builds" ] || kill -- "-$sanitizer_builds" 2>/dev/null || true
}
wait_sanitizer_builds() {
  local status=0
  wait "$sanitizer_builds" || status=$?
  sanitizer_builds=""
  [ "$status" -eq 0 ] || tail -n 80 build/sanitizer-builds.log >&2
  return "$status"
}

deps_hint="the lines above from deps: say the cause and the fix"
build_hint="the compiler's or CMake's first error above names the file and line"
case "${1:-}" in
  demo)
    step="check the checkout"
    writable_checkout demo
    run_step "install what is missing" "$deps_hint" scripts/deps.sh demo
    run_step "configure" "$build_hint" cmake --preset release -DEJOB_TESTS=OFF >/dev/null
    run_step "build" "$build_hint" cmake --build build/release -j"$jobs" --target ejob ejob-agent
    run_step "train the example job on this machine" \
      "ejob's message above names the cause; the job's files: build/release/ejob describe NAME" \
      run_demo_job
    next_steps
    ;;
  test)
    step="check the checkout"
    writable_checkout test
    run_step "install what is missing" "$deps_hint" scripts/deps.sh test
    run_step "check formatting" "format the files listed with clang-format-14 -i" scripts/check-format.sh
    run_step "configure" "$build_hint" cmake --preset ci >/dev/null
    run_step "build" "$build_hint" cmake --build build/ci -j"$jobs"
    trap stop_sanitizer_builds EXIT
    start_sanitizer_builds
    run_step "test" "the failed tests are listed above; rerun one with: ctest --preset ci -R 'NAME' --output-on-failure" \
      ctest --preset ci
    run_step "build for the sanitizers (begun with the tests)" "$build_hint (build/sanitizer-builds.log)" \
      wait_sanitizer_builds
    run_step "render, agent and local tests under ASan + UBSan" \
      "the sanitizer's report above names the fault; rerun one test with: scripts/sanitize.sh 'NAME'" \
      scripts/sanitize.sh
    run_step "agent and local threads under ThreadSanitizer" \
      "the race report above names both stacks; rerun one test with: scripts/sanitize-threads.sh 'NAME'" \
      scripts/sanitize-threads.sh
    ;;
  *)
    echo "usage: ./dev.sh demo|test" >&2
    exit 2
    ;;
esac
