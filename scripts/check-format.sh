#!/usr/bin/env bash
# Fails when a C++ file of ours is not formatted by .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.cpp' '*.hpp' 2>/dev/null || find cli src bench tests -name '*.[ch]pp')
[ -z "$files" ] && exit 0
bad=$(clang-format --dry-run $files 2>&1 | grep -oE '^[^:]+\.(cpp|hpp)' | sort -u || true)
if [ -n "$bad" ]; then
  echo "check-format: not formatted (run clang-format -i):" >&2
  echo "$bad" >&2
  exit 1
fi
