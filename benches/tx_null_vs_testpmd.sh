#!/usr/bin/env bash
# TX-only rate on a net_null vdev, one forwarding lcore: upfbench-dpdk (crates/dpdk/examples/tx_null,
# three ways of writing the frames) side by side with `dpdk-testpmd --forward-mode=txonly
# --txpkts=SIZE`, in the same run, on the same EAL memory mode, alternating the four in every round.
# Prints the median and the best rate of each and the ratios to testpmd (on a shared machine,
# other jobs on the forwarding CPU pull single rounds down: the best of the rounds is the rate with
# the least interference, the median the typical one).
#
#   benches/tx_null_vs_testpmd.sh                   # both memory modes, 64 and 342 B, 3 rounds
#   MODES=hugepages SIZES=64 ROUNDS=5 WINDOW=10 benches/tx_null_vs_testpmd.sh
#
# Both sides: EAL `-l 0,1` (lcore 0 is the main lcore and only reads counters; lcore 1 transmits),
# one TX queue with 1024 descriptors, bursts of 32, a pool of 8191/8192 mbufs with a per-lcore
# cache of 256 (data room 2176 B; the prefilled mode's template pool: 128 B of headroom + SIZE),
# frames of SIZE bytes (no FCS). The rate of both is the port's `opackets`
# counter over a WINDOW-second TSC window after a warm-up (testpmd: its `Tx-pps` readings, which it
# computes the same way, averaged over the window).
#
# Per packet (what makes the comparison fair, or unfair in testpmd's favour):
# - testpmd txonly takes raw mbufs in bulk (rte_mempool_get_bulk, no reset), then per packet resets
#   the headroom, sets the lengths, segment count and offload flags, and copies the 42 bytes of
#   Ethernet/IPv4/UDP headers (three rte_memcpy); the payload is not written (stale buffer data).
# - upfbench-dpdk `--write prefilled` sends from a TemplatePool: every mbuf of the pool holds the
#   whole SIZE-byte frame since the pool's creation. It takes raw mbufs in bulk
#   (TemplatePool::fill: rte_mempool_get_bulk), then per packet checks the mbuf's written mark
#   (set only if something wrote into the mbuf through the safe API; then the frame is copied
#   back), resets data offset, lengths, offload flags, packet type and VLAN fields, restores the
#   8-byte patch region after the headers from the template and writes a 64-bit sequence number
#   there. Every packet carries the complete frame; the payload is never written per packet.
# - upfbench-dpdk `--write frame` (the measure this script is about) takes raw mbufs in bulk
#   (MbufBurst::fill_with: rte_mempool_get_bulk), then per packet, in one pass, resets the mbuf's
#   first cache line as rte_pktmbuf_reset does, sets the length (append), copies the whole
#   SIZE-byte frame from a template and writes a 32-bit sequence number after the headers.
# - upfbench-dpdk `--write headers` does the same but copies only the 42 header bytes, like
#   testpmd: the same work, shown for reference.
#
# Both sides run under the same scheduling: PRIORITY=rt (the default) runs them with SCHED_FIFO
# priority 1 (`chrt -f 1`), so that compile jobs on a shared machine do not preempt the forwarding
# lcore (the kernel still leaves other tasks 5% of the CPU); PRIORITY=normal does not.
#
# Before timing, every mode is checked on a ring pair in the same EAL memory mode (tx_null
# --verify: VERIFY rounds, each sending every mbuf of the pool once, every received frame compared
# with the template carrying its sequence number): prefilled and full-frame packets must all be
# complete (the script stops otherwise); for headers-only packets the count of complete ones is
# shown (0: their payload is whatever the buffers held, as with testpmd).
#
# LINK=shared (the default) links tx_null with DPDK's shared libraries, as Debian's testpmd is;
# LINK=static builds it with `--features static` (the DPDK archives linked in).
#
# Needs root, DPDK 22.11 (dpdk-testpmd) and 2 lcores. MODES=hugepages reserves 2 MB hugepages
# (HUGEPAGES, 512 by default) with EAL --in-memory and gives them back at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

MODES=${MODES:-"hugepages nohuge"}
SIZES=${SIZES:-"64 342"}
ROUNDS=${ROUNDS:-3}
VERIFY=${VERIFY:-3}
WINDOW=${WINDOW:-5}
WARMUP=${WARMUP:-2}
HUGEPAGES=${HUGEPAGES:-512}
TESTPMD=${TESTPMD:-dpdk-testpmd}
PRIORITY=${PRIORITY:-rt}
LINK=${LINK:-shared}
TARGET_DIR=${CARGO_TARGET_DIR:-target}

command -v "$TESTPMD" >/dev/null || { echo "needs $TESTPMD (apt-get install dpdk)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "needs root (EAL)" >&2; exit 1; }

case $LINK in
  shared) features=() ;;
  static) features=(--features static) ;;
  *) echo "LINK=shared|static" >&2; exit 1 ;;
esac
echo "building crates/dpdk/examples/tx_null (release, $LINK)..." >&2
cargo build --release --locked -q -p upfbench-dpdk --example tx_null "${features[@]}"
TX_NULL="$TARGET_DIR/release/examples/tx_null"
case $PRIORITY in
  rt) prio=(chrt -f 1) ;;
  normal) prio=() ;;
  *) echo "PRIORITY=rt|normal" >&2; exit 1 ;;
esac

nr_hugepages=/proc/sys/vm/nr_hugepages
hugepages_before=$(cat "$nr_hugepages")
restore_hugepages() { echo "$hugepages_before" >"$nr_hugepages"; }
trap restore_hugepages EXIT

work=$(mktemp -d)
# EAL leaves its runtime directory behind (/var/run/dpdk/<file-prefix>).
trap 'restore_hugepages; rm -rf "$work" /var/run/dpdk/upfb-bench-{tp,rs}-$$' EXIT

eal_args() { # mode prefix
  local mem
  case $1 in
    hugepages) mem="--in-memory" ;;
    nohuge) mem="--no-huge -m 512 --no-shconf" ;;
    *) echo "unknown mode $1" >&2; exit 1 ;;
  esac
  echo "-l 0,1 $mem --no-pci --no-telemetry --log-level lib.eal:warning --file-prefix $2 --vdev net_null0"
}

# testpmd's mean Tx-pps over the window, in Mpps.
run_testpmd() { # mode size
  local out="$work/testpmd.out"
  # shellcheck disable=SC2046
  timeout -s INT $((WARMUP + WINDOW + 2)) "${prio[@]}" "$TESTPMD" $(eal_args "$1" "upfb-bench-tp-$$") -- \
    --forward-mode=txonly --txpkts="$2" --burst=32 --nb-cores=1 --rxq=1 --txq=1 \
    --rxd=1024 --txd=1024 --total-num-mbufs=8192 --mbcache=256 --stats-period=1 \
    >"$out" 2>&1 || true
  # A reading comes every 1-2 s, each the rate since the one before; the first two (0, then the
  # start-up) are the warm-up.
  awk '/Tx-pps:/ { n++; if (n > 2) { sum += $2; k++ } }
    END { if (k) printf "%.2f\n", sum / k / 1e6; else print "nan" }' "$out"
}

verify_upfbench() { # mode size write
  # shellcheck disable=SC2046
  "$TX_NULL" --frame-size "$2" --write "$3" --verify "$VERIFY" -- \
    $(eal_args "$1" "upfb-bench-rs-$$") 2>"$work/tx_null.err" |
    sed -n 's/.* packets=\([0-9]*\) complete=\([0-9]*\) .*/\2 of \1/p' | grep . ||
    { cat "$work/tx_null.err" >&2; echo "failed"; return 1; }
}

run_upfbench() { # mode size write
  # shellcheck disable=SC2046
  "${prio[@]}" "$TX_NULL" --frame-size "$2" --write "$3" --seconds "$WINDOW" --warmup "$WARMUP" -- \
    $(eal_args "$1" "upfb-bench-rs-$$") 2>"$work/tx_null.err" |
    sed -n 's/.* mpps=\([0-9.]*\).*/\1/p' | grep . || { cat "$work/tx_null.err" >&2; echo nan; }
}

# shellcheck source=benches/stats.sh
source benches/stats.sh

printf "TX only, net_null0, one lcore, %s rounds of %s s, priority %s, upfbench %s, %s\n" \
  "$ROUNDS" "$WINDOW" "$PRIORITY" "$LINK" \
  "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "Mpps as median / best of the rounds; ratio = upfbench / testpmd (median, best)"
row() { printf "%-10s %6s  %15s  %19s  %11s  %19s  %11s  %19s  %11s\n" "$@"; }
row memory frame "testpmd txonly" "upfbench prefilled" ratio "upfbench full frame" ratio \
  "upfbench headers" ratio
for mode in $MODES; do
  if [[ $mode == hugepages ]] && (($(cat "$nr_hugepages") < HUGEPAGES)); then
    echo "$HUGEPAGES" >"$nr_hugepages"
  fi
  for size in $SIZES; do
    for write in prefilled frame headers; do
      complete=$(verify_upfbench "$mode" "$size" "$write") ||
        { echo "$mode $size B $write: frames are not complete" >&2; exit 1; }
      echo "$mode $size B $write: complete frames on a ring pair: $complete" >&2
    done
    tp="" pf="" rs="" hd=""
    for ((r = 0; r < ROUNDS; r++)); do
      tp+=" $(run_testpmd "$mode" "$size")"
      pf+=" $(run_upfbench "$mode" "$size" prefilled)"
      rs+=" $(run_upfbench "$mode" "$size" frame)"
      hd+=" $(run_upfbench "$mode" "$size" headers)"
    done
    echo "$mode $size testpmd:$tp prefilled:$pf frame:$rs headers:$hd (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    tpm=$(median <<<"$tp") tpb=$(best <<<"$tp")
    pfm=$(median <<<"$pf") pfb=$(best <<<"$pf")
    rsm=$(median <<<"$rs") rsb=$(best <<<"$rs")
    hdm=$(median <<<"$hd") hdb=$(best <<<"$hd")
    row "$mode" "$size B" "$tpm / $tpb" "$pfm / $pfb" "$(ratio "$pfm" "$tpm"), $(ratio "$pfb" "$tpb")" \
      "$rsm / $rsb" "$(ratio "$rsm" "$tpm"), $(ratio "$rsb" "$tpb")" \
      "$hdm / $hdb" "$(ratio "$hdm" "$tpm"), $(ratio "$hdb" "$tpb")"
  done
  restore_hugepages
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
