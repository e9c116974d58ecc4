#!/usr/bin/env bash
# The two commands of the README.
#   ./dev.sh demo   install what is missing, build, and run the main job on the embedded default
#   ./dev.sh test   install what is missing (test peers included), build, and pass every test
set -euo pipefail
cd "$(dirname "$0")"
jobs=$(nproc 2>/dev/null || echo 2)

case "${1:-}" in
  demo)
    scripts/deps.sh build
    cmake --preset release -DEJOB_TESTS=OFF >/dev/null
    cmake --build build/release -j"$jobs" --target ejob
    exec build/release/ejob template examples/job.yaml
    ;;
  test)
    scripts/deps.sh test
    scripts/check-format.sh
    cmake --preset ci >/dev/null
    cmake --build build/ci -j"$jobs"
    exec ctest --preset ci
    ;;
  *)
    echo "usage: ./dev.sh demo|test" >&2
    exit 2
    ;;
esac
