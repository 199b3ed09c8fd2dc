#!/usr/bin/env bash
# TX-only rate on DPDK's virtio driver (net_virtio_user: the driver of a VM's virtio-net NICs, in
# its user-space mode) into a vhost-user port, one sending lcore: `upfbench run` itself (uplink
# G-PDUs, every packet patched: TEID, inner address, checksums, measurement tag), the Rust layer
# alone (crates/dpdk/examples/tx_null --write frame: the whole frame copied into each mbuf, as
# benches/tx_null_vs_testpmd.sh runs it) and `dpdk-testpmd --forward-mode=txonly` with frames of
# the same size, alternating in every round, each into a fresh sink of the same kind:
# `dpdk-testpmd --forward-mode=rxonly` on a net_vhost port (the vhost-user server; the senders
# connect to its socket). The sink is the same for all three, so the ratios compare the senders;
# its own receive rate is printed beside them: a sender it cannot keep up with is held to its
# rate (the virtio ring fills and the sender's burst is partly refused; testpmd drops what is
# refused, and the script prints how many times more it offered than the ring took).
#
#   benches/tx_virtio_vs_testpmd.sh                       # 3 rounds of 5 s, no hugepages
#   ROUNDS=5 WINDOW=10 MODE=hugepages benches/tx_virtio_vs_testpmd.sh
#   VIRTIO_ARGS=queues=1,queue_size=1024,packed_vq=1 benches/tx_virtio_vs_testpmd.sh
#
# Lcores: each sender main 0, sending lcore 1 (CPU 1); the sink main 1, its receiving lcore 0
# (CPU 0): two busy-polling lcores on two CPUs. Rates: upfbench's is its report's (packets the
# port took over the span from the first to the last burst; the profile asks for 200 Mpps, which
# no core reaches); tx_null's the port's opackets over the window after WARMUP s; testpmd's the
# mean of its Tx-pps readings after two of warm-up; the sink's the median of its Rx-pps readings
# while a sender ran. Bursts of 32 everywhere, rings of 1024 descriptors (VIRTIO_ARGS, the
# shipped deploy/systems/virtio-user.yaml's options). Each round's three runs follow each other:
# the median of the rounds' ratios is the figure, least disturbed by the machine's drifts.
#
# MODE=nohuge (default): --no-huge memory, which DPDK 22.11 backs with a memfd that the vhost
# side maps; MODE=hugepages: --in-memory --single-file-segments with 2 MB hugepages (vhost-user
# takes at most 8 memory regions: one file for all the pages). PRIORITY=normal (default) or rt
# (SCHED_FIFO 1 for the senders and the sink; the kernel's RT throttling then stalls each for
# about 50 ms a second when other tasks want its CPU).
#
# Needs root, dpdk-testpmd (Debian package dpdk), jq and 2 CPUs.
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-5}
WARMUP=${WARMUP:-2}
MODE=${MODE:-nohuge}
UES=${UES:-10000}
PAYLOAD=${PAYLOAD:-10}
BURST=32
TESTPMD=${TESTPMD:-dpdk-testpmd}
PRIORITY=${PRIORITY:-normal}
VIRTIO_ARGS=${VIRTIO_ARGS:-queues=1,queue_size=1024,packed_vq=0,in_order=1,mrg_rxbuf=1}
BIN=${BIN:-target/release/upfbench}
TARGET_DIR=${CARGO_TARGET_DIR:-target}

command -v "$TESTPMD" >/dev/null || { echo "needs $TESTPMD (apt-get install dpdk)" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "needs root (EAL)" >&2; exit 1; }
case $PRIORITY in
  rt) prio=(chrt -f 1) ;;
  normal) prio=() ;;
  *) echo "PRIORITY=rt|normal" >&2; exit 1 ;;
esac
[[ -x $BIN ]] || cargo build --release --locked -q -p upfbench --features static
echo "building crates/dpdk/examples/tx_null (release, static)..." >&2
cargo build --release --locked -q -p upfbench-dpdk --example tx_null --features static
TX_NULL="$TARGET_DIR/release/examples/tx_null"

work=$(mktemp -d)
sock=$work/vhost.sock
hugepages_before=$(cat /proc/sys/vm/nr_hugepages)
sink_pid=
stop_sink() {
  if [[ -n $sink_pid ]]; then
    kill -INT "$sink_pid" 2>/dev/null || true
    wait "$sink_pid" 2>/dev/null || true
  fi
  sink_pid=
}
cleanup() {
  stop_sink
  echo "$hugepages_before" >/proc/sys/vm/nr_hugepages
  rm -rf "$work" /var/run/dpdk/upfb-vt{sink,tp,rs,gen}-$$
}
trap cleanup EXIT
case $MODE in
  nohuge) mem=(--no-huge -m 1024) ;;
  hugepages)
    (($(cat /proc/sys/vm/nr_hugepages) >= 1024)) || echo 1024 >/proc/sys/vm/nr_hugepages
    mem=(--in-memory --single-file-segments -m 1024) ;;
  *) echo "MODE=nohuge|hugepages" >&2; exit 1 ;;
esac
eal=(--no-pci --no-telemetry --log-level lib.eal:warning)
virtio="net_virtio_user0,path=$sock,$VIRTIO_ARGS"

# shellcheck source=benches/stats.sh
source benches/stats.sh

# The sink: testpmd rxonly on the vhost side, its receiving lcore on CPU 0; returns once its
# socket is there.
start_sink() {
  rm -f "$sock"
  "${prio[@]}" "$TESTPMD" -l 0,1 --main-lcore 1 "${mem[@]}" "${eal[@]}" --file-prefix "upfb-vtsink-$$" \
    --vdev "net_vhost0,iface=$sock,queues=1" -- --forward-mode=rxonly --nb-cores=1 --rxq=1 \
    --txq=1 --rxd=1024 --txd=1024 --total-num-mbufs=16384 --mbcache=256 --burst=$BURST \
    --stats-period=1 >"$work/sink.out" 2>&1 &
  sink_pid=$!
  for _ in $(seq 200); do
    [[ -S $sock ]] && return
    kill -0 "$sink_pid" 2>/dev/null || break
    sleep 0.05
  done
  cat "$work/sink.out" >&2
  echo "the sink did not start" >&2
  exit 1
}

# The stopped sink's median Rx-pps over the readings while it received (the first and last left
# out: partial seconds), in Mpps.
sink_rate() {
  local rates
  rates=$(awk '/Rx-pps:/ && $2 > 0 { v[++n] = $2 }
    END { for (i = 2; i < n; i++) printf "%.2f ", v[i] / 1e6 }' "$work/sink.out")
  if [[ -n $rates ]]; then median <<<"$rates"; else echo nan; fi
}

run_testpmd() { # frame
  start_sink
  timeout -s INT $((WARMUP + WINDOW + 2)) "${prio[@]}" "$TESTPMD" -l 0,1 "${mem[@]}" "${eal[@]}" \
    --file-prefix "upfb-vttp-$$" --vdev "$virtio" -- --forward-mode=txonly --txpkts="$1" \
    --burst=$BURST --nb-cores=1 --rxq=1 --txq=1 --rxd=1024 --txd=1024 --total-num-mbufs=8192 \
    --mbcache=256 --stats-period=1 >"$work/testpmd.out" 2>&1 || true
  local tx offered
  tx=$(awk '/Tx-pps:/ { n++; if (n > 2) { sum += $2; k++ } }
    END { if (k) printf "%.2f\n", sum / k / 1e6; else print "nan" }' "$work/testpmd.out")
  # What txonly offered over what the ring took (it drops what the port refuses): above 1, the
  # sink held it back.
  offered=$(awk '/TX-packets:/ && /TX-dropped:/ { p = $2; d = $4 }
    END { if (p) printf "%.3f\n", (p + d) / p; else print "nan" }' "$work/testpmd.out")
  stop_sink
  echo "$tx $(sink_rate) $offered"
}

run_tx_null() { # frame
  start_sink
  local tx
  tx=$("${prio[@]}" "$TX_NULL" --frame-size "$1" --write frame --port net_virtio_user0 \
    --seconds "$WINDOW" --warmup "$WARMUP" -- -l 0,1 "${mem[@]}" "${eal[@]}" \
    --file-prefix "upfb-vtrs-$$" --vdev "$virtio" 2>"$work/tx_null.err" |
    sed -n 's/.* mpps=\([0-9.]*\).*/\1/p' | grep . || { cat "$work/tx_null.err" >&2; echo nan; })
  stop_sink
  echo "$tx $(sink_rate)"
}

cat >"$work/system.yaml" <<YAML
kind: system
eal:
  args: [$(printf '"%s", ' "${mem[@]}" "${eal[@]}" | sed 's/, $//')]
  file_prefix: upfb-vtgen-$$
cores: {main: 0, workers: [1]}
n3: {device: net_virtio_user0, devargs: "path=$sock,$VIRTIO_ARGS", address: 192.168.13.131/24, peer: 192.168.13.151, peer_mac: "02:00:00:00:00:01"}
n6: {device: net_null0, devargs: no-rx=1, address: 192.168.16.152/24, peer: 192.168.16.151, peer_mac: "02:00:00:00:00:02"}
reports: $work/reports
YAML
cat >"$work/profile.yaml" <<YAML
name: tx-virtio
max_burst: $BURST
sessions: {count: $UES}
streams:
  - {name: ul, direction: uplink, rate: 200Mpps, payload: $PAYLOAD, spread: round_robin}
duration: ${WINDOW}s
warmup: 0s
drain: 100ms
YAML

# upfbench run: prints "mpps frame_bytes sink_mpps".
run_upfbench() {
  start_sink
  rm -rf "$work/reports"
  local tx
  if "${prio[@]}" "$BIN" run "$work/system.yaml" "$work/profile.yaml" --no-pfcp \
    --reports "$work/reports" >"$work/upfbench.out" 2>&1; then
    tx=$(jq -r '.steps[0].directions[0] | "\(.tx.kpps / 10 | round / 100) \(.tx.bytes_l2 / .tx.packets)"' \
      "$work"/reports/*/report.json)
  else
    cat "$work/upfbench.out" >&2
    tx="nan 0"
  fi
  stop_sink
  echo "$tx $(sink_rate)"
}


linkage=shared
ldd "$BIN" | grep -q librte_eal || linkage="static"
echo "TX into vhost-user through net_virtio_user ($VIRTIO_ARGS), one lcore, $ROUNDS rounds of $WINDOW s, memory $MODE, priority $PRIORITY, upfbench DPDK $linkage"
echo "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
up="" rs="" tp="" sink_up="" sink_rs="" sink_tp="" tp_offered="" frame=""
for ((r = 0; r < ROUNDS; r++)); do
  read -r mpps size sink < <(run_upfbench)
  frame=${frame:-${size%.*}}
  up+=" $mpps" sink_up+=" $sink"
  read -r mpps sink < <(run_tx_null "$frame")
  rs+=" $mpps" sink_rs+=" $sink"
  read -r mpps sink offered < <(run_testpmd "$frame")
  tp+=" $mpps" sink_tp+=" $sink" tp_offered+=" $offered"
  echo "round $((r + 1)): upfbench run ${up##* } (sink ${sink_up##* }), tx_null ${rs##* } (sink ${sink_rs##* }), testpmd ${tp##* } (sink ${sink_tp##* }; offered ${offered}x what the ring took) Mpps; load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
up_ratios=$(ratios "$up" "$tp")
rs_ratios=$(ratios "$rs" "$tp")
echo "frames of $frame B (uplink G-PDU, payload $PAYLOAD B, $UES UEs in turn; testpmd and tx_null the same length)"
echo "rounds, Mpps: upfbench run$up | tx_null frame$rs | testpmd txonly$tp"
echo "sink (testpmd rxonly on vhost) while each sent, Mpps: upfbench run$sink_up | tx_null$sink_rs | testpmd$sink_tp"
echo "testpmd txonly offered, by round, this many times what the ring took:$tp_offered"
echo "ratios to testpmd by round: upfbench run$up_ratios | tx_null$rs_ratios"
printf "Mpps median / best: upfbench run %s / %s, tx_null %s / %s, testpmd txonly %s / %s; median ratio upfbench run / testpmd %s, tx_null / testpmd %s\n" \
  "$(median <<<"$up")" "$(best <<<"$up")" "$(median <<<"$rs")" "$(best <<<"$rs")" \
  "$(median <<<"$tp")" "$(best <<<"$tp")" "$(median <<<"$up_ratios")" "$(median <<<"$rs_ratios")"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
