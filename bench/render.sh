#!/usr/bin/env bash
# Render benchmarks, side by side: the `helm create`-style starter chart (bench/starter)
# rendered by ejob and by the Go reference renderer, in-process and as whole processes.
#   bench/render.sh [BUILD_DIR] [N_INPROCESS] [N_PROCESS]
# BUILD_DIR must be configured with -DEJOB_BENCH=ON and have built ejob, ejob-render-bench and
# ejob-reference (cmake --build BUILD_DIR --target ejob ejob-render-bench ejob_reference).
# Targets: in-process ejob <= 1/5 of Go's time; whole process <= 1/3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/release}
n_inproc=${2:-2000}
n_proc=${3:-200}
chart=$here/starter
for bin in ejob ejob-render-bench ejob-reference; do
  [ -x "$build/$bin" ] || { echo "render.sh: $build/$bin missing (see the header)" >&2; exit 2; }
done

# The two renderers must agree on this chart, or the timing compares different work.
if ! cmp -s <("$build/ejob" template --chart "$chart" --name bench --exact-name) \
            <("$build/ejob-reference" template --chart "$chart" --name bench --exact-name); then
  echo "render.sh: ejob and the reference render the starter chart differently" >&2
  exit 1
fi

ns_of() { sed -n 's/.* \([0-9][0-9]*\) ns\/op.*/\1/p'; }
echo "== in-process: $n_inproc renders of the starter chart (chart loaded once)"
go_line=$("$build/ejob-reference" bench --chart "$chart" --name bench -n "$n_inproc")
cc_line=$("$build/ejob-render-bench" --chart "$chart" --name bench -n "$n_inproc")
echo "$go_line"
echo "$cc_line"
go_ns=$(echo "$go_line" | ns_of)
cc_ns=$(echo "$cc_line" | ns_of)

echo "== whole process: $n_proc runs of 'template --chart starter'"
time_runs() {  # prints the mean wall time per run in microseconds
  local bin=$1 start end
  start=$(date +%s%N)
  for ((i = 0; i < n_proc; i++)); do
    "$bin" template --chart "$chart" --name bench --exact-name >/dev/null
  done
  end=$(date +%s%N)
  echo $(((end - start) / n_proc / 1000))
}
go_us=$(time_runs "$build/ejob-reference")
cc_us=$(time_runs "$build/ejob")
echo "go-reference process: $go_us us/run"
echo "ejob process:         $cc_us us/run"

echo "== ratios (ejob / go; targets: in-process <= 0.20, process <= 0.33)"
awk -v a="$cc_ns" -v b="$go_ns" 'BEGIN { printf "in-process:    %.3f  (%s)\n", a / b, (a / b <= 0.2 ? "met" : "NOT met") }'
awk -v a="$cc_us" -v b="$go_us" 'BEGIN { printf "whole process: %.3f  (%s)\n", a / b, (a / b <= 1 / 3 ? "met" : "NOT met") }'
