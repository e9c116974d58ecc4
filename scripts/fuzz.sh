#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz (docs/reliability.md, "Fuzzing"): builds the preset
# `fuzz` (clang, -fsanitize=fuzzer,address,undefined) into build/fuzz, then runs each target for
# SECONDS on a copy of its seed corpus, with ASan's leak check, a 10 s limit per input and a
# 2 GiB memory limit. New inputs go to build/fuzz/corpus/TARGET (not the tree: a finding worth
# keeping is added to tests/fuzz/corpus/TARGET by hand, with its fix); a crash, leak, timeout
# or out-of-memory input is written to build/fuzz/findings/. One line per target (runs,
# seconds, executions, coverage, result) is appended to build/fuzz/fuzz-log.tsv, from
# libFuzzer's final statistics (-print_final_stats).
#   scripts/fuzz.sh [TARGET|all|'T1 T2 ...'] [SECONDS] [JOBS]   default: all 60 1 (JOBS at once)
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
seconds=${2:-60}
jobs=${3:-1}
build=build/fuzz
targets=$(cd tests/fuzz && ls ./*_fuzz.cpp | sed 's|^\./||; s|_fuzz\.cpp$||')
[ "$which" = all ] || targets=$which

if [ -z "${FUZZ_NO_BUILD:-}" ]; then  # FUZZ_NO_BUILD=1: run what build/fuzz has
  cmake --preset fuzz >/dev/null
  # shellcheck disable=SC2046 # one target per word
  cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target $(printf '%s_fuzz ' $targets)
fi

mkdir -p "$build/findings" "$build/logs"
log=$build/fuzz-log.tsv
[ -f "$log" ] || printf 'date\ttarget\tseconds\texecs\texecs_per_s\tcoverage\tresult\n' >"$log"
# ASan cannot follow an exception out of a stack above 64 MiB (google/sanitizers#189): the
# targets run on a 60 MiB main stack, which deep but bounded inputs need under ASan.
ulimit -s 61440
export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:detect_stack_use_after_return=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# The number after `NAME: ` in libFuzzer's output (the last one), or `?`.
stat() { grep -aoE "$1: *[0-9]+" "$2" | tail -1 | grep -oE '[0-9]+$' || echo '?'; }

run_one() {
  local target=$1 out=$build/logs/$1.log status=0 result=ok start
  mkdir -p "$build/corpus/$target"
  cp -n tests/fuzz/corpus/"$target"/* "$build/corpus/$target/" 2>/dev/null || true
  start=$(date +%s)
  "$build/${target}_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$build/findings/$target-" \
    "$build/corpus/$target" >"$out" 2>&1 || status=$?
  if [ "$status" != 0 ]; then
    result="FAILED (exit $status: $(grep -a -m1 -oE 'ERROR: [A-Za-z]+: [a-z-]+|deadly signal|timeout|out-of-memory|leak' "$out" || echo "see $out"))"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$target" "$(($(date +%s) - start))" \
    "$(stat stat::number_of_executed_units "$out")" "$(stat stat::average_exec_per_sec "$out")" \
    "$(stat cov "$out")" "$result" | tee -a "$log"
  [ "$status" = 0 ]
}

failed=0
export -f run_one stat
export build seconds log
# shellcheck disable=SC2086 # one target per word
printf '%s\n' $targets | xargs -P "$jobs" -I{} bash -c 'run_one {}' || failed=1
exit $failed
