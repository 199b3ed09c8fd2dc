#!/usr/bin/env bash
# What a UPF puts on the wire, from captures on the tester's side of the lab (upflab-compare.sh
# --capture): for the first few uplink packets it forwarded (plain, on n6) and downlink G-PDUs
# (on n3), the header fields a UPF chooses and Wireshark's verdict, so that UPFs (and upfbench
# reflect) can be set side by side. Also any frame that is neither (ARP, ICMP, GTP-U signalling).
# Usage: wire.sh N3.pcapng N6.pcapng [PACKETS]   (default 3 of each kind)
set -euo pipefail
n3=$1
n6=$2
k=${3:-3}
ts() { tshark -r "$1" "${@:2}" 2>/dev/null; }
# The first K matches with a header line (tshark stopped by head is not a failure).
fields() {
    { ts "$1" -Y "$2" -T fields -E header=y -E separator=' ' -E occurrence=f "${@:3}" || true; } |
        head -$((k + 1)) | column -t
}

echo "== uplink forwarded (tg n6 rx: from the UPF's MAC, to UE-sourced packets)"
fields "$n6" "ip.src==10.45.0.0/16 && udp" -e frame.len -e eth.src -e ip.ttl -e ip.id \
    -e ip.flags.df -e ip.dsfield -e udp.checksum
echo "== downlink G-PDUs (tg n3 rx)"
fields "$n3" "gtp.message==255 && ip.src==192.168.13.151" -e frame.len -e ip.ttl -e ip.id \
    -e ip.flags.df -e ip.dsfield -e udp.srcport -e udp.checksum -e gtp.flags -e gtp.teid \
    -e gtp.ext_hdr -e gtp.ext_hdr.pdu_ses_con.pdu_type -e gtp.ext_hdr.pdu_ses_con.qos_flow_id \
    -e gtp.ext_hdr.pdu_ses_cont.rqi
echo "== the inner packet of those G-PDUs"
# The second occurrence of each field: the inner header.
{ ts "$n3" -Y "gtp.message==255 && ip.src==192.168.13.151" -T fields -E occurrence=l \
    -E header=y -E separator=' ' -e ip.ttl -e ip.id -e ip.flags.df -e udp.checksum || true; } |
    head -$((k + 1)) | column -t
echo "== other frames (ARP, ICMP, GTP-U signalling), both ways, by kind"
for f in "$n3" "$n6"; do
    ts "$f" -Y "arp || icmp || (gtp && gtp.message!=255)" -T fields -e eth.src -e _ws.col.Protocol \
        -e _ws.col.Info | sed 's/ Seq=[0-9]*//' | sort | uniq -c | sed "s|^|   $(basename "$f"): |"
done
echo "== malformed or expert warnings: n3 $(ts "$n3" -Y '_ws.malformed || _ws.expert.severity>=warning' | wc -l), n6 $(ts "$n6" -Y '_ws.malformed || _ws.expert.severity>=warning' | wc -l)"
