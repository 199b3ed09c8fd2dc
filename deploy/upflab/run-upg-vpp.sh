#!/usr/bin/env bash
# UPG-VPP (VPP 24.02 with travelping's UPF plugin, built by deploy/upflab/build-upfs.sh upg-vpp)
# in namespace dut of `deploy/lab.sh up` (no --kernel-dut: dut's kernel holds no address of the
# UPF). VPP runs in user space and takes the lab's links itself:
#   - n4 through af_packet (host-n4, 192.168.14.151/24, FIB 0): PFCP runs over VPP's own UDP
#     stack (session layer), so the kernel's address on dut's n4 is removed first;
#   - n3 and n6 through af_packet (host-n3 192.168.13.151/24, host-n6 192.168.16.151/24), or,
#     with UPG_VPP_LINKS=memif, as memif servers on $MEMIF_DIR/n3.sock and n6.sock (memif1/0 and
#     memif2/0) for upfbench's net_memif (deploy/systems/upg-vpp-memif.yaml); then the veths n3
#     and n6 stay idle.
# VPP runs one thread (no worker) on CPU VPP_MAIN_CORE, and that thread polls: with the session
# layer enabled (PFCP) and no worker, VPP polls its session queue on the main thread
# (session_node_enable_disable), so it takes a whole CPU even with every interface in interrupt
# mode; with a worker the worker polls instead. n3 and n6 are polled too (af_packet or memif).
# `poll-sleep-usec N` (VPP_POLL_SLEEP_USEC) would give CPU back but sleeps N µs after every loop,
# which adds up to N µs to each packet's latency.
# N3 and N6 are both in FIB 200, the network instance `internet` (`upf nwi name internet vrf
# 200`), which holds the GTP-U endpoint 192.168.13.151 too: upfbench names one network instance
# (sessions.network_instance, default internet, sent as DNS labels \x08internet) in both PDRs and
# FARs, and UPG-VPP looks up a PDR's F-TEID among the GTP-U endpoints of the PDR's network
# instance. The route to the data network (0.0.0.0/0 via 192.168.16.152) is in FIB 200 too.
# VPP's interfaces take the MAC addresses of dut's veths, so that a restart changes no MAC.
# VLANs (af_packet links only): UPG_VPP_N3_VLAN and UPG_VPP_N6_VLAN put N3 and N6 on 802.1Q
# sub-interfaces of the host interfaces (`create sub-interfaces host-n3 13`: host-n3.13, exact
# match, the addresses and the table on it, the parent up without an address); UPG_VPP_N3_QINQ
# puts N3's VLAN inside that 802.1ad outer tag (host-n3.<outer*10000+vlan>, dot1ad outer
# inner-dot1q vlan; UPG_VPP_N3_OUTER=dot1q for an 802.1Q outer tag: VPP's af_packet input puts
# the tag the kernel stripped back with TPID 0x8100 whatever it was, so an 802.1ad S-tag reaches
# its ethernet-input as 802.1Q); UPG_VPP_ONE_PORT=1 puts N6's sub-interface on host-n3 too (upfbench's
# one-port mode: n6: {port: n3}), and n6 stays idle.

# Usage: run-upg-vpp.sh start|stop|status|log|cli COMMAND...
#   cli: a VPP CLI command (e.g. `run-upg-vpp.sh cli show upf session`).
# Env: LAB_DIR (/tmp/upflab), RUN_DIR ($LAB_DIR/run/upg-vpp), UPG_VPP_LINKS (af_packet | memif),
#      MEMIF_DIR (/tmp/upfbench/upg-vpp), VPP_MAIN_CORE (0), VPP_WORKERS (CPU list of VPP
#      workers; none by default: on 2 vCPUs upfbench busy-polls CPU 1), VPP_RX_MODE (of n3 and n6:
#      polling), VPP_AF_PACKET (v2, or v3: VPP's default), VPP_POLL_SLEEP_USEC (none), VPP_HEAP (1G),
#      UPF_LOG_LEVEL (notice), DUT_NS (dut), UPF_PIDFILE, UPG_VPP_N3_IPV6 (2001:db8:13::151/64
#      with deploy/systems/lab-v6.yaml: GTP-U over IPv6 on N3), UPG_VPP_N3_VLAN, UPG_VPP_N6_VLAN,
#      UPG_VPP_N3_QINQ, UPG_VPP_N3_OUTER, UPG_VPP_ONE_PORT (none: untagged, two ports)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
LAB_DIR=${LAB_DIR:-/tmp/upflab}
RUN_DIR=${RUN_DIR:-$LAB_DIR/run/upg-vpp}
PREFIX=$LAB_DIR/upg-vpp
VPP=$PREFIX/bin/vpp
PLUGINS=$PREFIX/lib/x86_64-linux-gnu/vpp_plugins
LINKS=${UPG_VPP_LINKS:-af_packet}
MEMIF_DIR=${MEMIF_DIR:-/tmp/upfbench/upg-vpp}
RX_MODE=${VPP_RX_MODE:-polling}
# TPACKET_V2: each frame is VPP's as soon as the kernel put it in the ring. VPP's default, V3,
# hands frames over in blocks that are retired when full or after 1 ms (tp_retire_blk_tov): at
# the lab's rates every block times out and each packet waits about 0.5 ms per af_packet hop
# (p50 562 µs each way on 2026-11-26, against about 10 µs with v2).
AF_PACKET=${VPP_AF_PACKET:-v2}
[ "$AF_PACKET" = v3 ] && AF_PACKET=""
PIDFILE=${UPF_PIDFILE:-$RUN_DIR/vpp.pid}
SOCK=$RUN_DIR/cli.sock
NAME=upg-vpp
# shellcheck source=lib.sh
. "$here/lib.sh"

vppctl() { "$PREFIX/bin/vppctl" -s "$SOCK" "$@"; }
mac() { ip -n "$DUT" -j link show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["address"])'; }

# The PFCP endpoint is up once VPP lists it.
pfcp_ready() {
    [ -S "$SOCK" ] && vppctl show upf pfcp endpoint 2>/dev/null | grep -q 192.168.14.151
}

config() {
    local workers="" poll_sleep="" rx_mode=$RX_MODE
    [ -z "${VPP_WORKERS:-}" ] || workers="corelist-workers $VPP_WORKERS"
    [ -z "${VPP_POLL_SLEEP_USEC:-}" ] || poll_sleep="poll-sleep-usec $VPP_POLL_SLEEP_USEC"
    cat >"$RUN_DIR/startup.conf" <<CONF
unix {
  nodaemon
  cli-listen $SOCK
  log $RUN_DIR/vpp.log
  startup-config $RUN_DIR/upf.cli
  $poll_sleep
}
api-segment { prefix upflab-vpp }
socksvr { socket-name $RUN_DIR/api.sock }
statseg { socket-name $RUN_DIR/stats.sock size 32M }
cpu { main-core ${VPP_MAIN_CORE:-0} $workers }
heapsize ${VPP_HEAP:-1G}
buffers { buffers-per-numa 32768 default data-size 2048 }
plugins {
  path $PLUGINS
  plugin default { enable }
}
session { enable }
logging { default-log-level notice class upf { level ${UPF_LOG_LEVEL:-notice} } }
CONF
    {
        echo "create host-interface $AF_PACKET name n4 hw-addr $(mac n4)"
        if [ "$LINKS" = memif ]; then
            echo "create memif socket id 1 filename $MEMIF_DIR/n3.sock"
            echo "create memif socket id 2 filename $MEMIF_DIR/n6.sock"
            echo "create interface memif id 0 socket-id 1 master"
            echo "create interface memif id 0 socket-id 2 master"
            n3=memif1/0 n6=memif2/0
        else
            echo "create host-interface $AF_PACKET name n3 hw-addr $(mac n3)"
            echo "create host-interface $AF_PACKET name n6 hw-addr $(mac n6)"
            n3=host-n3 n6=host-n6
            vlan_links
        fi
        cat <<CLI
ip table add 200
ip6 table add 200
set interface ip table $n3 200
set interface ip table $n6 200
set interface ip6 table $n3 200
set interface ip6 table $n6 200
set interface ip address host-n4 192.168.14.151/24
set interface ip address $n3 192.168.13.151/24
set interface ip address $n6 192.168.16.151/24
set interface state host-n4 up
set interface state $n3 up
set interface state $n6 up
set interface rx-mode host-n4 interrupt
set interface rx-mode ${n3%.*} $rx_mode
set interface rx-mode ${n6%.*} $rx_mode
upf specification release 16
upf node-id ip4 192.168.14.151
upf nwi name internet vrf 200
upf pfcp endpoint ip 192.168.14.151 vrf 0
upf gtpu endpoint ip 192.168.13.151${UPG_VPP_N3_IPV6:+ ip6 ${UPG_VPP_N3_IPV6%/*}} nwi internet teid 0x80000000/2
ip route add 0.0.0.0/0 table 200 via 192.168.16.152 $n6
enable ip6 interface $n6
ip route add 64:ff9b::/96 table 200 via $n6
CLI
        if [ -n "${UPG_VPP_N3_IPV6:-}" ]; then
            # GTP-U over IPv6 on N3 (deploy/systems/lab-v6.yaml): the address on N3 and in the
            # GTP-U endpoint beside the IPv4 one.
            echo "enable ip6 interface $n3"
            echo "set interface ip address $n3 $UPG_VPP_N3_IPV6"
        fi
    } >"$RUN_DIR/upf.cli"
}

# N3's and N6's sub-interfaces (UPG_VPP_N3_VLAN, ...), made on the host interfaces, which are
# brought up bare; sets n3 and n6 to the sub-interfaces' names.
vlan_links() {
    local n6_parent=host-n6
    [ "${UPG_VPP_ONE_PORT:-}" != 1 ] || n6_parent=host-n3
    if [ -n "${UPG_VPP_N3_VLAN:-}" ] || [ -n "${UPG_VPP_N6_VLAN:-}" ]; then
        echo "set interface state host-n3 up"
        echo "set interface state host-n6 up"
    fi
    if [ -n "${UPG_VPP_N3_QINQ:-}" ]; then
        local id=$((UPG_VPP_N3_QINQ * 10000 + UPG_VPP_N3_VLAN))
        echo "create sub-interfaces host-n3 $id ${UPG_VPP_N3_OUTER:-dot1ad} $UPG_VPP_N3_QINQ inner-dot1q $UPG_VPP_N3_VLAN exact-match"
        n3=host-n3.$id
    elif [ -n "${UPG_VPP_N3_VLAN:-}" ]; then
        echo "create sub-interfaces host-n3 $UPG_VPP_N3_VLAN dot1q $UPG_VPP_N3_VLAN exact-match"
        n3=host-n3.$UPG_VPP_N3_VLAN
    fi
    if [ -n "${UPG_VPP_N6_VLAN:-}" ]; then
        echo "create sub-interfaces $n6_parent $UPG_VPP_N6_VLAN dot1q $UPG_VPP_N6_VLAN exact-match"
        n6=$n6_parent.$UPG_VPP_N6_VLAN
    fi
    # A sub-interface starts with an MTU of 0 (VPP 24.02): the lab's 1500.
    local sub
    for sub in "$n3" "$n6"; do
        [ "$sub" = "${sub%.*}" ] || echo "set interface mtu packet 1500 $sub"
    done
}

start() {
    need_binary "$VPP" upg-vpp
    [ -f "$PLUGINS/upf_plugin.so" ] || { echo "no $PLUGINS/upf_plugin.so: deploy/upflab/build-upfs.sh upg-vpp" >&2; exit 1; }
    need_namespace
    if running; then
        echo "already running: PID $(cat "$PIDFILE")"
        return 0
    fi
    mkdir -p "$RUN_DIR"
    [ "$LINKS" != memif ] || mkdir -p "$MEMIF_DIR"
    # VPP answers for 192.168.14.151 on n4 itself: the kernel must not (ARP, ICMP port
    # unreachable for PFCP).
    ip -n "$DUT" addr flush dev n4
    config
    rm -f "$SOCK"
    : >"$RUN_DIR/vpp.log"
    # `ip netns exec` execs VPP: the PID is VPP's.
    ip netns exec "$DUT" "$VPP" -c "$RUN_DIR/startup.conf" >"$RUN_DIR/vpp.stdout" 2>&1 &
    echo $! >"$PIDFILE"
    wait_until "$RUN_DIR/vpp.stdout" pfcp_ready 150
    # tg's kernel may remember an earlier MAC of 192.168.14.151.
    ip -n "${TG_NS:-tg}" neigh flush dev n4 2>/dev/null || true
    echo "upg-vpp: $LINKS links; $(vppctl show version)"
}

stop() {
    stop_process TERM
    # Give dut's n4 its address back, as deploy/lab.sh made it.
    if ip netns list | awk '{print $1}' | grep -qxF "$DUT"; then
        ip -n "$DUT" addr replace 192.168.14.151/24 dev n4 2>/dev/null || true
    fi
}

case ${1:-} in
start) start ;;
stop) stop ;;
status) if running; then echo "running: PID $(cat "$PIDFILE")"; else echo "not running"; fi ;;
log) cat "$RUN_DIR/vpp.stdout" "$RUN_DIR/vpp.log" 2>/dev/null ;;
cli)
    shift
    vppctl "$@"
    ;;
*)
    echo "usage: $0 start|stop|status|log|cli COMMAND..." >&2
    exit 2
    ;;
esac
