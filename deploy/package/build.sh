#!/usr/bin/env bash
# Builds the Debian package target/package/upfbench_VERSION_ARCH.deb (docs/install.md).
#
# dpkg-deb driven by this script rather than cargo-deb: dpkg-deb and dpkg-shlibdeps come with
# build-essential (dpkg-dev), which setup.sh installs anyway, while cargo-deb would be compiled
# from crates.io on every fresh CI machine; and what goes where is plain to read below.
#
# The binary is `make build`'s (release, --features static: DPDK and its PMDs linked in, so the
# package needs no DPDK package); cargo rebuilds nothing if it is up to date. The man pages and
# completions are made from the same Cli by crates/xtask, so that clap_mangen stays out of the
# binary. xtask depends on the cli crate alone (no DPDK); it is built in release, in the same
# cargo invocation as the binary, so that its dependencies are the artifacts the binary was
# linked from, built once (it adds clap_mangen, clap_complete and roff, and changes no shared
# crate's features; built apart, after the binary, it took 83 s more on a 2-vCPU CI machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=$(realpath -m "${OUT:-target/package}")
# Scratch (the staged tree, the generated pages): kept apart so that $out holds only the .deb, a
# small context for the container build (deploy/container/Containerfile).
scratch=$(realpath -m target/package-build)
maintainer=${MAINTAINER:-upfbench developers <noreply@upfbench.invalid>}

"${CARGO:-cargo}" build --release --locked --features upfbench/static -p upfbench -p upfbench-xtask

stage=$scratch/stage
rm -rf "$scratch" "$out"/upfbench_*.deb
mkdir -p "$out" "$stage"/{DEBIAN,usr/bin,usr/share/upfbench,usr/share/man/man1,usr/share/doc/upfbench}
mkdir -p "$stage"/{lib/systemd/system,etc/upfbench}

# Debug info out (as Debian's dh_strip does: 63 MB to 42), the symbol table kept so that
# a panic's backtrace still names functions.
install -m 755 target/release/upfbench "$stage/usr/bin/upfbench"
strip --strip-debug "$stage/usr/bin/upfbench"
version=$("$stage/usr/bin/upfbench" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)

# The examples, and the quickstart beside them: it finds systems/ and profiles/ next to itself.
# The JSON Schemas beside them too: each example's first line names its schema for editors
# (`# yaml-language-server: $schema=...`), relative to it; systems/ is one level up from
# deploy/systems/, so its files' line points one level less far.
cp -r deploy/systems profiles schema "$stage/usr/share/upfbench/"
sed -i '1s|^\(# yaml-language-server: \$schema=\)\.\./\.\./schema/|\1../schema/|' \
  "$stage"/usr/share/upfbench/systems/*.yaml
install -m 755 deploy/quickstart.sh "$stage/usr/share/upfbench/quickstart.sh"

./target/release/xtask man "$scratch/man"
for page in "$scratch"/man/*.1; do
  gzip -9n -c "$page" > "$stage/usr/share/man/man1/$(basename "$page").gz"
done
./target/release/xtask completions "$scratch/completions"
install -D -m 644 "$scratch/completions/upfbench.bash" "$stage/usr/share/bash-completion/completions/upfbench"
install -D -m 644 "$scratch/completions/_upfbench" "$stage/usr/share/zsh/vendor-completions/_upfbench"
install -D -m 644 "$scratch/completions/upfbench.fish" "$stage/usr/share/fish/vendor_completions.d/upfbench.fish"

install -m 644 deploy/package/upfbench-reflector@.service "$stage/lib/systemd/system/"
install -m 644 README.md docs/install.md "$stage/usr/share/doc/upfbench/"
install -D -m 644 -t "$stage/usr/share/doc/upfbench/reference" docs/reference/*.md
install -m 644 deploy/package/copyright "$stage/usr/share/doc/upfbench/copyright"
install -m 755 deploy/package/postinst deploy/package/prerm deploy/package/postrm "$stage/DEBIAN/"

# Depends from the libraries the binary links (DPDK's own are inside it), as debhelper would:
# dpkg-shlibdeps needs a debian/control to read, which a scratch directory provides.
shlib=$scratch/shlibdeps
mkdir -p "$shlib/debian"
printf 'Source: upfbench\n\nPackage: upfbench\nArchitecture: any\n' > "$shlib/debian/control"
depends=$(cd "$shlib" && dpkg-shlibdeps -O "$stage/usr/bin/upfbench" | sed 's/^shlibs:Depends=//')

cat > "$stage/DEBIAN/control" <<CONTROL
Package: upfbench
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Section: net
Priority: optional
Homepage: https://github.com/upfbench/upfbench
Description: DPDK traffic generator and reflector for benchmarking 5G UPFs
 upfbench programs sessions on a User Plane Function over PFCP (N4), sends
 GTP-U uplink on N3 and plain downlink on N6, and measures loss and latency
 of every packet. upfbench reflect stands in for a UPF; the
 upfbench-reflector@NAME service runs one from /etc/upfbench/NAME.yaml.
 DPDK 22.11 and its poll-mode drivers are linked into the binary.
CONTROL

deb=$out/upfbench_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
echo "package: $deb ($(du -h "$deb" | cut -f1); Depends: $depends)"
