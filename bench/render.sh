#!/usr/bin/env bash
# Render benchmarks, side by side: a chart rendered by ejob and by the Go reference renderer,
# in-process and as whole processes.
#   bench/render.sh [BUILD_DIR] [N_INPROCESS] [N_PROCESS] [CHART]
# CHART: `starter` (default: the `helm create`-style bench/starter), `big` (the big-chart shape
# that bench/gen_big_chart.py writes, generated afresh into BUILD_DIR/bench-big), or a chart dir.
# BUILD_DIR must be configured with -DEJOB_BENCH=ON and have built ejob, ejob-render-bench,
# ejob-process-bench and ejob-reference
# (cmake --build BUILD_DIR --target ejob ejob-render-bench ejob-process-bench ejob_reference).
# Targets: in-process ejob <= 1/5 of Go's time; whole process <= 1/3; peak memory (the median
# ru_maxrss of the whole processes) <= 1/2.
# Both sides run alternately (in-process: three rounds each, the median taken; whole process:
# the two commands interleaved run by run), so that load from elsewhere on the machine slows
# them alike. The whole-process target is judged on the median wall time; the median CPU time
# (user + system of the process and all its threads) is printed beside it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/release}
n_inproc=${2:-2000}
n_proc=${3:-200}
case ${4:-starter} in
  starter) chart=$here/starter ;;
  big)
    chart=$build/bench-big
    rm -rf "$chart"
    /usr/bin/python3 "$here/gen_big_chart.py" "$chart"
    ;;
  *) chart=$4 ;;
esac
for bin in ejob ejob-render-bench ejob-process-bench ejob-reference; do
  [ -x "$build/$bin" ] || { echo "render.sh: $build/$bin missing (see the header)" >&2; exit 2; }
done

# The two renderers must agree on this chart, or the timing compares different work.
if ! cmp -s <("$build/ejob" template --chart "$chart" --name bench --exact-name) \
            <("$build/ejob-reference" template --chart "$chart" --name bench --exact-name); then
  echo "render.sh: ejob and the reference render $chart differently" >&2
  exit 1
fi

ns_of() { sed -n 's/.* \([0-9][0-9]*\) ns\/op.*/\1/p'; }
median3() { printf '%s\n' "$@" | sort -n | sed -n 2p; }
echo "== in-process: $n_inproc renders of $chart (chart loaded once), 3 rounds each"
go_all=() cc_all=()
for round in 1 2 3; do
  go_line=$("$build/ejob-reference" bench --chart "$chart" --name bench -n "$n_inproc")
  cc_line=$("$build/ejob-render-bench" --chart "$chart" --name bench -n "$n_inproc")
  echo "$go_line"
  echo "$cc_line"
  go_all+=("$(echo "$go_line" | ns_of)")
  cc_all+=("$(echo "$cc_line" | ns_of)")
done
go_ns=$(median3 "${go_all[@]}")
cc_ns=$(median3 "${cc_all[@]}")
echo "median ns/op: go-reference $go_ns, ejob $cc_ns"
# The same as CPU time, which a loaded machine does not inflate: the bench processes of N and
# of 1 render(s) (each after one warm-up render), 3 interleaved runs each; the difference of
# their median CPU times is N - 1 renders.
bench_cpu() { # bench_cpu N: "GO_US EJOB_US", median CPU of each bench process
  local o
  o=$("$build/ejob-process-bench" 3 -- "$build/ejob-reference" bench --chart "$chart" --name bench -n "$1" \
      -- "$build/ejob-render-bench" --chart "$chart" --name bench -n "$1")
  echo "$o" | sed -n 's/^cmd [12]: .*cpu median \([0-9][0-9]*\) us.*/\1/p' | tr '\n' ' '
}
if [ "$n_inproc" -gt 1 ]; then
  read -r go_1 cc_1 <<<"$(bench_cpu 1)"
  read -r go_n cc_n <<<"$(bench_cpu "$n_inproc")"
  go_cpu_op=$(( (go_n - go_1) / (n_inproc - 1) )) cc_cpu_op=$(( (cc_n - cc_1) / (n_inproc - 1) ))
  echo "cpu per render: go-reference $go_cpu_op us, ejob $cc_cpu_op us"
fi

echo "== whole process: $n_proc runs each of 'template --chart $chart', interleaved"
args=(template --chart "$chart" --name bench --exact-name)
out=$("$build/ejob-process-bench" "$n_proc" -- "$build/ejob-reference" "${args[@]}" \
      -- "$build/ejob" "${args[@]}")
echo "$out"
field() { echo "$out" | sed -n "s/^cmd $1: .*$2 \([0-9][0-9]*\) us.*/\1/p"; }
go_us=$(field 1 "wall median") cc_us=$(field 2 "wall median")
go_cpu=$(field 1 "cpu median") cc_cpu=$(field 2 "cpu median")
kib() { echo "$out" | sed -n "s/^cmd $1: .*maxrss median \([0-9][0-9]*\) KiB.*/\1/p"; }
go_kib=$(kib 1) cc_kib=$(kib 2)
echo "go-reference process: $go_us us/run (cpu $go_cpu us, peak rss $go_kib KiB)"
echo "ejob process:         $cc_us us/run (cpu $cc_cpu us, peak rss $cc_kib KiB)"

echo "== ratios (ejob / go; targets: in-process <= 0.20, process <= 0.33, peak memory <= 0.50)"
awk -v a="$cc_ns" -v b="$go_ns" -v c="${cc_cpu_op:-0}" -v d="${go_cpu_op:-1}" 'BEGIN {
  printf "in-process:    %.3f  (%s; cpu time %.3f)\n", a / b, (a / b <= 0.2 ? "met" : "NOT met"), c / d }'
awk -v a="$cc_us" -v b="$go_us" -v c="$cc_cpu" -v d="$go_cpu" 'BEGIN {
  printf "whole process: %.3f  (%s; cpu time %.3f)\n", a / b, (a / b <= 1 / 3 ? "met" : "NOT met"), c / d }'
awk -v a="$cc_kib" -v b="$go_kib" 'BEGIN { printf "peak memory:   %.3f  (%s)\n", a / b, (a / b <= 0.5 ? "met" : "NOT met") }'
