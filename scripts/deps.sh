#!/usr/bin/env bash
# Installs, from Debian's archive, what ejob needs and this machine lacks.
#   scripts/deps.sh build   compiler, CMake and the libraries ejob links
#   scripts/deps.sh test    the above plus the test peers: etcd, torch, scikit-learn, Sprig's Go
#                           sources, kubectl and Go 1.24 (Debian 12's and 13's unpacked
#                           privately) and a Debian 11 root for the agent (scripts/peers.sh)
#   scripts/deps.sh demo    build's plus what `ejob submit examples/digits.yaml --local` runs:
#                           etcd, and Debian's python3 with torch and scikit-learn
# A need is met by whatever the machine already has, whoever installed it: a kubectl, etcd, go
# or python3 from elsewhere is used as it is and never replaced (a vendor package that owns
# /usr/bin/kubectl makes Debian's kubernetes-client fail at unpack). Before anything is
# installed, every file of every package to install is checked against the files other
# packages own, and everything is downloaded first: a failure leaves nothing half-installed.
# Nothing is downloaded from anywhere but Debian's archive.
set -euo pipefail
mode=${1:-build}
case $mode in
  build | test | demo) ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "deps: unknown need '$mode' (build, test or demo; --help says what each installs)" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

say() { echo "deps: $*" >&2; }
fail() {
  echo "deps: error: $1" >&2
  echo "deps: to fix: $2" >&2
  exit 1
}

has_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
has_cmd() { command -v "$1" >/dev/null 2>&1; }
# at_least VERSION MINIMUM: true when VERSION sorts at or after MINIMUM.
at_least() { [ -n "$1" ] && printf '%s\n%s\n' "$2" "$1" | sort -V -C; }
cmd_version() { "$@" 2>/dev/null | grep -oE '[0-9]+\.[0-9]+(\.[0-9]+)?' | head -n 1 || true; }
# The cause apt gives in LOG: a failed fetch with its reason, else its first error line.
apt_cause() {
  awk '/^Err:/ {url = $2 " " $3 " " $4; getline; sub(/^ +/, ""); print url ": " $0; found = 1; exit}
    END {if (!found) exit 1}' "$1" 2>/dev/null || grep -E '^(E|W|dpkg):' "$1" | head -n 1 || true
}
sys_python_has() { [ -x /usr/bin/python3 ] && /usr/bin/python3 -c "import $1" 2>/dev/null; }

# --- What each need is, how to tell it is met, and the Debian package that meets it ---------
missing=()
need() { # need PACKAGE [PROBE...]: PACKAGE is wanted unless PROBE (default: it is installed) holds
  local package=$1
  shift
  if [ $# -eq 0 ]; then has_pkg "$package" || missing+=("$package"); else "$@" || missing+=("$package"); fi
}

gxx_ok() { at_least "$(cmd_version g++ -dumpfullversion)" 12; }
cmake_ok() { at_least "$(cmd_version cmake --version)" 3.25; }
need g++ gxx_ok
need cmake cmake_ok
need ninja-build has_cmd ninja
need pkg-config has_cmd pkg-config
need make has_cmd make
need git has_cmd git
for p in ca-certificates libcli11-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev \
  nlohmann-json3-dev libre2-dev libfmt-dev libtomlplusplus-dev zlib1g-dev; do need "$p"; done

# clang-format must be 14 (Debian 12's): other majors format the same file differently.
clang_format_ok() {
  local v
  v=$(cmd_version clang-format --version)
  has_cmd clang-format-14 || { at_least "$v" 14 && ! at_least "$v" 15; }
}
# etcd 3.3 to 3.5 serve the v2 API the agent's etcd rendezvous speaks (3.6 removed it).
etcd_ok() { local v; v=$(cmd_version etcd --version); at_least "$v" 3.3 && ! at_least "$v" 3.6; }
kubectl_ok() { at_least "$(cmd_version kubectl version --client -o json)" 1.20; }
# What the local demo runs (examples/digits.yaml): a private etcd and ejob-agents whose workers
# are Debian's python3 with torch and scikit-learn (its digits data set ships with it).
if [ "$mode" = test ] || [ "$mode" = demo ]; then
  need python3 test -x /usr/bin/python3
  need python3-torch sys_python_has torch
  need python3-sklearn sys_python_has sklearn
  need etcd-server etcd_ok
fi
if [ "$mode" = test ]; then
  need clang-format-14 clang_format_ok
  need groff-base has_cmd groff  # the man pages are rendered and checked (tests/man)
  # Tab completion is tested in the three shells (tests/completion).
  need bash-completion test -f /usr/share/bash-completion/bash_completion
  need zsh has_cmd zsh
  need fish has_cmd fish
  need python3-yaml sys_python_has yaml
  need dpkg-dev has_cmd dpkg-shlibdeps  # the .deb packages' Depends (tests/packages)
  need lintian has_cmd lintian          # and their lint, each tag left explained
  need python3-etcd sys_python_has etcd
  need kubernetes-client kubectl_ok
  need openssl has_cmd openssl
  need curl has_cmd curl
  need procps has_cmd ps
  need iproute2 has_cmd ss
  need nghttp2-server has_cmd nghttpd
  # The Debian 11 root that ejob-agent is tested in, and the Debian 13 root with torch 2.6 that
  # it is tested beside (scripts/peers.sh; unshare and chroot come with util-linux/coreutils).
  need debootstrap test -x /usr/sbin/debootstrap
  # Go's text/template + Sprig oracle builds in GOPATH mode from Debian's Go source packages,
  # with Debian 13's Go 1.24 that scripts/peers.sh unpacks (bookworm's golang-go is 1.19).
  for p in catch2 libcpp-httplib-dev libbenchmark-dev golang-github-masterminds-sprig-dev \
    golang-k8s-sigs-yaml-dev golang-gopkg-yaml.v2-dev golang-gopkg-yaml.v3-dev \
    golang-github-burntsushi-toml-dev golang-github-xeipuuv-gojsonschema-dev; do need "$p"; done
fi

# A tool found but unusable is said, never replaced: the tests use the right copy or stop here.
if [ "$mode" != build ] && has_cmd etcd && ! etcd_ok; then
  fail "the etcd on PATH ($(command -v etcd), $(cmd_version etcd --version)) has no v2 API (etcd 3.6 removed it)" \
    "put an etcd 3.4 or 3.5 first on PATH, or remove that one so Debian's etcd-server can be installed"
fi

# Root for apt-get: ourselves, or sudo where this user may use it.
root_runner() {
  [ "$(id -u)" -eq 0 ] && return 0
  has_cmd sudo || fail "installing ${missing[*]} needs root; this user is not root and there is no sudo" \
    "run as root: su -c 'apt-get install --no-install-recommends ${missing[*]}', then rerun"
  sudo true || fail "installing ${missing[*]} needs root, and sudo refused this user" \
    "run as root: su -c 'apt-get install --no-install-recommends ${missing[*]}', then rerun"
  echo sudo
}

# Everything is downloaded into a private archive folder first and checked; only then is
# anything unpacked, so no network or a clash leaves the machine as it was.
scratch=""
keep_scratch=""
remove_scratch() {
  [ -z "$scratch" ] || [ -n "$keep_scratch" ] || ${sudo:-} rm -rf "$scratch"
  scratch=""
}
install_missing() {
  [ ${#missing[@]} -eq 0 ] && return 0
  local audit
  sudo=$(root_runner)
  audit=$(dpkg --audit 2>&1 || true)
  [ -z "$audit" ] || fail "dpkg was interrupted earlier and left packages half-configured: $(echo "$audit" |
    grep -oE '^ [a-z0-9][^ ]*' | tr -d ' ' | tr '\n' ' ')" "run: ${sudo:+sudo }dpkg --configure -a, then rerun"
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  scratch=$(mktemp -d)
  trap remove_scratch EXIT
  local log=$scratch/apt.log archives=$scratch/archives
  mkdir -p "$archives/partial"
  local apt=(apt-get -y -q --no-install-recommends -o DPkg::Lock::Timeout=600
    -o Dir::Cache::Archives="$archives/")
  [ -z "$sudo" ] || apt=(sudo "${apt[@]}")
  "${apt[@]}" update --error-on=any >"$log" 2>&1 ||
    fail "apt-get update cannot read Debian's archive ($(apt_cause "$log"))" \
      "check the network or proxy (http_proxy) to the mirror in /etc/apt/sources.list*, then rerun"
  "${apt[@]}" install --download-only "${missing[@]}" >"$log" 2>&1 ||
    fail "apt-get cannot download ${missing[*]} ($(apt_cause "$log"))" \
      "check the network to the Debian mirror (and that these are bookworm's packages), then rerun"
  refuse_file_conflicts "$archives"
  "${apt[@]}" install --no-download "${missing[@]}" >"$log" 2>&1 || {
    keep_scratch=1
    fail "installing ${missing[*]} failed ($(apt_cause "$log"); log: $log)" \
      "run: ${sudo:+sudo }apt-get -f install, then rerun"
  }
  remove_scratch
}

# Prints "PACKAGE FILE OWNER" for each file of DEB that an installed, other package owns.
clashes_of_deb() {
  local deb=$1 owned=$2 package file owner
  package=$(dpkg-deb -f "$deb" Package)
  dpkg-deb --fsys-tarfile "$deb" | tar -t | sed -n 's|^\.\(/.*[^/]\)$|\1|p' | sort -u |
    comm -12 - "$owned" | while read -r file; do
      [ -d "$file" ] && continue
      owner=$(dpkg-query -S "$file" 2>/dev/null | head -n 1 | sed 's/: .*//; s/:[a-z0-9]*$//')
      [ -z "$owner" ] || [ "$owner" = "$package" ] || echo "$package $file $owner"
    done
  return 0
}

# Refuses when a package about to be unpacked holds a file another installed package owns
# (dpkg would stop halfway with "trying to overwrite"), naming both and the file.
refuse_file_conflicts() {
  local archives=$1 owned clash deb package file owner
  owned=$(mktemp)
  cat /var/lib/dpkg/info/*.list | sort -u >"$owned"
  clash=$(for deb in "$archives"/*.deb; do clashes_of_deb "$deb" "$owned"; done | head -n 1)
  rm -f "$owned"
  [ -z "$clash" ] && return 0
  read -r package file owner <<<"$clash"
  fail "Debian's $package would overwrite $file, which the installed package $owner owns (nothing was installed)" \
    "if $owner provides what $package would, it is used as it is; otherwise remove $owner (apt-get remove $owner) and rerun"
}

install_missing
[ "$mode" = test ] && exec scripts/peers.sh
exit 0
