#!/usr/bin/env bash
# Builds the real UPFs of the lab from their public sources, each pinned by tag (or branch) AND
# commit, idempotently, into LAB_DIR (default /tmp/upflab), outside the repository:
#
#   open5gs  Open5GS v2.7.7 (318eeb49a7dc), its UPF only (open5gs-upfd, run from the build tree).
#            meson configures the whole project (it has no per-NF option) and wants two wraps,
#            put in place here so that meson never clones: freeDiameter r1.5.0 (20196a265aec)
#            and prometheus-client-c branch open5gs (a58ba25bf87a). libtins and lksctp are
#            Debian's. 20 s on this project's 2 vCPUs.
#   eupf     eUPF v0.7.1 (faf939678d0c): `go generate` (bpf2go with clang for the XDP programs,
#            swag for the API docs) and `go build`, as its Dockerfile does; Go modules come from
#            the Go module proxy (25 s with them cached). EUPF_BPF_MAP_SIZE=N (not 1024) builds
#            eupf-maps$N, whose eBPF maps hold N entries (v0.7.1's: 1024, 512 sessions of the
#            lab's plan).
#   upg-vpp  UPG-VPP, travelping's UPF plugin for VPP: upg-vpp v2.0.0 (76f574e6c434), whose
#            vpp-base submodule pins travelping/fpp-vpp 36639c3e602c, whose vpp.spec pins FDio/vpp
#            80e9503819a6 on branch stable/2402 (v24.02-8); fpp-vpp's 34 vpp-patches are applied
#            to VPP. Upstream builds in Docker and downloads DPDK, ipsec-mb, rdma-core, xdp-tools
#            and quicly; here every VPP plugin but af_packet, memif and ping is left out, so the
#            build downloads nothing (the lab reaches VPP through af_packet or memif). 10 to 20
#            minutes on 2 vCPUs with clang 14 (19 for VPP and under 1 for the plugin while two
#            others built Rust on them).
#
# Sources: each *_GIT is a git URL (default: the project's public GitHub repository) or a local
# git directory, bare mirrors included: on a machine without GitHub access, mirror the
# repositories elsewhere (`git clone --mirror URL`), copy them over, and point the variables at
# them, e.g.
#   OPEN5GS_GIT=/srv/git/open5gs.git FREEDIAMETER_GIT=/srv/git/freeDiameter.git \
#   PROMETHEUS_C_GIT=/srv/git/prometheus-client-c.git EUPF_GIT=/srv/git/eupf.git \
#   VPP_GIT=/srv/git/vpp.git FPP_VPP_GIT=/srv/git/fpp-vpp.git UPG_VPP_GIT=/srv/git/upg-vpp.git \
#   deploy/upflab/build-upfs.sh all
# (eUPF still needs Go modules: the Go module proxy, or GOPROXY/GOFLAGS=-mod=vendor of your own.)
# Every tree is checked out at its pinned commit and, where a tag is pinned, the tag must name
# that commit: a moved tag stops the build. Each tree records its commit in .upflab-commit,
# which deploy/upflab-compare.sh copies into a run's environment.txt.
#
# Output:
#   $LAB_DIR/src/{open5gs-v2.7.7,eupf-v0.7.1[-maps$N],vpp,fpp-vpp,upg-vpp}   source trees
#   $LAB_DIR/build/open5gs/src/upf/open5gs-upfd    Open5GS UPF (rpath into the build tree)
#   $LAB_DIR/eupf/bin/eupf[-maps$N]                eUPF
#   $LAB_DIR/upg-vpp/bin/vpp, lib/*/vpp_plugins/upf_plugin.so   VPP with the UPF plugin
# Re-running skips what is there; FORCE=1 rebuilds; SKIP_APT=1 skips the Debian packages.
# Usage: build-upfs.sh [--dry-run] open5gs|eupf|upg-vpp|all   (--dry-run: print the pins, the
#        sources and the output paths; build nothing)
set -euo pipefail

LAB_DIR=${LAB_DIR:-/tmp/upflab}
FORCE=${FORCE:-0}

# name  git variable  default URL  ref  commit
PINS=(
    "open5gs OPEN5GS_GIT https://github.com/open5gs/open5gs.git v2.7.7 318eeb49a7dcdff733dec60e02d9c60aefca2fb9"
    "freediameter FREEDIAMETER_GIT https://github.com/open5gs/freeDiameter.git r1.5.0 20196a265aecb7b1573ceb526bb619e092c1fd3f"
    "prometheus-c PROMETHEUS_C_GIT https://github.com/open5gs/prometheus-client-c.git open5gs a58ba25bf87a9b1b7c6be4e6f4c62047d620f402"
    "eupf EUPF_GIT https://github.com/edgecomllc/eupf.git v0.7.1 faf939678d0c043dc9cb036bca8fa8b8e28cc7c3"
    "vpp VPP_GIT https://github.com/FDio/vpp.git stable/2402 80e9503819a64f8360bb9b055660089ba67957f6"
    "fpp-vpp FPP_VPP_GIT https://github.com/travelping/fpp-vpp.git - 36639c3e602c92f64fd5da4c1c620e0f0fdeb2d9"
    "upg-vpp UPG_VPP_GIT https://github.com/travelping/upg-vpp.git v2.0.0 76f574e6c4345d24845016372188c765c84ef320"
)
SWAG_VERSION=${SWAG_VERSION:-v1.8.12} # what eUPF's Dockerfile installs
# VPP's version string, as `git describe` gives it at the pinned commit (the tree has no .git).
VPP_VERSION_STRING=v24.02-8-g80e9503819a
# The plugin's version, as `git describe --long` gives it (its cmake/Packager.cmake parses
# v<tag>-<commits>-g<hash>).
UPG_VERSION_STRING=v2.0.0-0-g76f574e

log() { printf '[build-upfs] %s\n' "$*" >&2; }

# pin NAME: sets src, ref, commit of NAME (src from its variable, or the default URL).
pin() {
    local p name var url
    for p in "${PINS[@]}"; do
        read -r name var url ref commit <<<"$p"
        if [ "$name" = "$1" ]; then
            src=${!var:-$url}
            return 0
        fi
    done
    echo "no pin $1" >&2
    exit 1
}

apt_install() {
    [ "${SKIP_APT:-0}" = 1 ] && return 0
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "apt-get install ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -q \
        --no-install-recommends "${missing[@]}"
}

# The commit a ref names in SOURCE (a git directory or URL), or nothing.
ref_commit() {
    local src=$1 ref=$2
    if [ -d "$src" ]; then
        git --git-dir="$src" rev-parse -q --verify "refs/tags/$ref^{commit}" 2>/dev/null ||
            git --git-dir="$src" rev-parse -q --verify "refs/heads/$ref^{commit}" 2>/dev/null || true
    else
        # A tag's peeled line (^{}) comes after its own: the last match is the commit.
        git ls-remote "$src" "refs/tags/$ref" "refs/tags/$ref^{}" "refs/heads/$ref" |
            awk '{print $1}' | tail -1
    fi
}

# tree NAME DEST: DEST holds the files of NAME's source at its pinned commit (no .git).
tree() {
    local name=$1 dest=$2 src ref commit named
    pin "$name"
    if [ -e "$dest/.upflab-commit" ] && [ "$(cat "$dest/.upflab-commit")" = "$commit" ]; then
        return 0
    fi
    if [ "$ref" != - ]; then
        named=$(ref_commit "$src" "$ref")
        case $ref in
        stable/*) ;; # a branch moves on: the commit must only be on it, which the fetch shows
        *)
            if [ "$named" != "$commit" ]; then
                log "$name: $ref in $src names ${named:-nothing}, not the pinned $commit: stop"
                exit 1
            fi
            ;;
        esac
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    log "$name: $src at $ref = $commit -> $dest"
    if [ -d "$src" ]; then
        git --git-dir="$src" archive "$commit" | tar -x -C "$dest"
    else
        # By commit, one commit deep (GitHub serves any commit it has).
        git -C "$dest" init -q
        git -C "$dest" fetch -q --depth 1 "$src" "$commit"
        git -C "$dest" checkout -q FETCH_HEAD
        rm -rf "$dest/.git"
    fi
    echo "$ref" >"$dest/.upflab-ref"
    echo "$commit" >"$dest/.upflab-commit"
}

build_open5gs() {
    apt_install meson ninja-build flex bison cmake pkg-config gcc g++ python3 \
        libsctp-dev libgnutls28-dev libgcrypt20-dev libssl-dev libidn11-dev libmongoc-dev \
        libbson-dev libyaml-dev libnghttp2-dev libmicrohttpd-dev libcurl4-gnutls-dev \
        libtins-dev libtalloc-dev
    local src ref commit
    pin open5gs
    local tree_dir=$LAB_DIR/src/open5gs-$ref build=$LAB_DIR/build/open5gs
    local bin=$build/src/upf/open5gs-upfd
    if [ "$FORCE" != 1 ] && [ -x "$bin" ] && [ "$(cat "$tree_dir/.upflab-commit" 2>/dev/null)" = "$commit" ]; then
        log "open5gs-upfd is there: $bin"
        return 0
    fi
    tree open5gs "$tree_dir"
    # The wraps are wrap-git: a directory already in subprojects/ is used as it is.
    tree freediameter "$tree_dir/subprojects/freeDiameter"
    tree prometheus-c "$tree_dir/subprojects/prometheus-client-c"
    if [ "$FORCE" = 1 ] || [ ! -e "$build/build.ninja" ]; then
        rm -rf "$build"
        log "meson setup $build"
        meson setup "$build" "$tree_dir" --prefix="$LAB_DIR/open5gs" --buildtype=debugoptimized \
            --wrap-mode=nodownload
    fi
    log "ninja open5gs-upfd"
    nice -n 19 ninja -C "$build" src/upf/open5gs-upfd
    "$bin" -v
}

# Local changes to eUPF, each applied only where needed and recorded in $bin.patches:
# - memlock: eUPF exits when it cannot raise RLIMIT_MEMLOCK to infinity, which needs
#   CAP_SYS_RESOURCE; kernels >= 5.11 account eBPF memory to the memory cgroup and need no
#   memlock at all. Where `ulimit -Hl unlimited` fails (a container without CAP_SYS_RESOURCE),
#   that log.Fatal becomes log.Warn (EUPF_MEMLOCK_PATCH=1 forces it, 0 refuses it).
# - map sizes: v0.7.1's eBPF maps are compiled at 1024 entries (pdr.h, qer.h, urr.h) and its
#   resize_ebpf_maps option binds new maps the loaded program never reads (fixed upstream after
#   v0.7.1 by a8d774a "set ebpf map size on startup correctly"). A session of the lab's plan
#   takes 2 FARs, 1 QER and one entry in each PDR map: 1024 entries hold 512 sessions.
build_eupf() {
    apt_install clang llvm gcc-multilib libbpf-dev
    local src ref commit
    pin eupf
    local size=${EUPF_BPF_MAP_SIZE:-1024} suffix="" tree_dir bin
    [ "$size" = 1024 ] || suffix="-maps$size"
    tree_dir=$LAB_DIR/src/eupf-$ref$suffix
    bin=$LAB_DIR/eupf/bin/eupf$suffix
    if [ "$FORCE" != 1 ] && [ -x "$bin" ] && [ "$(cat "$tree_dir/.upflab-commit" 2>/dev/null)" = "$commit" ]; then
        log "eupf is there: $bin"
        return 0
    fi
    rm -rf "$tree_dir" # the local changes below are made in place
    tree eupf "$tree_dir"
    command -v go >/dev/null || { log "eUPF needs Go (its go.mod: go 1.22.3)"; exit 1; }
    local patches=() memlock=${EUPF_MEMLOCK_PATCH:-auto}
    if [ "$memlock" = 1 ] || { [ "$memlock" = auto ] && ! (ulimit -Hl unlimited) 2>/dev/null; }; then
        sed -i 's/log\.Fatal()\(\.Msgf("Can.t increase resource limits\)/log.Warn()\1/' \
            "$tree_dir/cmd/main.go"
        grep -q 'log.Warn().Msgf("Can.t increase resource limits' "$tree_dir/cmd/main.go"
        patches+=("memlock: failure to raise RLIMIT_MEMLOCK is a warning")
    fi
    if [ "$size" != 1024 ]; then
        sed -i -E "s/^(#define (PDR_MAP_[A-Z0-9_]+_SIZE|FAR_MAP_SIZE|QER_MAP_SIZE|URR_MAP_SIZE)) 1024$/\1 $size/" \
            "$tree_dir/cmd/ebpf/xdp/pdr.h" "$tree_dir/cmd/ebpf/xdp/qer.h" "$tree_dir/cmd/ebpf/xdp/urr.h"
        [ "$(cat "$tree_dir"/cmd/ebpf/xdp/{pdr,qer,urr}.h | grep -c "_SIZE $size\$")" = 6 ]
        patches+=("maps: PDR/FAR/QER/URR eBPF maps compiled at $size entries")
    fi
    export GOBIN=$LAB_DIR/go/bin PATH=$LAB_DIR/go/bin:$PATH
    [ -x "$GOBIN/swag" ] || go install "github.com/swaggo/swag/cmd/swag@$SWAG_VERSION"
    log "go generate (bpf2go, swag)"
    (cd "$tree_dir" && BPF_CFLAGS="" go generate -v ./cmd/...)
    log "go build"
    mkdir -p "$(dirname "$bin")"
    (cd "$tree_dir" && CGO_ENABLED=0 nice -n 19 go build -o "$bin" ./cmd/)
    echo "$size" >"$bin.mapsize"
    printf '%s\n' "${patches[@]}" >"$bin.patches"
    log "eupf: $bin (maps $size; local changes: ${patches[*]:-none})"
}

build_upg_vpp() {
    apt_install cmake ninja-build clang pkg-config python3 python3-ply libhyperscan-dev \
        libnl-3-dev libnl-route-3-dev libssl-dev
    local vpp=$LAB_DIR/src/vpp fpp=$LAB_DIR/src/fpp-vpp upg=$LAB_DIR/src/upg-vpp
    local prefix=$LAB_DIR/upg-vpp build=$LAB_DIR/build/vpp upgbuild=$LAB_DIR/build/upg-vpp
    local plugins=$prefix/lib/x86_64-linux-gnu/vpp_plugins
    # VPP's generators run `env python3` and need Debian's python3-ply: Debian's python3 first
    # (a pyenv or virtualenv python3 earlier in PATH has no ply).
    local PATH=/usr/bin:$PATH
    if [ "$FORCE" = 1 ]; then
        rm -rf "$vpp" "$build" "$upgbuild" "$prefix"
    fi
    tree fpp-vpp "$fpp"
    tree upg-vpp "$upg"
    if [ ! -e "$vpp/.upflab-patched" ]; then
        rm -rf "$vpp" "$build" "$prefix"
        tree vpp "$vpp"
        local p n=0
        for p in "$fpp"/vpp-patches/*.patch; do
            git -C "$vpp" apply --whitespace=nowarn "$p"
            n=$((n + 1))
        done
        echo "$VPP_VERSION_STRING" >"$vpp/src/scripts/.version"
        echo "$n patches of fpp-vpp $(cat "$fpp/.upflab-commit")" >"$vpp/.upflab-patched"
        log "vpp: $n patches of fpp-vpp applied"
    fi
    if [ ! -x "$prefix/bin/vpp" ]; then
        local keep="af_packet memif ping" exclude
        exclude=$(find "$vpp/src/plugins" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' |
            grep -vxF -f <(tr ' ' '\n' <<<"$keep") | sort | paste -sd,)
        cmake -G Ninja -S "$vpp/src" -B "$build" -DCMAKE_BUILD_TYPE=release \
            -DCMAKE_C_COMPILER=clang -DVPP_BUILD_NATIVE_ONLY=ON -DVPP_USE_LTO=OFF \
            -DVPP_USE_CCACHE=OFF -DCMAKE_INSTALL_PREFIX="$prefix" \
            -DVPP_EXCLUDED_PLUGINS="$exclude" -DPython3_EXECUTABLE=/usr/bin/python3
        nice -n 19 ninja -C "$build" -j"$(nproc)"
        ninja -C "$build" install >/dev/null
    fi
    if [ ! -f "$plugins/upf_plugin.so" ]; then
        printf '#ifndef UPG_VERSION\n#define UPG_VERSION "%s"\n#endif\n' "$UPG_VERSION_STRING" \
            >"$upg/upf-plugin/upf/version.h"
        cmake -G Ninja -S "$upg/upf-plugin" -B "$upgbuild" -DVER="$UPG_VERSION_STRING" \
            -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER=clang -DVPP_HOME="$prefix" \
            -DCMAKE_PREFIX_PATH="$prefix"
        nice -n 19 ninja -C "$upgbuild" -j"$(nproc)"
        cp "$upgbuild/upf_plugin.so" "$plugins/"
    fi
    log "upg-vpp: $prefix/bin/vpp with $plugins/upf_plugin.so"
}

dry_run() {
    local p name var url ref commit src
    echo "LAB_DIR=$LAB_DIR"
    for p in "${PINS[@]}"; do
        read -r name var url ref commit <<<"$p"
        src=${!var:-$url}
        echo "$name: $src ${ref/#-/(no ref)} $commit ($var)"
    done
}

dry=0
if [ "${1:-}" = --dry-run ]; then
    dry=1
    shift
fi
what=${1:-}
case $what in
open5gs | eupf | upg-vpp | all) ;;
*)
    sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
if ((dry)); then
    dry_run
    exit 0
fi
mkdir -p "$LAB_DIR/src" "$LAB_DIR/build"
case $what in
open5gs) build_open5gs ;;
eupf) build_eupf ;;
upg-vpp) build_upg_vpp ;;
all)
    build_open5gs
    build_eupf
    build_upg_vpp
    ;;
esac
