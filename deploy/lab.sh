#!/usr/bin/env bash
# The kernel lab (docs/measurement.md): namespaces tg (tester: upfbench run/sweep) and dut (the UPF:
# upfbench reflect, or a kernel UPF) joined by three veth pairs named n3, n4, n6 on both sides.
# Nothing leaves the two namespaces.
#
#   tg                                          dut
#   n3  no kernel address (DPDK: .13.131)  <-->  n3  no kernel address (DPDK: .13.151)   GTP-U
#   n4  192.168.14.111/24                  <-->  n4  192.168.14.151/24                   PFCP
#   n6  no kernel address (DPDK: .16.152)  <-->  n6  no kernel address (DPDK: .16.151)   data network
#
# upfbench runs on net_af_packet vdevs over n3 and n6 (deploy/systems/lab.yaml and
# lab-reflector.yaml) and answers ARP for its addresses itself. The kernel of that namespace must
# not hold those addresses: it answers ARP for any of its addresses on any interface, answers
# datagrams to closed ports with ICMP, and everything it sends on n3/n6 reaches the DPDK ports
# too. So n3 and n6 have no IPv4 address and no IPv6 at all (no link-local address, router
# solicitation or MLD report on the measured links); n4 carries PFCP through kernel sockets.
#
# --kernel-dut gives dut's n3 and n6 the UPF's addresses (192.168.13.151/24, 192.168.16.151/24)
# and turns IPv4 forwarding on, for a kernel UPF in dut (Open5GS, eUPF) against upfbench in tg.
#
# Usage (root): deploy/lab.sh up [--kernel-dut] | down | status
# The namespace names are TG_NS and DUT_NS (default tg and dut). `up` refuses to reuse existing
# namespaces; `down` deletes the two named ones and nothing else.
set -euo pipefail

TG=${TG_NS:-tg}
DUT=${DUT_NS:-dut}
# interface:tester address:UPF address
LINKS=(n3:192.168.13.131:192.168.13.151 n4:192.168.14.111:192.168.14.151 n6:192.168.16.152:192.168.16.151)

exists() {
    ip netns list | awk '{print $1}' | grep -qxF "$1"
}

up() {
    local kernel_dut=0
    case ${1:-} in
    "") ;;
    --kernel-dut) kernel_dut=1 ;;
    *) usage ;;
    esac
    for ns in "$TG" "$DUT"; do
        if exists "$ns"; then
            echo "lab: namespace $ns exists already: $0 down first (or set TG_NS/DUT_NS)" >&2
            exit 1
        fi
    done
    trap 'echo "lab: set-up failed; removing $TG and $DUT" >&2; down quiet' ERR
    ip netns add "$TG"
    ip netns add "$DUT"
    local ifc tg_addr dut_addr ns
    for spec in "${LINKS[@]}"; do
        IFS=: read -r ifc tg_addr dut_addr <<<"$spec"
        # Made in place in both namespaces: no temporary name in the root namespace that a
        # second lab being built at the same time could collide with.
        ip link add "$ifc" netns "$TG" type veth peer name "$ifc" netns "$DUT"
        for ns in "$TG" "$DUT"; do
            ip netns exec "$ns" sysctl -qw "net.ipv6.conf.$ifc.disable_ipv6=1"
            # Checksums computed by the kernel, so that captures show what goes on the wire.
            ip netns exec "$ns" ethtool -K "$ifc" tx off rx off >/dev/null 2>&1 || true
        done
        if [[ $ifc == n4 ]]; then
            ip -n "$TG" addr add "$tg_addr/24" dev "$ifc"
            ip -n "$DUT" addr add "$dut_addr/24" dev "$ifc"
        elif ((kernel_dut)); then
            ip -n "$DUT" addr add "$dut_addr/24" dev "$ifc"
        fi
        for ns in "$TG" "$DUT"; do
            ip -n "$ns" link set "$ifc" up
        done
    done
    for ns in "$TG" "$DUT"; do
        ip -n "$ns" link set lo up
        ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=0
    done
    if ((kernel_dut)); then
        ip netns exec "$DUT" sysctl -qw net.ipv4.ip_forward=1
    fi
    trap - ERR
    # The carriers come up a moment after the links (the kernel's link watch).
    for _ in $(seq 50); do
        ip -n "$TG" -br link show type veth | grep -qw DOWN ||
            ip -n "$DUT" -br link show type veth | grep -qw DOWN || break
        sleep 0.1
    done
    status
}

down() {
    for ns in "$TG" "$DUT"; do
        if exists "$ns"; then
            ip netns del "$ns"
        fi
    done
    [[ ${1:-} == quiet ]] || echo "lab: $TG and $DUT removed"
}

status() {
    local ns missing=0
    for ns in "$TG" "$DUT"; do
        if exists "$ns"; then
            echo "== $ns"
            ip -n "$ns" -br link show type veth
            ip -n "$ns" -br -4 addr show
        else
            echo "== $ns: absent"
            missing=1
        fi
    done
    return "$missing"
}

usage() {
    echo "usage: $0 up [--kernel-dut] | down | status" >&2
    exit 2
}

case ${1:-} in
up) up "${@:2}" ;;
down) down ;;
status) status ;;
*) usage ;;
esac
