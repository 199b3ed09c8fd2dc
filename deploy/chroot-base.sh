#!/usr/bin/env bash
# The Debian 12 root that the chroot tests start from: `debootstrap --variant=minbase bookworm`,
# kept as a tar in target/package-test and reused (remove it to take a fresh one; making it takes
# about 1 min). deploy/package/test.sh installs the package into a copy of it, and
# deploy/no-dpdk-test.sh builds the crates that need no DPDK in another. Prints the tar's path.
set -euo pipefail
cd "$(dirname "$0")/.."
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(realpath -m target/package-test)
base=$work/bookworm-minbase.tar
mkdir -p "$work"
# One maker at a time (make test makes it beside the lint, and two tests use it).
exec 9> "$work/base.lock"
flock 9

if [[ ! -f $base ]]; then
  started=$SECONDS
  echo "chroot base: debootstrap bookworm (minbase) from $mirror" >&2
  fresh=$(mktemp -d "$work/debootstrap.XXXXXX")
  # mktemp's 0700 would be the chroot's / (tar keeps it): apt's _apt user could not enter it.
  chmod 755 "$fresh"
  debootstrap --variant=minbase bookworm "$fresh" "$mirror" > "$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  tar -C "$fresh" -cf "$base.part" . && mv "$base.part" "$base"
  rm -rf "$fresh"
  echo "chroot base: debootstrap took $((SECONDS - started)) s" >&2
fi
echo "$base"
