#!/usr/bin/env bash
# Runs every cargo-fuzz target of the workspace for a short while (FUZZ_SECONDS each, default 10),
# seeded with the crates' reference vectors. A crash fails the run and leaves the input under
# crates/<crate>/fuzz/artifacts/. Longer campaigns: FUZZ_SECONDS=600 make fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-10}
root=$PWD

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: the nightly toolchain is needed by cargo-fuzz: rustup toolchain install nightly" >&2
  exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install --locked cargo-fuzz@0.13.2
fi

# Each fuzz crate is a workspace of its own, with its own Cargo.lock: a crate at another version
# in one of them (cc, which builds libFuzzer's C++, or syn) is built again for it, for a minute
# of a 2-vCPU CI machine. Every lock must agree on every version; `cargo +nightly update
# --offline -p NAME --precise VERSION` in the odd one out aligns it.
# (A lock may hold two versions of one crate: each lock's versions of a name are compared as one.)
drift=$(for lock in crates/*/fuzz/Cargo.lock; do
    awk '/^name = /{n=$3} /^version = /{print n, $3}' "$lock" | sort \
      | awk '{v[$1] = v[$1] "," $2} END {for (n in v) print n, substr(v[n], 2)}'
  done | sort -u | awk '{v[$1] = v[$1] " " $2; c[$1]++} END {for (n in c) if (c[n] > 1) print n v[n]}')
if [[ -n $drift ]]; then
  echo "fuzz: the fuzz crates' Cargo.lock files disagree on these versions:" >&2
  echo "$drift" >&2
  exit 1
fi

# One target directory for every fuzz crate: their dependencies (libfuzzer-sys, the codecs) are
# built once, not once per crate.
build_dir=$root/target/fuzz-build
seeds=target/fuzz-seeds
rm -rf "$seeds"
# Every hex string of the testdata vectors becomes one seed of its crate's targets.
for crate in net gtpu pfcp; do
  mkdir -p "$seeds/$crate"
  python3 - "$seeds/$crate" crates/$crate/testdata/*.json <<'PY'
import json, sys, pathlib
out = pathlib.Path(sys.argv[1])
for path in sys.argv[2:]:
    for v in json.load(open(path)).get("vectors", []):
        (out / v["name"]).write_bytes(bytes.fromhex(v["hex"]))
PY
done

# Built first, a crate at a time, then run FUZZ_JOBS at a time (default: one per CPU; each
# fuzzer is one thread): on a 2-CPU CI machine the 10 targets take 100 s instead of 200. The
# shared target directory puts every crate's binaries in one folder, where net's, gtpu's and
# pfcp's `decode` would overwrite each other: each crate's are copied out as soon as built.
triple=$(rustc +nightly -vV | sed -n 's/^host: //p')
bins=$root/target/fuzz-bin
rm -rf "$bins"
mkdir -p "$bins" "$root/target/fuzz-logs"
list=$bins/targets
for dir in crates/*/fuzz; do
  crate=$(basename "$(dirname "$dir")")
  log="$root/target/fuzz-logs/$crate-build.log"
  if ! (cd "$dir/.." && cargo +nightly fuzz build --target-dir "$build_dir") >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: building $crate's targets failed; the log is in $log" >&2
    exit 1
  fi
  mkdir -p "$bins/$crate"
  for target in $(cd "$dir/.." && cargo +nightly fuzz list); do
    cp "$build_dir/$triple/release/$target" "$bins/$crate/$target"
    echo "$crate $target" >> "$list"
  done
done

# One target for $seconds, as `cargo fuzz run` runs it (with its ASAN_OPTIONS); prints one line.
fuzz_one() {
  local crate=$1 target=$2
  local corpus="$root/target/fuzz-corpus/$crate/$target"
  local artifacts="$root/target/fuzz-artifacts/$crate/$target/"
  local log="$root/target/fuzz-logs/$crate-$target.log"
  mkdir -p "$corpus" "$artifacts"
  [[ -d "$root/$seeds/$crate" ]] && cp -n "$root/$seeds/$crate"/* "$corpus"/ 2>/dev/null || true
  if ! ASAN_OPTIONS="detect_odr_violation=0 ${ASAN_OPTIONS:-}" "$bins/$crate/$target" \
      -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts" "$corpus" \
      >"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "fuzz: $crate/$target failed; the input is in $artifacts, the log in $log" >&2
    return 1
  fi
  echo "fuzz: $crate/$target ${seconds}s: $(grep -E '^stat::(number_of_executed_units|new_units_added)' "$log" | tr '\n' ' ')"
}
export -f fuzz_one
export root seeds seconds bins
if ! xargs -P "${FUZZ_JOBS:-$(nproc)}" -n 2 bash -c 'fuzz_one "$@"' fuzz < "$list"; then
  echo "fuzz: a target failed (above)" >&2
  exit 1
fi
echo "fuzz: every target ran ${seconds}s without a failure ($(wc -l < "$list") targets)"
