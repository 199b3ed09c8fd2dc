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
# --agents 2 gives tg two N3/N6 pairs, one per agent (two gNBs: deploy/systems/lab-agent-a.yaml
# and -b.yaml under deploy/systems/lab-cluster.yaml), in place of n3 and n6; n4 is as above:
#
#   tg                                          dut
#   n3a  no kernel address (DPDK: .13.131)  <-->  n3a  \  with --kernel-dut: ports of the bridge
#   n3b  no kernel address (DPDK: .13.132)  <-->  n3b  /  n3 (192.168.13.151/24)
#   n6a  no kernel address (DPDK: .16.152)  <-->  n6a  \  with --kernel-dut: ports of the bridge
#   n6b  no kernel address (DPDK: .16.153)  <-->  n6b  /  n6 (192.168.16.151/24)
#
# With --kernel-dut, dut's ends are ports of two bridges named n3 and n6, which hold the UPF's
# addresses: a kernel UPF (run-open5gs.sh, run-eupf.sh, unchanged) sees one N3 and one N6
# network with both gNBs on it, and each agent's uplink (to its own N6 address) and downlink
# (to its own gNB address) go by ARP and the bridge's forwarding to that agent's links only.
# Without it, dut's four ends are DPDK's: upfbench reflect deploy/systems/lab-agents-reflector.yaml
# serves them as two pairs with the UPF's addresses on both.
#
# Usage (root): deploy/lab.sh up [--agents 2] [--kernel-dut] | down | status
# The namespace names are TG_NS and DUT_NS (default tg and dut). `up` refuses to reuse existing
# namespaces; `down` deletes the two named ones and nothing else.
set -euo pipefail

TG=${TG_NS:-tg}
DUT=${DUT_NS:-dut}
# interface:tester address:UPF address
LINKS=(n3:192.168.13.131:192.168.13.151 n4:192.168.14.111:192.168.14.151 n6:192.168.16.152:192.168.16.151)
# --agents 2: agent a's pair (n3a, n6a) and agent b's (n3b, n6b), n4 shared.
AGENT_LINKS=(n3a:192.168.13.131:192.168.13.151 n3b:192.168.13.132:192.168.13.151
    n4:192.168.14.111:192.168.14.151
    n6a:192.168.16.152:192.168.16.151 n6b:192.168.16.153:192.168.16.151)

exists() {
    ip netns list | awk '{print $1}' | grep -qxF "$1"
}

up() {
    local kernel_dut=0 agents=1
    while [ $# -gt 0 ]; do
        case $1 in
        --kernel-dut) kernel_dut=1; shift ;;
        --agents)
            [[ ${2:-} =~ ^[12]$ ]] || usage
            agents=$2
            shift 2
            ;;
        *) usage ;;
        esac
    done
    local links=("${LINKS[@]}")
    if ((agents == 2)); then
        links=("${AGENT_LINKS[@]}")
    fi
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
    for spec in "${links[@]}"; do
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
        elif ((kernel_dut)) && ((agents == 1)); then
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
    if ((kernel_dut)) && ((agents == 2)); then
        bridges
    fi
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

# dut's bridges n3 and n6 of `up --agents 2 --kernel-dut`: each holds the UPF's address of its
# side and the two agents' links of that side as its ports. No STP, no forwarding delay, no
# multicast snooping and no IPv6 (as on the veths): nothing of the bridge's own on the links.
bridges() {
    local br ifc
    for br in n3 n6; do
        ip -n "$DUT" link add "$br" type bridge stp_state 0 forward_delay 0 mcast_snooping 0
        ip netns exec "$DUT" sysctl -qw "net.ipv6.conf.$br.disable_ipv6=1"
        for ifc in "${br}a" "${br}b"; do
            ip -n "$DUT" link set "$ifc" master "$br"
        done
        ip -n "$DUT" link set "$br" up
    done
    ip -n "$DUT" addr add 192.168.13.151/24 dev n3
    ip -n "$DUT" addr add 192.168.16.151/24 dev n6
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
            ip -n "$ns" -br link show type bridge
            ip -n "$ns" -br -4 addr show
        else
            echo "== $ns: absent"
            missing=1
        fi
    done
    return "$missing"
}

usage() {
    echo "usage: $0 up [--agents 2] [--kernel-dut] | down | status" >&2
    exit 2
}

case ${1:-} in
up) up "${@:2}" ;;
down) down ;;
status) status ;;
*) usage ;;
esac
