#!/usr/bin/env bash
# TX scaling with workers on net_null: `upfbench run` with one worker, then two (each with a TX
# queue of its own on N3; the profile's one uplink stream shared between them), beside
# `dpdk-testpmd --forward-mode=txonly` with one forwarding core and one TX queue, then two and
# two, frames of the same size, alternating in every round. Prints each rate and the ratio two /
# one of each sender: how much a second core adds.
#
#   benches/tx_workers_null.sh                 # 3 rounds of 5 s, no hugepages
#   ROUNDS=5 WINDOW=10 MODE=hugepages benches/tx_workers_null.sh
#
# Lcores on a 2-CPU machine: one worker: main 0, worker 1 (CPU 1); two workers: main 0, workers
# 1 (CPU 1) and 2 on CPU 0 beside the main lcore (upfbench's cores.cpus {2: 0}, testpmd's
# --lcores 0,1,2@0). The main lcores only read counters and sleep, so the second worker has CPU 0
# nearly to itself; a machine with more CPUs gives each lcore its own. Rates: upfbench's is its
# report's (packets the ports took over the span from the first to the last burst, both workers
# together; the profile asks for 1,000 Mpps, which no two cores reach), testpmd's the mean of its
# Tx-pps readings after two of warm-up. Uplink G-PDUs of PAYLOAD bytes over UES UEs in turn,
# every packet patched (as benches/generator_tx.sh sends them); bursts of 32 on both sides;
# net_null with no-rx=1 (nothing to receive; upfbench still polls its RX queues every loop).
# Each round's runs follow each other: the median of the rounds' ratios is the figure.
#
# Needs root, dpdk-testpmd (Debian package dpdk), jq and 2 CPUs. PRIORITY=normal (default) or rt
# (SCHED_FIFO 1; the kernel's RT throttling then stalls each busy lcore for about 50 ms a second
# when other tasks want its CPU, and the second worker shares its CPU with the main lcore).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-5}
MODE=${MODE:-nohuge}
UES=${UES:-10000}
PAYLOAD=${PAYLOAD:-10}
BURST=32
TESTPMD=${TESTPMD:-dpdk-testpmd}
PRIORITY=${PRIORITY:-normal}
BIN=${BIN:-target/release/upfbench}

command -v "$TESTPMD" >/dev/null || { echo "needs $TESTPMD (apt-get install dpdk)" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "needs root (EAL)" >&2; exit 1; }
case $PRIORITY in
  rt) prio=(chrt -f 1) ;;
  normal) prio=() ;;
  *) echo "PRIORITY=rt|normal" >&2; exit 1 ;;
esac
[[ -x $BIN ]] || cargo build --release --locked -q -p upfbench --features static

work=$(mktemp -d)
hugepages_before=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
  echo "$hugepages_before" >/proc/sys/vm/nr_hugepages
  rm -rf "$work" /var/run/dpdk/upfb-tw{gen,tp}-$$
}
trap cleanup EXIT
case $MODE in
  nohuge) mem=(--no-huge -m 1024) ;;
  hugepages)
    (($(cat /proc/sys/vm/nr_hugepages) >= 1024)) || echo 1024 >/proc/sys/vm/nr_hugepages
    mem=(--in-memory -m 1024) ;;
  *) echo "MODE=nohuge|hugepages" >&2; exit 1 ;;
esac
eal=(--no-pci --no-telemetry --log-level lib.eal:warning)

system() { # workers
  local cores="{main: 0, workers: [1]}"
  [[ $1 == 2 ]] && cores="{main: 0, workers: [1, 2], cpus: {2: 0}}"
  cat >"$work/system.yaml" <<YAML
kind: system
eal:
  args: [$(printf '"%s", ' "${mem[@]}" "${eal[@]}" | sed 's/, $//')]
  file_prefix: upfb-twgen-$$
cores: $cores
n3: {device: net_null0, devargs: no-rx=1, address: 192.168.13.131/24, peer: 192.168.13.151, peer_mac: "02:00:00:00:00:01"}
n6: {device: net_null1, devargs: no-rx=1, address: 192.168.16.152/24, peer: 192.168.16.151, peer_mac: "02:00:00:00:00:02"}
reports: $work/reports
YAML
}
cat >"$work/profile.yaml" <<YAML
name: tx-workers
max_burst: $BURST
sessions: {count: $UES}
streams:
  - {name: ul, direction: uplink, rate: 1000Mpps, payload: $PAYLOAD, spread: round_robin}
duration: ${WINDOW}s
warmup: 0s
drain: 100ms
YAML

# upfbench run with `workers` workers: prints "mpps frame_bytes".
run_upfbench() { # workers
  system "$1"
  rm -rf "$work/reports"
  "${prio[@]}" "$BIN" run "$work/system.yaml" "$work/profile.yaml" --no-pfcp \
    --reports "$work/reports" >"$work/upfbench.out" 2>&1 || { cat "$work/upfbench.out" >&2; echo "nan 0"; return; }
  jq -r '.steps[0].directions[0] | "\(.tx.kpps / 10 | round / 100) \(.tx.bytes_l2 / .tx.packets)"' \
    "$work"/reports/*/report.json
}

run_testpmd() { # cores frame
  local lcores=(-l 0,1)
  [[ $1 == 2 ]] && lcores=(--lcores 0,1,2@0)
  timeout -s INT $((WINDOW + 4)) "${prio[@]}" "$TESTPMD" "${lcores[@]}" "${mem[@]}" "${eal[@]}" \
    --file-prefix "upfb-twtp-$$" --vdev net_null0,no-rx=1 -- --forward-mode=txonly \
    --txpkts="$2" --burst=$BURST --nb-cores="$1" --rxq="$1" --txq="$1" --rxd=1024 --txd=1024 \
    --total-num-mbufs=16384 --mbcache=256 --stats-period=1 >"$work/testpmd.out" 2>&1 || true
  awk '/Tx-pps:/ { n++; if (n > 2) { sum += $2; k++ } }
    END { if (k) printf "%.2f\n", sum / k / 1e6; else print "nan" }' "$work/testpmd.out"
}

# shellcheck source=benches/stats.sh
source benches/stats.sh

linkage=shared
ldd "$BIN" | grep -q librte_eal || linkage="static"
echo "TX on net_null, one worker then two, $ROUNDS rounds of $WINDOW s, memory $MODE, priority $PRIORITY, upfbench DPDK $linkage"
echo "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
read -r _ frame < <(run_upfbench 1)
frame=${frame%.*}
up1="" up2="" tp1="" tp2=""
for ((r = 0; r < ROUNDS; r++)); do
  read -r mpps _ < <(run_upfbench 1)
  up1+=" $mpps"
  read -r mpps _ < <(run_upfbench 2)
  up2+=" $mpps"
  tp1+=" $(run_testpmd 1 "$frame")"
  tp2+=" $(run_testpmd 2 "$frame")"
  echo "round $((r + 1)): upfbench run ${up1##* } / ${up2##* }, testpmd ${tp1##* } / ${tp2##* } Mpps (one / two); load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
done
up_ratios=$(ratios "$up2" "$up1")
tp_ratios=$(ratios "$tp2" "$tp1")
echo "frames of $frame B (uplink G-PDU, payload $PAYLOAD B, $UES UEs in turn; testpmd the same length)"
echo "rounds, Mpps: upfbench one worker$up1 | two$up2 | testpmd one core$tp1 | two$tp2"
echo "ratios two / one by round: upfbench$up_ratios | testpmd$tp_ratios"
printf "Mpps median / best: upfbench one %s / %s, two %s / %s; testpmd one %s / %s, two %s / %s\n" \
  "$(median <<<"$up1")" "$(best <<<"$up1")" "$(median <<<"$up2")" "$(best <<<"$up2")" \
  "$(median <<<"$tp1")" "$(best <<<"$tp1")" "$(median <<<"$tp2")" "$(best <<<"$tp2")"
echo "median ratio two / one: upfbench $(median <<<"$up_ratios"), testpmd $(median <<<"$tp_ratios")"
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
