#!/usr/bin/env bash
# The .deb packages as a user installs them: a fresh Debian 12 minbase root (debootstrap from
# this machine's mirror, as scripts/fresh-machine.sh makes one; cached as a tar), /proc, /sys and /dev mounted,
# then tests/packages/check_packages.py BUILD --install-root ROOT: apt-get install of both,
# `ejob template`, `submit --dry-run=client`, a local job with the packaged agent, apt-get
# remove --purge, and none of their files left. Everything it mounts is unmounted and the
# root removed, also on failure. Needs root (debootstrap, chroot), as the test command has.
#
#   install_in_fresh_root.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
root=$(mktemp -d /var/tmp/ejob-packages-root.XXXXXX)
cleanup() {
  for m in proc sys dev; do mountpoint -q "$root/$m" && umount -R "$root/$m"; done
  rm -rf "$root"
}
trap cleanup EXIT
# debootstrap's result is kept as a tar for a week (/var/tmp/ejob-cache): unpacking it takes
# seconds where debootstrap takes minutes on this VM; the root itself is fresh each run.
cache=/var/tmp/ejob-cache/bookworm-minbase.tar
if [ -z "$(find "$cache" -mtime -7 2>/dev/null)" ]; then
  /usr/sbin/debootstrap --variant=minbase bookworm "$root" "$("$repo/scripts/debian-mirror.sh")" \
    >"$root.debootstrap.log" 2>&1 || { tail -20 "$root.debootstrap.log"; exit 1; }
  rm -f "$root.debootstrap.log"
  mkdir -p "$(dirname "$cache")"
  tar -C "$root" -cf "$cache.tmp" . && mv "$cache.tmp" "$cache"
else
  tar -C "$root" -xf "$cache"
fi
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
python3 "$repo/tests/packages/check_packages.py" "$build" --install-root "$root"
