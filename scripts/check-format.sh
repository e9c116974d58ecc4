#!/usr/bin/env bash
# Fails when a C++ file of ours is not formatted by .clang-format, as clang-format 14 (Debian
# 12's) formats it: other majors format the same file differently.
set -euo pipefail
cd "$(dirname "$0")/.."
format=clang-format-14
if ! command -v "$format" >/dev/null; then
  format=clang-format
  version=$("$format" --version 2>/dev/null | grep -oE 'version [0-9]+' | grep -oE '[0-9]+' || true)
  if [ "$version" != 14 ]; then
    echo "check-format: clang-format 14 not found (clang-format on PATH: ${version:-none})" >&2
    echo "check-format: to fix: scripts/deps.sh test (installs Debian's clang-format-14)" >&2
    exit 1
  fi
fi
files=$(git ls-files '*.cpp' '*.hpp' 2>/dev/null || find cli src bench tests -name '*.[ch]pp')
[ -z "$files" ] && exit 0
# shellcheck disable=SC2086 # one file name per word
report=$("$format" --dry-run $files 2>&1) || {
  echo "check-format: $format failed: $report" >&2
  exit 1
}
bad=$(echo "$report" | grep -oE '^[^:]+\.(cpp|hpp)' | sort -u || true)
if [ -n "$bad" ]; then
  echo "check-format: not formatted (run $format -i):" >&2
  echo "$bad" >&2
  exit 1
fi
