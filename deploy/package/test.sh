#!/usr/bin/env bash
# The package as a new user gets it (make test runs this; docs/install.md): builds the .deb,
# installs it with apt-get into a fresh Debian 12 chroot (so that its Depends are resolved from
# Debian's mirror, and nothing is installed on this machine), then in that chroot validates the
# installed examples, renders the man pages, completes a command and runs the quickstart from
# the installed files (installed-checks.sh); then the container image and the systemd unit
# (deploy/container/test.sh).
#
# The chroot's base (debootstrap --variant=minbase, about 1 min: deploy/chroot-base.sh) is kept
# in target/package-test and reused; remove it to take a fresh one. Every mount is made in a
# private mount namespace (unshare), so none outlives this script or shows on the machine, and
# the quickstart runs in a network namespace of its own (its PFCP ports clash with nothing) with
# /proc/sys read-only (it does not reserve this machine's hugepages; it uses free ones if there
# are any, else --no-huge).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$SECONDS

bash deploy/package/build.sh
echo "package test: .deb built in $((SECONDS - started)) s"
debs=(target/package/upfbench_*.deb)
deb=$(realpath "${debs[0]}")
work=$(realpath -m target/package-test)
base=$(bash deploy/chroot-base.sh)

root=$(mktemp -d "$work/chroot.XXXXXX")
chmod 755 "$root"
remove_root() {
  # Never remove a tree something is still mounted in (its /dev would be this machine's).
  if grep -q " $root/" /proc/self/mountinfo; then
    echo "package test: $root still has mounts; not removed" >&2
  else
    rm -rf "$root"
  fi
}
trap remove_root EXIT
tar -C "$root" -xf "$base"
cp "$deb" deploy/package/installed-checks.sh "$root/tmp/"
cp /etc/resolv.conf "$root/etc/resolv.conf"

echo "package test: apt-get install ./$(basename "$deb") in a fresh Debian 12 chroot"
unshare --mount --propagation private -- bash -euc '
  mount -t proc proc "$1/proc"
  mount --rbind /dev "$1/dev"
  chroot "$1" /bin/bash -euc "
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends /tmp/$2 man-db > /tmp/apt.log 2>&1 \
      || { tail -20 /tmp/apt.log >&2; exit 1; }"
' bash "$root" "$(basename "$deb")"

unshare --mount --net --propagation private -- bash -euc '
  ip link set lo up
  mount -t proc proc "$1/proc"
  mount --bind -o ro "$1/proc/sys" "$1/proc/sys"
  mount -t sysfs sysfs "$1/sys"
  mount --rbind /dev "$1/dev"
  chroot "$1" /tmp/installed-checks.sh
' bash "$root"
report=$(ls "$root"/tmp/tmp.*/reports/*-quickstart-sweep/report.json)
echo "installed: quickstart measured: $(python3 deploy/package/check_report.py "$report" 10,300,1400)"

bash deploy/container/test.sh "$deb" "$base"
echo "package test: ok in $((SECONDS - started)) s"
