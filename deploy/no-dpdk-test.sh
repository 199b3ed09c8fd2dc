#!/usr/bin/env bash
# The crates that need no DPDK build and pass their tests on a machine without it (make test runs
# this; docs/testing.md#without-dpdk): in a fresh Debian 12 chroot (deploy/chroot-base.sh's
# minbase) with build-essential and pkg-config only, where `pkg-config --exists libdpdk` must be
# false, `cargo test --locked --offline` of those crates, with this machine's Rust toolchain
# (rustup's, as rust-toolchain.toml picks it) and registry bind-mounted read-only.
#
# The chroot with its packages (deploy/no-dpdk-chroot.sh) is kept as a tar in target/no-dpdk-test
# and reused: remove it to start afresh. The chroot builds in this machine's target directory (target/, bind-mounted),
# with the same profile settings as `cargo test --workspace` before it (CI's: no incremental
# compilation, line tables only), so the registry's crates that this build already compiled
# with the same features are reused; the workspace's crates are compiled anew in the chroot
# (their source is the chroot's copy, /src: other paths, other artifacts), which is what this
# test shows builds without DPDK.
# Every mount is made in a private mount namespace (unshare), so none outlives this script, and
# the tests run in a network namespace of their own (the PFCP driver tests bind port 8805 on
# 127.0.0.1 and 127.0.0.2: this machine's are left alone).
#
# Inside the chroot CI is unset: the checks that need a tool the chroot does not have are the
# main test run's, which has them (cargo test --workspace, under CI with CI set). So the
# browser test and the MLRsearch differential test say they skip (its cases count as ignored),
# promtool's checks are left out, and the tshark dissection tests (all named *dissect*, which
# fail without tshark) are skipped by name.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

# Those whose normal and dev dependencies hold no upfbench-dpdk (checked below).
crates=(net gtpu pfcp stats search config run report profile-search present metrics cli xtask testkit api n4 remote cluster coordinate)
packages=()
for c in "${crates[@]}"; do packages+=(-p "upfbench-$c"); done

rustup_home=$(realpath "${RUSTUP_HOME:-$HOME/.rustup}")
cargo_home=$(realpath "${CARGO_HOME:-$HOME/.cargo}")
work=$(realpath -m target/no-dpdk-test)
target=$(realpath -m target)
mkdir -p "$work"

for c in "${crates[@]}"; do
  if cargo tree --locked -e normal,dev,build -p "upfbench-$c" | grep -q 'upfbench-dpdk'; then
    echo "no-DPDK test: upfbench-$c depends on upfbench-dpdk; take it out of the list" >&2
    exit 1
  fi
done
# The chroot builds offline from this machine's registry: every crate of Cargo.lock in it.
cargo fetch --locked --quiet

build_base=$(bash deploy/no-dpdk-chroot.sh)
root=$(mktemp -d "$work/chroot.XXXXXX")
chmod 755 "$root"
remove_root() {
  # Never remove a tree something is still mounted in (its /dev would be this machine's).
  if grep -q " $root/" /proc/self/mountinfo; then
    echo "no-DPDK test: $root still has mounts; not removed" >&2
  else
    rm -rf "$root"
  fi
}
trap remove_root EXIT
tar -C "$root" -xf "$build_base"

# A copy of the source tree as git sees it (what a clone has, with this work tree's changes),
# without target/.
mkdir "$root/src"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [[ -e $f || -L $f ]] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -C "$root/src" -xf -
else
  tar --exclude=./target --exclude=./.git -cf - . | tar -C "$root/src" -xf -
fi
mkdir -p "$root/root/.rustup" "$root/root/.cargo" "$root/build"

log=$work/test.log
echo "no-DPDK test: cargo test --locked --offline --no-fail-fast ${packages[*]} in the chroot"
set +e
unshare --mount --net --propagation private -- bash -euc '
  root=$1 rustup_home=$2 cargo_home=$3 target=$4 debug=$5
  shift 5
  ip link set lo up
  mount -t proc proc "$root/proc"
  mount -t sysfs sysfs "$root/sys"
  mount --rbind /dev "$root/dev"
  mount --bind -o ro "$rustup_home" "$root/root/.rustup"
  mount --bind -o ro "$cargo_home" "$root/root/.cargo"
  mount --bind "$target" "$root/build"
  chroot "$root" /usr/bin/env -i HOME=/root PATH=/root/.cargo/bin:/usr/bin:/bin \
    RUSTUP_HOME=/root/.rustup CARGO_HOME=/root/.cargo CARGO_TARGET_DIR=/build \
    CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=$debug \
    CARGO_PROFILE_TEST_DEBUG=$debug /bin/bash -euc "
      cd /src
      if pkg-config --exists libdpdk; then
        echo \"no-DPDK test: the chroot has DPDK (\$(pkg-config --modversion libdpdk))\" >&2
        exit 1
      fi
      if dpkg-query -W -f=\"\\\${Status}\" libdpdk-dev 2> /dev/null \\
          | grep -qx \"install ok installed\"; then
        echo \"no-DPDK test: libdpdk-dev is installed in the chroot\" >&2
        exit 1
      fi
      echo \"no-DPDK test: pkg-config --exists libdpdk is false; \$(cargo --version)\"
      cargo test --locked --offline --no-fail-fast $* -- --skip dissect
    "
' bash "$root" "$rustup_home" "$cargo_home" "$target" "${CARGO_PROFILE_DEV_DEBUG:-0}" \
  "${packages[@]}" 2>&1 \
  | tee "$log" \
  | grep --line-buffered -E \
    '^no-DPDK test|^ *Finished |^ *Running |^ *Doc-tests |^test result|^error|FAILED|panicked'
status=${PIPESTATUS[0]}
set -e
remove_root
trap - EXIT

read -r binaries passed failed ignored < <(awk '/^test result:/ {
    n++; for (i = 1; i <= NF; i++) {
      if ($(i + 1) ~ /^passed/) p += $i; if ($(i + 1) ~ /^failed/) f += $i
      if ($(i + 1) ~ /^ignored/) g += $i } }
  END { print n + 0, p + 0, f + 0, g + 0 }' "$log")
if [[ $status -ne 0 ]]; then
  echo "no-DPDK test: FAILED (exit $status); the last lines of $log:" >&2
  tail -60 "$log" >&2
  exit 1
fi
echo "no-DPDK test: ok: ${#crates[@]} crates, $binaries test binaries: $passed passed, $failed" \
  "failed, $ignored ignored, in $((SECONDS - started)) s"
