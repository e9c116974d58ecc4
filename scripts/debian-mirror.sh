#!/usr/bin/env bash
# Prints the Debian mirror this machine's apt sources name (deb822 or one-line form), the one
# place the scripts fetch from; deb.debian.org where the sources name none.
set -euo pipefail
uri=$({ cat /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } |
  awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}')
[ -n "$uri" ] || uri=$(awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++)
  if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
echo "${uri:-http://deb.debian.org/debian}"
