#!/usr/bin/env bash
# Proves the README's test command on truly fresh Debian 12 machines: a debootstrap minbase
# root from this machine's Debian mirror, a chroot with /proc, /dev and /sys mounted (sharing
# this machine's network, loopback included), a clean clone of HEAD and ../shared copied in,
# then ./dev.sh test inside. Variants:
#   bare             the bare root
#   vendor-kubectl   the bare root with a non-Debian package named `kubectl` that owns
#                    /usr/bin/kubectl installed first (Debian 13's kubectl 1.32, repackaged with
#                    dpkg-deb --build), as CI images often have
#   packages         the bare root, into which the .deb packages of this machine's build
#                    ($EJOB_PACKAGE_BUILD, default build/ci) are installed with apt, used and
#                    removed again (tests/packages/check_packages.py --install-root)
#
#   sudo scripts/fresh-machine.sh [bare|vendor-kubectl|both] [--keep]
# Each variant's log is $EJOB_FRESH_DIR/VARIANT.log (default /var/tmp/ejob-fresh); its last
# lines are printed. Exit 0 only when every variant passed. Needs root (debootstrap, chroot).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=${EJOB_FRESH_DIR:-/var/tmp/ejob-fresh}
which_variants=${1:-both}
keep=${2:-}
mounted=()

fail() {
  echo "fresh-machine: error: $1" >&2
  echo "fresh-machine: to fix: $2" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || fail "debootstrap and chroot need root" "sudo scripts/fresh-machine.sh $*"
[ -f ../shared/DESIGN.md ] || fail "../shared (beside the checkout) is missing" "put the shared folder beside the checkout"
if ! command -v debootstrap >/dev/null; then
  echo "fresh-machine: installing debootstrap" >&2
  apt-get install -y -q --no-install-recommends debootstrap >/dev/null ||
    fail "debootstrap could not be installed" "apt-get update && apt-get install debootstrap"
fi

# Stops whatever still runs inside ROOT (a test's leftover server) and unmounts it.
release_root() {
  local root=$1 proc
  for proc in /proc/[0-9]*; do
    if [ "$(readlink "$proc/root" 2>/dev/null)" = "$root" ]; then kill -9 "${proc#/proc/}" 2>/dev/null || true; fi
  done
  for m in proc sys dev; do
    mountpoint -q "$root/$m" && umount -R "$root/$m"
  done
  return 0
}
cleanup() {
  local root
  for root in "${mounted[@]}"; do release_root "$root"; done
}
trap cleanup EXIT

make_root() {
  local root=$1
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$(scripts/debian-mirror.sh)" >"$root.debootstrap.log" 2>&1 ||
    fail "debootstrap failed (log: $root.debootstrap.log)" "check the network to $(scripts/debian-mirror.sh)"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys"
  mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev"
  mounted+=("$root")
  mkdir -p "$root/work"
  git clone -q --no-local "$repo" "$root/work/main"
  cp -a ../shared "$root/work/shared"
}

# A `kubectl` package as vendors ship it (no Debian relation to kubernetes-client), around
# Debian 13's kubectl binary.
install_vendor_kubectl() {
  local root=$1 pkg
  scripts/peers.sh
  pkg=$(mktemp -d)
  mkdir -p "$pkg/DEBIAN" "$pkg/usr/bin"
  cp .cache/peers/debian13-kubectl/usr/bin/kubectl "$pkg/usr/bin/kubectl"
  printf '%s\n' "Package: kubectl" "Version: 1.32.3-00" "Architecture: amd64" \
    "Maintainer: vendor <vendor@example.com>" "Description: Kubernetes command line tool (vendor)" \
    >"$pkg/DEBIAN/control"
  dpkg-deb --build --root-owner-group "$pkg" "$root/kubectl_vendor.deb" >/dev/null
  rm -rf "$pkg"
  chroot "$root" dpkg -i /kubectl_vendor.deb >/dev/null
  chroot "$root" dpkg -S /usr/bin/kubectl
}

run_variant() {
  local variant=$1 root=$work/$1 log=$work/$1.log rc=0
  echo "fresh-machine: $variant: debootstrap --variant=minbase bookworm into $root" >&2
  make_root "$root"
  [ "$variant" = vendor-kubectl ] && install_vendor_kubectl "$root"
  echo "fresh-machine: $variant: ./dev.sh test (log: $log)" >&2
  chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    bash -c 'cd /work/main && ./dev.sh test' >"$log" 2>&1 || rc=$?
  echo "fresh-machine: $variant: exit $rc; the log's verdict and last lines:" >&2
  grep -E '^[0-9]+% tests passed' "$log" >&2 || true
  tail -n 3 "$log" >&2
  release_root "$root"
  [ "$keep" = --keep ] || rm -rf "$root"
  return "$rc"
}

# The .deb packages installed with apt into a fresh root, used, and removed without a trace.
run_packages() {
  local root=$work/packages rc=0
  echo "fresh-machine: packages: debootstrap --variant=minbase bookworm into $root" >&2
  make_root "$root"
  python3 tests/packages/check_packages.py "${EJOB_PACKAGE_BUILD:-build/ci}" --install-root "$root" \
    >"$work/packages.log" 2>&1 || rc=$?
  echo "fresh-machine: packages: exit $rc" >&2
  tail -n 4 "$work/packages.log" >&2
  release_root "$root"
  [ "$keep" = --keep ] || rm -rf "$root"
  return "$rc"
}

mkdir -p "$work"
case "$which_variants" in
  packages) run_packages ;;
  bare | vendor-kubectl) run_variant "$which_variants" ;;
  both)
    status=0
    run_variant bare || status=1
    run_variant vendor-kubectl || status=1
    exit "$status"
    ;;
  *) fail "unknown variant $which_variants" "scripts/fresh-machine.sh [bare|vendor-kubectl|both|packages] [--keep]" ;;
esac
