#!/usr/bin/env bash
# Installs, from Debian's archive, what ejob needs and the machine lacks.
#   scripts/deps.sh build   compiler, CMake and the libraries ejob links
#   scripts/deps.sh test    the above plus the test peers: etcd, torch, Go + Sprig, kubectl checks
# Nothing is downloaded from anywhere else.
set -euo pipefail

build_pkgs=(g++ cmake ninja-build pkg-config make git ca-certificates
  libcli11-dev libyaml-cpp-dev libcurl4-openssl-dev libssl-dev nlohmann-json3-dev
  libre2-dev libfmt-dev libtomlplusplus-dev zlib1g-dev)
test_pkgs=(catch2 clang-format python3 python3-yaml openssl curl procps iproute2
  libcpp-httplib-dev libbenchmark-dev
  golang-go golang-github-masterminds-sprig-dev golang-k8s-sigs-yaml-dev
  golang-gopkg-yaml.v2-dev golang-gopkg-yaml.v3-dev golang-github-burntsushi-toml-dev
  golang-github-xeipuuv-gojsonschema-dev
  kubernetes-client etcd-server etcd-client python3-torch python3-etcd nghttp2-server)

want=("${build_pkgs[@]}")
[ "${1:-build}" = test ] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
echo "deps: installing ${missing[*]}" >&2
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}" >&2
