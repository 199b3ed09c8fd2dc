#!/usr/bin/env bash
# Installs what upfbench needs to build, test and run on Debian 12 (the only system tried), idempotently.
# Run as root (CI does). Packages already present are not touched; nothing is downloaded twice.
# --lab: also what the kernel lab against real UPFs reads its counters with
# (deploy/upflab-compare.sh, which calls this when one is missing): bpftool for eUPF's eBPF
# statistics maps, jq for bpftool's and eUPF's JSON, curl for eUPF's REST API. `make test`
# needs none of them.
# --test: also what `make test` needs beyond building: Debian's chromium, the real browser the
# report page's test (crates/present/tests/browser.rs) loads report.html in; Debian's prometheus,
# the real Prometheus that scrapes --metrics in the end-to-end test (crates/upfbench/tests/e2e/
# metrics.rs) and whose promtool checks the exposition and the Grafana dashboard's queries;
# debootstrap, podman and runc for the package's test (deploy/package/test.sh: a Debian 12 chroot
# to install the .deb in, the container image, the systemd unit; runc where crun cannot take a
# host's cgroups).
set -euo pipefail

lab=0
test=0
for arg in "$@"; do
  case $arg in
  --lab) lab=1 ;;
  --test) test=1 ;;
  *) echo "usage: $0 [--lab] [--test]" >&2; exit 2 ;;
  esac
done

# DPDK 22.11 and the headers bindgen reads; tshark and Scapy decode our packets independently in tests;
# iproute2 builds the namespace lab; libsystemd-dev is needed only for static DPDK linking;
# python3-venv lets deploy/mlrsearch-venv.sh make the search's differential test its environment.
packages=(
  build-essential pkg-config libclang-dev clang
  dpdk dpdk-dev libdpdk-dev libsystemd-dev
  tshark python3-scapy python3-venv iproute2 ethtool
)
if ((lab)); then
  # nftables: deploy/upflab/n4-loss.sh drops a share of n4's datagrams (the kernel has no netem).
  packages+=(bpftool jq curl nftables)
fi
if ((test)); then
  packages+=(chromium prometheus debootstrap podman runc)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: missing packages: ${missing[*]}; run as root or: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # tshark asks whether non-root users may capture; the answer does not matter to us.
  echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
  apt-get update -qq
  # Others may be installing on the same machine: wait for dpkg's lock rather than fail.
  apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "setup: cargo not found: install Rust with rustup (https://rustup.rs), stable and nightly" >&2
  exit 1
fi

pkg-config --atleast-version=22.11 libdpdk || {
  echo "setup: libdpdk >= 22.11 not found by pkg-config (install libdpdk-dev)" >&2
  exit 1
}
echo "setup: ok (DPDK $(pkg-config --modversion libdpdk), $(cargo --version))"
