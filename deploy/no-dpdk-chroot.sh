#!/usr/bin/env bash
# The Debian 12 root the no-DPDK test builds in (deploy/no-dpdk-test.sh): the minbase of
# deploy/chroot-base.sh with build-essential and pkg-config, and nothing of DPDK. Kept as a tar in
# target/no-dpdk-test and reused (remove it to make it afresh). Made under a lock, so that `make
# test` can make it beside the lint (its downloads wait on the network, not the CPU) and the test
# that needs it waits for it. Prints the tar's path.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(realpath -m target/no-dpdk-test)
build_base=$work/bookworm-build.tar
mkdir -p "$work"
exec 9> "$work/build-base.lock"
flock 9

if [[ ! -f $build_base ]]; then
  started=$SECONDS
  base=$(bash deploy/chroot-base.sh)
  echo "no-DPDK chroot: apt-get install build-essential pkg-config in a fresh Debian 12 chroot" >&2
  root=$(mktemp -d "$work/build-base.XXXXXX")
  chmod 755 "$root"
  tar -C "$root" -xf "$base"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  unshare --mount --propagation private -- bash -euc '
    mount -t proc proc "$1/proc"
    mount --rbind /dev "$1/dev"
    chroot "$1" /bin/bash -euc "
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends build-essential pkg-config \
        > /tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log >&2; exit 1; }
      apt-get clean
      rm -rf /var/lib/apt/lists/* /tmp/apt.log"
  ' bash "$root"
  tar -C "$root" -cf "$build_base.part" . && mv "$build_base.part" "$build_base"
  # Its mounts lived in the namespace above, gone with it: nothing of this machine is under it.
  rm -rf "$root"
  echo "no-DPDK chroot: made in $((SECONDS - started)) s" >&2
fi
echo "$build_base"
