#!/usr/bin/env bash
# Open5GS UPF (open5gs-upfd, built by deploy/upflab/build-upfs.sh open5gs) in namespace dut of
# `deploy/lab.sh up --kernel-dut`, on the lab's address plan: PFCP 192.168.14.151:8805, GTP-U
# 192.168.13.151:2152, UE pool 10.45.0.0/16 on its TUN device ogstun (gateway 10.45.0.1). The
# uplink it decapsulates leaves through dut's kernel routing (192.168.16.0/24 on n6); downlink to
# the UE pool enters through ogstun. The configuration follows configs/open5gs/upf.yaml.in of
# v2.7.7: PFCP and GTP-U servers, the session subnet, global.max.ue (pools are sized from it).
# Usage: run-open5gs.sh start|stop|status|log
# Env: LAB_DIR (/tmp/upflab), RUN_DIR ($LAB_DIR/run/open5gs), OPEN5GS_UPFD (the binary),
#      MAX_UE (16384; 1024 upstream), LOG_LEVEL (info), DUT_NS (dut), UPF_PIDFILE,
#      N3_IPV6 (unset; 2001:db8:13::151/64 with deploy/systems/lab-v6.yaml: GTP-U over IPv6 on
#      n3 too, the address on dut's n3 and a second GTP-U server)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
LAB_DIR=${LAB_DIR:-/tmp/upflab}
RUN_DIR=${RUN_DIR:-$LAB_DIR/run/open5gs}
UPFD=${OPEN5GS_UPFD:-$LAB_DIR/build/open5gs/src/upf/open5gs-upfd}
MAX_UE=${MAX_UE:-16384}
LOG_LEVEL=${LOG_LEVEL:-info}
PIDFILE=${UPF_PIDFILE:-$RUN_DIR/upfd.pid}
NAME=open5gs-upfd
# shellcheck source=lib.sh
. "$here/lib.sh"

start() {
    need_binary "$UPFD" open5gs
    need_namespace --kernel-dut
    if running; then
        echo "already running: PID $(cat "$PIDFILE")"
        return 0
    fi
    mkdir -p "$RUN_DIR"
    cat >"$RUN_DIR/upf.yaml" <<YAML
logger:
  file:
    path: $RUN_DIR/upf.log
  level: $LOG_LEVEL
global:
  max:
    ue: $MAX_UE
upf:
  pfcp:
    server:
      - address: 192.168.14.151
  gtpu:
    server:
      - address: 192.168.13.151
${N3_IPV6:+      - address: ${N3_IPV6%/*}
}  session:
    - subnet: 10.45.0.0/16
      gateway: 10.45.0.1
      dev: ogstun
    - subnet: 2001:db8:45::/48
      gateway: 2001:db8:45::1
      dev: ogstun
YAML
    ip -n "$DUT" link del ogstun 2>/dev/null || true
    ip -n "$DUT" tuntap add name ogstun mode tun
    ip -n "$DUT" addr add 10.45.0.1/16 dev ogstun
    # IPv6 UEs (profiles/ipv6.yaml, dual-stack.yaml; docs/upfs.md): their pool on ogstun too,
    # and the data network's IPv6 host, the tester's N6 address in the NAT64 prefix
    # (64:ff9b::c0a8:1098 for 192.168.16.152, docs/traffic-shapes.md), on n6's link. dut
    # forwards IPv6 between them (lab.sh leaves IPv6 off on the veths). No duplicate address
    # detection on n6: while its link-local address is tentative (1 to 2 s), dut cannot resolve
    # the data network host, and drops the IPv6 uplink meanwhile (ndisc_cache's
    # unresolved_discards: 49,643 of a warm-up's 49,956 once, docs/results/2026-11-29-ipv6-lab.md).
    ip netns exec "$DUT" sysctl -qw net.ipv6.conf.all.forwarding=1 \
        net.ipv6.conf.n6.accept_dad=0 net.ipv6.conf.ogstun.disable_ipv6=0 \
        net.ipv6.conf.n6.disable_ipv6=0
    ip -n "$DUT" addr add 2001:db8:45::1/48 dev ogstun
    ip -n "$DUT" link set ogstun up
    ip -n "$DUT" -6 route replace 64:ff9b::/96 dev n6
    if [ -n "${N3_IPV6:-}" ]; then
        # GTP-U over IPv6 (issue 29): the address on n3, with no duplicate address detection
        # (a tentative address would not be bound, nor answer Neighbor Discovery, for 1 to 2 s).
        ip netns exec "$DUT" sysctl -qw net.ipv6.conf.n3.accept_dad=0 \
            net.ipv6.conf.n3.disable_ipv6=0
        ip -n "$DUT" addr add "$N3_IPV6" dev n3 nodad
    fi
    : >"$RUN_DIR/upf.log"
    # `ip netns exec` execs the command: the PID is the UPF's.
    ip netns exec "$DUT" "$UPFD" -c "$RUN_DIR/upf.yaml" >"$RUN_DIR/stdout.log" 2>&1 &
    echo $! >"$PIDFILE"
    wait_until "$RUN_DIR/stdout.log" pfcp_listening 50
}

stop() {
    stop_process TERM
    ip -n "$DUT" link del ogstun 2>/dev/null || true
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) if running; then echo "running: PID $(cat "$PIDFILE")"; else echo "not running"; fi ;;
log) cat "$RUN_DIR/upf.log" ;;
*)
    echo "usage: $0 start|stop|status|log" >&2
    exit 2
    ;;
esac
