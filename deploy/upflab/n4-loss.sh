#!/usr/bin/env bash
# Loses a share of the PFCP datagrams on the lab's n4, both ways, in namespace dut (the UPF's
# side): nftables' `numgen random mod 100 < PERCENT drop` on UDP port 8805, in and out, since this
# kernel has no netem (CONFIG_NET_SCH_NETEM unset). Each datagram is lost on its own.
#
#   deploy/upflab/n4-loss.sh on 30     # 30 % of n4's PFCP datagrams lost each way
#   deploy/upflab/n4-loss.sh show      # the rules and their counters (packets dropped)
#   deploy/upflab/n4-loss.sh off
# Env: DUT_NS (dut). Needs nftables (deploy/setup.sh --lab).
set -euo pipefail

DUT=${DUT_NS:-dut}
TABLE=upfbench_n4_loss
nft_dut() { ip netns exec "$DUT" nft "$@"; }

case ${1:-} in
on)
    percent=${2:?usage: $0 on PERCENT}
    nft_dut delete table inet "$TABLE" 2>/dev/null || true
    nft_dut -f - <<NFT
table inet $TABLE {
    chain in {
        type filter hook input priority -10; policy accept;
        iifname "n4" udp dport 8805 numgen random mod 100 < $percent counter drop
    }
    chain out {
        type filter hook output priority -10; policy accept;
        oifname "n4" udp sport 8805 numgen random mod 100 < $percent counter drop
    }
}
NFT
    echo "n4: $percent % of PFCP datagrams lost each way in $DUT"
    ;;
show) nft_dut list table inet "$TABLE" ;;
off) nft_dut delete table inet "$TABLE" 2>/dev/null || true ;;
*)
    echo "usage: $0 on PERCENT | show | off" >&2
    exit 2
    ;;
esac
