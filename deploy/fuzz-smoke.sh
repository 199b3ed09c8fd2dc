#!/usr/bin/env bash
# Runs every cargo-fuzz target of the workspace for a short while (FUZZ_SECONDS each, default 20),
# seeded with the crates' reference vectors. A crash fails the run and leaves the input under
# crates/<crate>/fuzz/artifacts/. Longer campaigns: FUZZ_SECONDS=600 make fuzz.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-20}
root=$PWD

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  echo "fuzz: the nightly toolchain is needed by cargo-fuzz: rustup toolchain install nightly" >&2
  exit 1
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: installing cargo-fuzz"
  cargo install --locked cargo-fuzz@0.13.2
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

for dir in crates/*/fuzz; do
  crate=$(basename "$(dirname "$dir")")
  for target in $(cd "$dir/.." && cargo +nightly fuzz list); do
    corpus="target/fuzz-corpus/$crate/$target"
    mkdir -p "$corpus"
    [[ -d "$seeds/$crate" ]] && cp -n "$seeds/$crate"/* "$corpus"/ 2>/dev/null || true
    artifacts="$root/target/fuzz-artifacts/$crate/$target/"
    log="$root/target/fuzz-logs/$crate-$target.log"
    mkdir -p "$artifacts" "$(dirname "$log")"
    echo "fuzz: $crate/$target for ${seconds}s"
    if ! (cd "$dir/.." && cargo +nightly fuzz run --target-dir "$build_dir" "$target" "$root/$corpus" -- \
        -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts") >"$log" 2>&1; then
      tail -n 40 "$log" >&2
      echo "fuzz: $crate/$target failed; the input is in $artifacts, the log in $log" >&2
      exit 1
    fi
    grep -E '^stat::(number_of_executed_units|new_units_added)' "$log" | tr '\n' ' '; echo
  done
done
echo "fuzz: every target ran ${seconds}s without a failure"
