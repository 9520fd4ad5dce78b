#!/usr/bin/env bash
# Installs every Debian 12 package that building, running and testing rnic_exporter needs.
# Idempotent: apt-get skips what is already installed.
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
export DEBIAN_FRONTEND=noninteractive
PKGS=(
  # build
  build-essential cmake pkg-config ninja-build
  libibverbs-dev librdmacm-dev
  libnl-3-dev  # tests and benchmarks build netlink messages with it
  prometheus-cpp-dev libspdlog-dev libyaml-cpp-dev
  libmicrohttpd-dev libgnutls28-dev  # the HTTP(S) server and its TLS
  libdeflate-dev  # gzip of /metrics
  zlib1g-dev  # tests: inflating what the exporter gzips, gzip_bench's alternatives
  libssl-dev libcrypt-dev  # HMAC and bcrypt for --web.config.file's basic auth
  libcurl4-openssl-dev  # the fabric probe's address exchange (HTTP/HTTPS client)
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format clang-tidy
  # fuzzing (tests/fuzz): clang and its libFuzzer/sanitizer runtimes
  clang libclang-rt-14-dev
  # host-side test tools
  curl openssl prometheus prometheus-node-exporter python3 jq ethtool
  # dashboards and packaging tiers (tests/dashboards, tests/packaging)
  yamllint shellcheck strace debhelper dpkg-dev lintian
  # the dashboards' generator (dashboards/grafana: TypeScript, Grafana's SDK)
  nodejs
  # the Helm chart rendered by Helm's engine (Go text/template + sprig)
  golang-go golang-github-masterminds-sprig-dev golang-gopkg-yaml.v3-dev
  # Soft-RoCE VM harness (tests/vm)
  qemu-system-x86 busybox-static cpio kmod iproute2 rdma-core ibverbs-utils
  ibverbs-providers perftest rdmacm-utils infiniband-diags xz-utils zstd binutils
  # profiling (tests/bench/README.md: perf record of the sysfs-only scrape)
  linux-perf
)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# Debian starts these services on install; the tests run their own instances.
for svc in prometheus prometheus-node-exporter; do
  if command -v systemctl >/dev/null && systemctl is-active --quiet "$svc" 2>/dev/null; then
    $SUDO systemctl stop "$svc" || true
  fi
done
# npm: Debian's package, unless Node.js brought its own (NodeSource's nodejs
# provides npm and conflicts with Debian's).
if ! command -v npm >/dev/null; then
  $SUDO apt-get install -y -q --no-install-recommends npm
fi
# The generator's packages, exactly as package-lock.json pins them.
npm ci --prefix "$(dirname "$0")/dashboards/grafana/generator" \
  --no-audit --no-fund --loglevel=error
echo "setup: all packages present"
