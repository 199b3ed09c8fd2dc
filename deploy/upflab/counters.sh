#!/usr/bin/env bash
# Reads every counter of the kernel lab that upfbench's report can be compared with, into
# DIR/NAME/: the veths (and ogstun) of both namespaces, dut's IP/UDP statistics and UDP socket
# drops, and what the UPF in dut exposes: eUPF's REST API (XDP actions, packets by kind) and its
# eBPF statistics maps (per-interface N3/N6 counters, routing) through bpftool; UPG-VPP's
# `show interface` and `show errors` through its CLI socket; Open5GS 2.7.7
# compiles its data-plane metrics out (src/upf/gtp-path.c, "#if 0"), so its counters are its TUN
# device's (ogstun) and its GTP-U socket's drops.
#
# As upfbench's step hook (upfbench sweep ... --step-hook "deploy/upflab/counters.sh DIR") NAME
# is step<N>-<start|end> from UPFBENCH_STEP and UPFBENCH_STEP_EDGE. Each read takes tens of ms;
# nothing of the step is on the wire meanwhile.
# Usage: counters.sh DIR [NAME]    Env: TG_NS (tg), DUT_NS (dut), EUPF_API (127.0.0.1:8080),
#        VPP_CLI_SOCK and VPPCTL (UPG-VPP's CLI socket and vppctl), UPF_PIDFILE
set -euo pipefail

dir=$1
name=${2:-step${UPFBENCH_STEP:?no NAME and no UPFBENCH_STEP}-${UPFBENCH_STEP_EDGE:?}}
TG=${TG_NS:-tg}
DUT=${DUT_NS:-dut}
API=${EUPF_API:-127.0.0.1:8080}
out=$dir/$name
mkdir -p "$out"

date +%s.%N >"$out/time"
ip -n "$TG" -s -j link show >"$out/tg-links.json"
ip -n "$DUT" -s -j link show >"$out/dut-links.json"
ip netns exec "$DUT" cat /proc/net/snmp >"$out/dut-snmp.txt"
# Drops of each UDP socket of dut (skmem d<N>): the UPF's GTP-U and PFCP sockets.
ip netns exec "$DUT" ss -uamnH >"$out/dut-udp-sockets.txt" 2>/dev/null || true
# What dut's kernel itself sends into Open5GS's TUN device (IPv6 router solicitations: the
# device has IPv6 on): it reaches the UPF as if it were downlink traffic.
if ip netns exec "$DUT" test -e /proc/net/dev_snmp6/ogstun; then
    ip netns exec "$DUT" cat /proc/net/dev_snmp6/ogstun >"$out/dut-ogstun-snmp6.txt"
fi
# The kernel's neighbour-table statistics are machine-wide (only the first namespace has them):
# unresolved_discards counts packets dropped while waiting for ARP (3 are kept per neighbour).
cat /proc/1/net/stat/arp_cache >"$out/arp-cache-stat.txt"
# The same for IPv6's Neighbor Discovery: IPv6 packets a forwarding dut drops while it resolves
# the next hop (the IPv6 data network host on n6: docs/results/2026-11-29-ipv6-lab.md).
cat /proc/1/net/stat/ndisc_cache >"$out/ndisc-cache-stat.txt"
cat /proc/loadavg >"$out/loadavg"
grep '^cpu' /proc/stat >"$out/cpu-stat.txt"
# eUPF: its API answers only when it runs; the maps exist only then too.
if ip netns exec "$DUT" curl -sf --max-time 1 "http://$API/api/v1/xdp_stats" \
    >"$out/eupf-xdp-stats.json" 2>/dev/null; then
    ip netns exec "$DUT" curl -sf --max-time 1 "http://$API/api/v1/packet_stats" \
        >"$out/eupf-packet-stats.json"
    if command -v bpftool >/dev/null; then
        for map in upf_ext_stat upf_route_stat; do
            bpftool -j map dump name "$map" 2>/dev/null |
                jq -c '[.[] | .formatted.values[] | {cpu, value}]' >"$out/eupf-$map.json" || true
        done
    fi
else
    rm -f "$out/eupf-xdp-stats.json"
fi
# UPG-VPP: its interface counters (rx/tx packets, drops, rx-miss, tx-error per interface) and
# its error counters by node and reason, through its CLI socket (VPP_CLI_SOCK, set by
# deploy/upflab-compare.sh --upf upg-vpp; VPPCTL is the vppctl binary).
if [ -n "${VPP_CLI_SOCK:-}" ] && [ -S "$VPP_CLI_SOCK" ]; then
    "${VPPCTL:-vppctl}" -s "$VPP_CLI_SOCK" show interface >"$out/vpp-interfaces.txt" 2>/dev/null || true
    "${VPPCTL:-vppctl}" -s "$VPP_CLI_SOCK" show errors >"$out/vpp-errors.txt" 2>/dev/null || true
fi
# The UPF's CPU time (utime + stime, in clock ticks) when a PID file names it.
if [ -n "${UPF_PIDFILE:-}" ] && [ -s "$UPF_PIDFILE" ]; then
    pid=$(cat "$UPF_PIDFILE")
    # Fields 14 and 15 of /proc/PID/stat, after the command name in parentheses.
    sed 's/^.*) //' "/proc/$pid/stat" 2>/dev/null | awk '{print $12 + $13}' >"$out/upf-cpu-ticks" ||
        true
fi
