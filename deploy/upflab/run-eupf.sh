#!/usr/bin/env bash
# eUPF (built by deploy/upflab/build-upfs.sh eupf) in namespace dut of
# `deploy/lab.sh up --kernel-dut`, on the lab's address plan: PFCP 192.168.14.151:8805 (Node ID
# 192.168.14.151), N3 address 192.168.13.151, XDP in generic mode on n3 and n6 (veths). Its eBPF
# datapath routes with bpf_fib_lookup in dut's tables: uplink to 192.168.16.152 leaves on n6,
# downlink G-PDUs to 192.168.13.131 on n3. The configuration follows docs/Configuration.md of
# v0.7.1. `ip netns exec` gives the process a mount namespace with a fresh /sys: a bpffs is
# mounted there for its pinned maps (they go away with the process).
# Usage: run-eupf.sh start|stop|status|log
# Env: LAB_DIR (/tmp/upflab), RUN_DIR ($LAB_DIR/run/eupf), EUPF_BIN ($LAB_DIR/eupf/bin/eupf, or
#      eupf-maps<N>), EUPF_MAP_SIZE (the map sizes given to eUPF; default the size its eBPF maps
#      were compiled with: 1024, or N of eupf-maps<N>), LOG_LEVEL (info), HB_INTERVAL (5 s),
#      DUT_NS (dut), UPF_PIDFILE
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
LAB_DIR=${LAB_DIR:-/tmp/upflab}
RUN_DIR=${RUN_DIR:-$LAB_DIR/run/eupf}
EUPF=${EUPF_BIN:-$LAB_DIR/eupf/bin/eupf}
LOG_LEVEL=${LOG_LEVEL:-info}
HB_INTERVAL=${HB_INTERVAL:-5}
PIDFILE=${UPF_PIDFILE:-$RUN_DIR/eupf.pid}
NAME=eupf
# shellcheck source=lib.sh
. "$here/lib.sh"

# build-upfs.sh writes the compiled map size beside the binary.
if [ -s "$EUPF.mapsize" ]; then compiled=$(cat "$EUPF.mapsize"); else compiled=1024; fi
MAP_SIZE=${EUPF_MAP_SIZE:-$compiled}

start() {
    need_binary "$EUPF" eupf
    need_namespace --kernel-dut
    if running; then
        echo "already running: PID $(cat "$PIDFILE")"
        return 0
    fi
    mkdir -p "$RUN_DIR"
    cat >"$RUN_DIR/eupf.yaml" <<YAML
interface_name: [n3, n6]
xdp_attach_mode: generic
api_address: 127.0.0.1:8080
pfcp_address: 192.168.14.151:8805
pfcp_node_id: 192.168.14.151
metrics_address: 127.0.0.1:9090
n3_address: 192.168.13.151
n9_address: 192.168.13.151
logging_level: $LOG_LEVEL
heartbeat_interval: $HB_INTERVAL
heartbeat_retries: 3
heartbeat_timeout: 5
qer_map_size: $MAP_SIZE
far_map_size: $MAP_SIZE
pdr_map_size: $MAP_SIZE
urr_map_size: $MAP_SIZE
resize_ebpf_maps: false
feature_ueip: false
feature_ftup: false
YAML
    # IPv6 UEs (profiles/ipv6.yaml): dut routes the data network's IPv6 host (the tester's N6
    # address in the NAT64 prefix, 64:ff9b::c0a8:1098) on n6, which bpf_fib_lookup reads. No
    # duplicate address detection (see run-open5gs.sh): a tentative link-local address holds
    # the neighbour's resolution, and the first second's IPv6 uplink is dropped.
    ip netns exec "$DUT" sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.conf.n6.accept_dad=0 \
        net.ipv6.conf.n3.accept_dad=0 net.ipv6.conf.n6.disable_ipv6=0 \
        net.ipv6.conf.n3.disable_ipv6=0
    ip -n "$DUT" -6 route replace 64:ff9b::/96 dev n6
    # Its datapath's bpf_fib_lookup needs the neighbours resolved: fill dut's ARP cache.
    ip netns exec "$DUT" ping -c1 -W1 192.168.13.131 >/dev/null 2>&1 || true
    ip netns exec "$DUT" ping -c1 -W1 192.168.16.152 >/dev/null 2>&1 || true
    # `ip netns exec` then `exec`: the PID is eUPF's.
    GIN_MODE=release ip netns exec "$DUT" sh -c 'mount -t bpf bpf /sys/fs/bpf && exec "$0" --config "$1"' \
        "$EUPF" "$RUN_DIR/eupf.yaml" >"$RUN_DIR/eupf.log" 2>&1 &
    echo $! >"$PIDFILE"
    wait_until "$RUN_DIR/eupf.log" pfcp_listening 100
    echo "eupf maps: $MAP_SIZE entries"
}

case ${1:-} in
start) start ;;
stop) stop_process TERM ;;
status) if running; then echo "running: PID $(cat "$PIDFILE")"; else echo "not running"; fi ;;
log) cat "$RUN_DIR/eupf.log" ;;
*)
    echo "usage: $0 start|stop|status|log" >&2
    exit 2
    ;;
esac
