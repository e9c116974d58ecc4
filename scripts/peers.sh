#!/usr/bin/env bash
# Unpacks, privately under .cache/peers/, the peer programs the tests run in more than one
# version: Debian 12's kubectl (1.20) and Debian 13's (1.32), both static Go binaries from the
# `kubernetes-client` package; and Debian 13's Go 1.24 and mergo 1.0.1 sources, the
# differential oracle's compiler and merge library.
# Nothing is installed into the host and trixie is never added to
# its apt sources: each suite gets its own apt state under .cache/peers/apt-SUITE, pointed at
# the Debian mirror this machine's sources already name, and the packages are unpacked with
# dpkg-deb -x. A peer already unpacked is kept (reruns need no network). Also a Debian 11
# minbase root (debootstrap) that ejob-agent is run in, and a Debian 13 minbase root with
# python3-torch 2.6 that ejob-agent is tested beside, below.
#   scripts/peers.sh            unpack what is missing; print one line per peer
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD/.cache/peers
mirror=$(scripts/debian-mirror.sh)

fail() {
  echo "peers: error: $1" >&2
  echo "peers: to fix: $2" >&2
  exit 1
}

# apt-get with a private state for one suite: no host sources, lists, cache, preferences or
# dpkg status (a vendor package installed here, e.g. kubectl 1:528, must not hide the suite's).
suite_apt() {
  local suite=$1
  shift
  local dir=$root/apt-$suite
  apt-get -q -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts="$dir/empty" \
    -o Dir::Etc::Preferences="$dir/empty/none" -o Dir::Etc::PreferencesParts="$dir/empty" \
    -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" -o Dir::State::status="$dir/status" \
    -o Debug::NoLocking=true -o APT::Sandbox::User="$(id -un)" "$@"
}

# Downloads PACKAGE... of SUITE and unpacks them all into .cache/peers/NAME (once).
unpack_deb() {
  local suite=$1 name=$2
  shift 2
  local dir=$root/apt-$suite dest=$root/$name package
  [ -f "$dest/.unpacked" ] && return 0
  mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/debs" "$dir/empty"
  touch "$dir/status"
  echo "deb $mirror $suite main" >"$dir/sources.list"
  suite_apt "$suite" update --error-on=any >"$dir/update.log" 2>&1 ||
    fail "cannot read Debian $suite's package lists from $mirror (see $dir/update.log)" \
      "check the network or proxy (http_proxy) to that mirror, then rerun scripts/deps.sh test"
  rm -f "$dir"/debs/*.deb
  (cd "$dir/debs" && suite_apt "$suite" download "$@" >"$dir/download.log" 2>&1) ||
    fail "cannot download $* from Debian $suite (see $dir/download.log)" \
      "check the network or proxy to $mirror, then rerun scripts/deps.sh test"
  rm -rf "$dest"
  for package in "$@"; do dpkg-deb -x "$dir"/debs/"$package"_*.deb "$dest"; done
  touch "$dest/.unpacked"
}

# kubectl: bookworm's package is kubernetes-client; in trixie that name is a transitional
# package and the binary is in `kubectl`.
unpack_deb bookworm debian12-kubectl kubernetes-client
unpack_deb trixie debian13-kubectl kubectl
for k in "$root"/debian1?-kubectl/usr/bin/kubectl; do
  v=$("$k" version --client -o json 2>/dev/null | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p')
  [ -n "$v" ] || fail "${k#"$PWD"/} does not run" "rm -rf .cache/peers and rerun scripts/deps.sh test"
  echo "peers: kubectl $v at ${k#"$PWD"/}" >&2
done

# Go 1.24 from Debian 13, the toolchain the differential oracle (tests/reference) is built with:
# Helm v3.21 is built with Go >= 1.24, whose text/template differs from bookworm's Go 1.19
# (range over an integer, else with, ...). The compiler and its standard library's sources are
# two packages; lib/go-1.24/src links to share/go-1.24/src, so both unpack into one tree and
# GOROOT is .cache/peers/debian13-go/usr/lib/go-1.24 (tests/CMakeLists.txt looks there).
unpack_deb trixie debian13-go golang-1.24-go golang-1.24-src
go124=$root/debian13-go/usr/lib/go-1.24
v=$(GOROOT=$go124 GOTOOLCHAIN=local "$go124/bin/go" env GOVERSION 2>/dev/null || true)
case $v in
  go1.24*) echo "peers: Go $v at ${go124#"$PWD"/}" >&2 ;;
  *) fail "${go124#"$PWD"/}/bin/go does not run (got '$v')" "rm -rf .cache/peers/debian13-go and rerun scripts/deps.sh test" ;;
esac

# Debian 13's mergo 1.0.1 (it also answers the old github.com/imdario/mergo import path), laid
# over bookworm's /usr/share/gocode in the oracle's GOPATH: Sprig v3.3.0 moved to
# dario.cat/mergo 1.0.1 and Helm v3.21 links that version, whose merge/mergeOverwrite differ
# from bookworm's 0.3.12. Sprig's own dict.go did not change otherwise between 3.2.3 and 3.3.0.
unpack_deb trixie debian13-gocode golang-github-imdario-mergo-dev
[ -f "$root/debian13-gocode/usr/share/gocode/src/dario.cat/mergo/merge.go" ] ||
  fail "Debian 13's mergo did not unpack" "rm -rf .cache/peers/debian13-gocode and rerun scripts/deps.sh test"
echo "peers: mergo 1.0.1 (Go sources) at .cache/peers/debian13-gocode/usr/share/gocode" >&2

# A Debian 11 minbase root (glibc 2.31, the oldest glibc ejob-agent supports), for the test that
# runs the built agent where none of this machine's libraries are. debootstrap needs root: sudo
# is used when this user is not root. /etc/hosts is written as a container runtime writes it
# (minbase has none; Docker and Kubernetes always mount one).
debian11=$root/debian11-root
# Sets as_root to the prefix that runs a command as root (nothing, or sudo); fails naming WHAT
# when this user is not root and has no sudo.
need_root() {
  as_root=()
  [ "$(id -u)" -eq 0 ] && return 0
  command -v sudo >/dev/null || fail "building $1 needs root (debootstrap)" \
    "run scripts/peers.sh as root once (sudo scripts/peers.sh)"
  as_root=(sudo)
}

if [ ! -f "$debian11/.ready" ]; then
  need_root "the Debian 11 root"
  echo "peers: debootstrap --variant=minbase bullseye into ${debian11#"$PWD"/} (about 30 s)" >&2
  "${as_root[@]}" rm -rf "$debian11"
  "${as_root[@]}" /usr/sbin/debootstrap --variant=minbase bullseye "$debian11" "$mirror" \
    >"$root/debian11-debootstrap.log" 2>&1 ||
    fail "debootstrap of Debian 11 failed (see $root/debian11-debootstrap.log)" \
      "check the network or proxy to $mirror, then rerun scripts/deps.sh test"
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' |
    "${as_root[@]}" tee "$debian11/etc/hosts" >/dev/null
  "${as_root[@]}" touch "$debian11/.ready"
fi
echo "peers: Debian 11 root (glibc 2.31) at ${debian11#"$PWD"/}" >&2

# A Debian 13 (trixie) minbase root with Debian's python3-torch (2.6) and python3-etcd, the
# torchrun the agent's torch 2.x dialect is proven against (tests/agent/torch2_*). Built once,
# as root (debootstrap, then apt-get inside the root via chroot); about 1 GB to download.
build_trixie_torch_root() {
  local dest=$root/debian13-torch-root log=$root/debian13-torch.log
  [ -f "$dest/.ready" ] && return 0
  need_root "the Debian 13 torch root"
  echo "peers: debootstrap --variant=minbase trixie + python3-torch into ${dest#"$PWD"/} (minutes)" >&2
  "${as_root[@]}" rm -rf "$dest"
  "${as_root[@]}" /usr/sbin/debootstrap --variant=minbase trixie "$dest" "$mirror" >"$log" 2>&1 ||
    fail "debootstrap of Debian 13 failed (see $log)" \
      "check the network or proxy to $mirror, then rerun scripts/deps.sh test"
  printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n' |
    "${as_root[@]}" tee "$dest/etc/hosts" >/dev/null
  "${as_root[@]}" chroot "$dest" env DEBIAN_FRONTEND=noninteractive apt-get -q -y \
    --no-install-recommends install python3-torch python3-etcd >>"$log" 2>&1 ||
    fail "apt-get install python3-torch in the Debian 13 root failed (see $log)" \
      "check the network or proxy to $mirror, then rm -rf $dest and rerun scripts/deps.sh test"
  "${as_root[@]}" chroot "$dest" apt-get clean
  # Without /proc torch's UCX prints an error on stdout: the version is the marked line.
  "${as_root[@]}" chroot "$dest" python3 -c 'import torch, etcd; print("torch=" + torch.__version__)' \
    2>>"$log" | sed -n 's/^torch=//p' >"$root/debian13-torch.version"
  [ -s "$root/debian13-torch.version" ] ||
    fail "python3 -c 'import torch' fails in the Debian 13 root (see $log)" \
      "rm -rf $dest and rerun scripts/deps.sh test"
  "${as_root[@]}" touch "$dest/.ready"
}
build_trixie_torch_root
echo "peers: Debian 13 root (torch $(cat "$root/debian13-torch.version")) at .cache/peers/debian13-torch-root" >&2
