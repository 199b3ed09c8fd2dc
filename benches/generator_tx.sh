#!/usr/bin/env bash
# The generator's TX worker on net_null (issue 9, benchmarks "TX" and "Pacing"): `upfbench run`
# itself, one worker lcore, sending uplink G-PDUs with 10-byte payloads over 10,000 UEs in turn
# (TEID, inner source address, IPv4 and UDP checksums, measurement tag and timestamp patched in
# every packet), against `dpdk-testpmd --forward-mode=txonly` with frames of the same size, in
# the same run, alternating round by round. Then pacing: the same worker asked for 0.1, 1, 5 and
# 20 Mpps, achieved rate, error, the schedule's slips (times the worker fell behind by more than
# max_burst, and the time its schedule moved later: a slip lowers the achieved rate, see
# docs/reference/profile.md, max_burst), and PASS or FAIL against the target of 0.5 %.
#
#   benches/generator_tx.sh                       # 3 rounds of 5 s, no hugepages
#   ROUNDS=5 WINDOW=10 MODE=hugepages RATES="1 20" BURSTS=32 benches/generator_tx.sh
#   PARTS=pacing RATES="0.1 1 5 20" benches/generator_tx.sh   # the pacing part only
#   PARTS=pacing PACING_MAX_BURST=1024 PACING_PRIORITY=rt benches/generator_tx.sh
#
# Both sides: lcore 0 main, lcore 1 sends; net_null0 (no-rx=1: nothing to receive, as on a TX-only
# test; upfbench still polls its RX queues every loop); one TX queue; bursts of 32 and of 64 (profile max_burst, testpmd --burst), the same on both. upfbench's rate
# is the report's: packets the NIC took over the span from the first to the last burst (the profile
# asks for 200 Mpps, which no core reaches: the worker sends as fast as it can). testpmd's is the
# mean of its Tx-pps readings after two of warm-up. testpmd txonly writes only the 42 bytes of
# Ethernet/IPv4/UDP headers per packet; upfbench patches a whole G-PDU's variable fields.
#
# Needs root, dpdk-testpmd (Debian package dpdk) and 2 CPUs. PRIORITY=rt (default) runs both with
# SCHED_FIFO 1 so that other jobs on a shared machine preempt neither. But with the kernel's default
# sched_rt_runtime_us (950000) a SCHED_FIFO worker is stopped for about 50 ms a second whenever
# other tasks want its CPU: its schedule slips by that much, about 4 % of the pacing runs' rate
# (measured: 4 slips of 49 ms in 5 s at 0.1 Mpps). PRIORITY=normal avoids it; the pacing part runs
# at PACING_PRIORITY (normal unless set).
set -euo pipefail
cd "$(dirname "$0")/.."

ROUNDS=${ROUNDS:-3}
WINDOW=${WINDOW:-5}
MODE=${MODE:-nohuge}
RATES=${RATES:-"0.1 1 5 20"}
BURSTS=${BURSTS:-"32 64"}
PARTS=${PARTS:-"tx pacing"}
# The profile's max_burst in the pacing part: the longest train, and how late the worker may be
# before its schedule slips (max_burst / rate).
PACING_MAX_BURST=${PACING_MAX_BURST:-32}
# The pacing target: the achieved rate within this many percent of the requested one.
TARGET_PCT=0.5
UES=${UES:-10000}
PAYLOAD=${PAYLOAD:-10}
TESTPMD=${TESTPMD:-dpdk-testpmd}
PRIORITY=${PRIORITY:-rt}
# The pacing part runs at normal priority unless told: SCHED_FIFO's throttling (above) stalls the
# worker 50 ms a second, which is the machine's doing, not the pacer's.
PACING_PRIORITY=${PACING_PRIORITY:-normal}
BIN=${BIN:-target/release/upfbench}

command -v "$TESTPMD" >/dev/null || { echo "needs $TESTPMD (apt-get install dpdk)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "needs root (EAL)" >&2; exit 1; }
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)" >&2; exit 1; }
priority() { case $1 in rt) prio=(chrt -f 1) ;; normal) prio=() ;; *) echo "PRIORITY=rt|normal" >&2; exit 1 ;; esac; }
priority "$PACING_PRIORITY"
priority "$PRIORITY"
[[ -x $BIN ]] || cargo build --release --locked -q -p upfbench --features static

work=$(mktemp -d)
hugepages_before=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
  echo "$hugepages_before" >/proc/sys/vm/nr_hugepages
  rm -rf "$work" /var/run/dpdk/upfb-txb-$$ /var/run/dpdk/upfb-tp-$$
}
trap cleanup EXIT
case $MODE in
  nohuge) mem='--no-huge, -m, "1024"' tp_mem="--no-huge -m 1024" ;;
  hugepages)
    (($(cat /proc/sys/vm/nr_hugepages) >= 1024)) || echo 1024 >/proc/sys/vm/nr_hugepages
    mem='--in-memory, -m, "1024"' tp_mem="--in-memory -m 1024" ;;
  *) echo "MODE=nohuge|hugepages" >&2; exit 1 ;;
esac

cat >"$work/system.yaml" <<YAML
kind: system
eal:
  args: [$mem, --no-pci, --no-telemetry, --log-level, "lib.eal:warning"]
  file_prefix: upfb-txb-$$
cores: {main: 0, workers: [1]}
n3: {device: net_null0, devargs: no-rx=1, address: 192.168.13.131/24, peer: 192.168.13.151, peer_mac: "02:00:00:00:00:01"}
n6: {device: net_null1, devargs: no-rx=1, address: 192.168.16.152/24, peer: 192.168.16.151, peer_mac: "02:00:00:00:00:02"}
reports: $work/reports
YAML
profile() { # rate seconds [burst]
  cat >"$work/profile.yaml" <<YAML
name: tx-bench
max_burst: ${3:-32}
sessions: {count: $UES}
streams:
  - {name: ul, direction: uplink, rate: $1Mpps, payload: $PAYLOAD, spread: round_robin}
duration: ${2}s
warmup: 0s
drain: 100ms
YAML
}

# Runs upfbench at `rate` Mpps for `seconds`; prints "achieved_mpps frame_bytes slips late_us
# max_late_us": how often the worker fell behind by more than max_burst, how late its schedule
# still was at the end (what the profile's catch_up did not make up), and the most it ever was.
run_upfbench() { # rate seconds [burst]
  profile "$1" "$2" "${3:-32}"
  rm -rf "$work/reports"
  "${prio[@]}" "$BIN" run "$work/system.yaml" "$work/profile.yaml" --no-pfcp --reports "$work/reports" \
    >"$work/upfbench.out" 2>&1 || { cat "$work/upfbench.out" >&2; echo "nan 0 0 0 nan"; return; }
  jq -r '.steps[0].directions[0]
    | "\(.tx.kpps / 1000) \(.tx.bytes_l2 / .tx.packets) \(.tx_slip.count // 0) \(.tx_slip.slipped_us // 0) \(.tx_slip.max_late_us // 0)"' \
    "$work"/reports/*/report.json
}

run_testpmd() { # frame-size burst
  # shellcheck disable=SC2086
  timeout -s INT $((WINDOW + 4)) "${prio[@]}" "$TESTPMD" -l 0,1 $tp_mem --no-pci --no-telemetry \
    --log-level lib.eal:warning --file-prefix "upfb-tp-$$" --vdev net_null0,no-rx=1 -- \
    --forward-mode=txonly --txpkts="$1" --burst="$2" --nb-cores=1 --rxq=1 --txq=1 \
    --rxd=1024 --txd=1024 --total-num-mbufs=8192 --mbcache=256 --stats-period=1 \
    >"$work/testpmd.out" 2>&1 || true
  awk '/Tx-pps:/ { n++; if (n > 2) { sum += $2; k++ } }
    END { if (k) printf "%.2f\n", sum / k / 1e6; else print "nan" }' "$work/testpmd.out"
}

# shellcheck source=benches/stats.sh
source benches/stats.sh

linkage=shared
ldd "$BIN" | grep -q librte_eal || linkage="static (make build)"
echo "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), memory $MODE, priority $PRIORITY (pacing $PACING_PRIORITY), $BIN: DPDK $linkage"
read -r _ frame _ < <(run_upfbench 1 1)
if [[ " $PARTS " == *" tx "* ]]; then
echo "TX: uplink G-PDU of $frame B (payload $PAYLOAD B), $UES UEs in turn, one lcore, $ROUNDS rounds of $WINDOW s"
for burst in $BURSTS; do
  up="" tp=""
  for ((r = 0; r < ROUNDS; r++)); do
    read -r mpps _ < <(run_upfbench 200 "$WINDOW" "$burst")
    up+=" $mpps"
    tp+=" $(run_testpmd "$frame" "$burst")"
  done
  # Each round's two runs follow each other: their ratio is the least disturbed by the machine's
  # drifts; the median of those ratios is the figure.
  ratios=$(paste <(tr ' ' '\n' <<<"${up# }") <(tr ' ' '\n' <<<"${tp# }") | awk '{ printf " %.2f", $1 / $2 }')
  echo "  bursts of $burst: rounds upfbench$up | testpmd$tp | ratio$ratios"
  awk -v b="$burst" -v um="$(median <<<"$up")" -v ub="$(best <<<"$up")" -v tm="$(median <<<"$tp")" -v tb="$(best <<<"$tp")" -v r="$(median <<<"$ratios")" \
    'BEGIN { printf "  bursts of %d, Mpps median/best: upfbench run %.2f / %.2f, testpmd txonly %.2f / %.2f; median ratio of the rounds %.2f (target >= 1.4)\n", b, um, ub, tm, tb, r }'
done
fi
if [[ " $PARTS " == *" pacing "* ]]; then
priority "$PACING_PRIORITY"
echo "Pacing: requested vs achieved (report's Tx rate over the sending span), $WINDOW s each, max_burst $PACING_MAX_BURST, priority $PACING_PRIORITY, target +-$TARGET_PCT%;"
echo "  slips: times the worker fell behind by more than max_burst (it then sends up to the profile's"
echo "  catch_up, 10%, faster until back on schedule); late: how late it still was at the end; max late: the most"
printf "  %10s %14s %9s %6s %10s %12s  %s\n" requested achieved error slips "late us" "max late us" verdict
failed=0
for rate in $RATES; do
  read -r mpps _ slips late max_late < <(run_upfbench "$rate" "$WINDOW" "$PACING_MAX_BURST")
  verdict=$(awk -v r="$rate" -v a="$mpps" -v t="$TARGET_PCT" 'BEGIN { e = (a - r) / r * 100; print ((e <= t && e >= -t) ? "PASS" : "FAIL") }')
  [[ $verdict == PASS ]] || failed=$((failed + 1))
  awk -v r="$rate" -v a="$mpps" -v n="$slips" -v s="$late" -v m="$max_late" -v v="$verdict" \
    'BEGIN { printf "  %7.3f Mpps %9.4f Mpps %+8.3f%% %6d %10.1f %12.1f  %s\n", r, a, (a - r) / r * 100, n, s, m, v }'
done
echo "  pacing: $failed of $(wc -w <<<"$RATES") rates outside +-$TARGET_PCT%"
fi
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
