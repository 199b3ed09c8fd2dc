#!/usr/bin/python3
"""Makes testdata/net_ipv6_vlan.json: reference frames for IPv6, ICMPv6 with Neighbor Discovery,
and VLAN tags (802.1Q C-tag, 802.1ad S-tag outside one), built with Scapy 2.5 and decoded back
by Scapy into the fields the tests compare against; tshark 4.0 then dissects every frame and
must find the same VLAN ids, addresses, Neighbor Discovery fields, and good UDP and ICMPv6
checksums (run from crates/net: /usr/bin/python3 testdata/make_net_ipv6_vlan.py).

The addresses are the IPv6 twins of make_net.py's: the N3 link 2001:db8:13::/64 with the
tester at ::131 and the UPF at ::151, their MACs the same."""
import json
import subprocess
import tempfile

from scapy.all import (ARP, Dot1AD, Dot1Q, Ether, ICMP, ICMPv6EchoReply, ICMPv6EchoRequest,
                       ICMPv6ND_NA, ICMPv6ND_NS, ICMPv6NDOptDstLLAddr, ICMPv6NDOptMTU,
                       ICMPv6NDOptSrcLLAddr, ICMPv6PacketTooBig, IP, IPv6, Raw, UDP, wrpcap)
from scapy.utils6 import in6_getnsma, in6_getnsmac
from scapy.pton_ntop import inet_pton
import socket

MAC_TESTER, MAC_UPF = "02:00:00:00:13:31", "02:00:00:00:13:51"
TESTER, UPF = "2001:db8:13::131", "2001:db8:13::151"
TESTER4, UPF4 = "192.168.13.131", "192.168.13.151"


def nsma(addr):
    """The solicited-node multicast address of addr and its MAC (RFC 4291, RFC 2464)."""
    ip = socket.inet_ntop(socket.AF_INET6, in6_getnsma(inet_pton(socket.AF_INET6, addr)))
    return ip, in6_getnsmac(inet_pton(socket.AF_INET6, ip))


TESTER_NSMA, TESTER_NSMA_MAC = nsma(TESTER)


def eth(src, dst):
    return Ether(src=src, dst=dst)


FRAMES = [
    ("udp_ipv6", "IPv6/UDP datagram, traffic class 0xb8, flow label 0x12345, hop limit 64",
     eth(MAC_TESTER, MAC_UPF) / IPv6(src=TESTER, dst=UPF, tc=0xb8, fl=0x12345, hlim=64)
     / UDP(sport=10000, dport=20000) / Raw(b"0123456789")),
    ("udp_ipv6_odd_payload", "IPv6/UDP datagram with an odd payload length, port 2152 both ways",
     eth(MAC_UPF, MAC_TESTER) / IPv6(src=UPF, dst=TESTER, hlim=1)
     / UDP(sport=2152, dport=2152) / Raw(b"abc")),
    ("icmpv6_echo_request", "ping from the UPF to the tester: identifier 0x1234, sequence 7",
     eth(MAC_UPF, MAC_TESTER) / IPv6(src=UPF, dst=TESTER, hlim=64)
     / ICMPv6EchoRequest(id=0x1234, seq=7, data=b"upfbench ping data")),
    ("icmpv6_echo_reply", "the tester's answer to icmpv6_echo_request",
     eth(MAC_TESTER, MAC_UPF) / IPv6(src=TESTER, dst=UPF, hlim=64)
     / ICMPv6EchoReply(id=0x1234, seq=7, data=b"upfbench ping data")),
    ("ndp_ns", "Neighbor Solicitation from the UPF for the tester, to its solicited-node "
               "address, with the UPF's source link-layer address",
     eth(MAC_UPF, TESTER_NSMA_MAC) / IPv6(src=UPF, dst=TESTER_NSMA, hlim=255)
     / ICMPv6ND_NS(tgt=TESTER) / ICMPv6NDOptSrcLLAddr(lladdr=MAC_UPF)),
    ("ndp_ns_dad", "Neighbor Solicitation for duplicate address detection: from ::, no option",
     eth(MAC_TESTER, TESTER_NSMA_MAC) / IPv6(src="::", dst=TESTER_NSMA, hlim=255)
     / ICMPv6ND_NS(tgt=TESTER)),
    ("ndp_ns_mtu_option", "Neighbor Solicitation with an MTU option before the source "
                          "link-layer address: the MTU option is skipped",
     eth(MAC_UPF, TESTER_NSMA_MAC) / IPv6(src=UPF, dst=TESTER_NSMA, hlim=255)
     / ICMPv6ND_NS(tgt=TESTER) / ICMPv6NDOptMTU(mtu=1500) / ICMPv6NDOptSrcLLAddr(lladdr=MAC_UPF)),
    ("ndp_na", "the tester's Neighbor Advertisement answering ndp_ns: solicited, override, "
               "with its target link-layer address",
     eth(MAC_TESTER, MAC_UPF) / IPv6(src=TESTER, dst=UPF, hlim=255)
     / ICMPv6ND_NA(R=0, S=1, O=1, tgt=TESTER) / ICMPv6NDOptDstLLAddr(lladdr=MAC_TESTER)),
    ("ndp_na_unsolicited_router", "unsolicited Neighbor Advertisement from a router to all "
                                  "nodes, R set, O clear, no option",
     eth(MAC_UPF, "33:33:00:00:00:01") / IPv6(src=UPF, dst="ff02::1", hlim=255)
     / ICMPv6ND_NA(R=1, S=0, O=0, tgt=UPF)),
    ("icmpv6_packet_too_big", "Packet Too Big (MTU 1280) quoting the start of a datagram",
     eth(MAC_UPF, MAC_TESTER) / IPv6(src=UPF, dst=TESTER, hlim=64)
     / ICMPv6PacketTooBig(mtu=1280) / IPv6(src=TESTER, dst="2001:db8:16::152", plen=1400)
     / UDP(sport=10000, dport=20000, len=1400, chksum=0x1234)),
    ("vlan_udp_ipv4", "IPv4/UDP in one C-tag: VLAN 13, PCP 5",
     eth(MAC_TESTER, MAC_UPF) / Dot1Q(prio=5, vlan=13) / IP(src=TESTER4, dst=UPF4, id=1, ttl=64)
     / UDP(sport=10000, dport=20000) / Raw(b"0123456789")),
    ("vlan_arp_request", "ARP request in a C-tag (VLAN 16), padded to 64",
     eth(MAC_UPF, "ff:ff:ff:ff:ff:ff") / Dot1Q(vlan=16)
     / ARP(op=1, hwsrc=MAC_UPF, psrc=UPF4, hwdst="00:00:00:00:00:00", pdst=TESTER4)
     / Raw(b"\0" * 18)),
    ("vlan_dei_max_vid", "IPv4/UDP in a C-tag with DEI set and the largest VID, 4094",
     eth(MAC_TESTER, MAC_UPF) / Dot1Q(prio=1, id=1, vlan=4094)
     / IP(src=TESTER4, dst=UPF4, id=2, ttl=64) / UDP(sport=1, dport=2) / Raw(b"x")),
    ("priority_tagged_icmp", "priority-tagged frame (VID 0, PCP 6) carrying an ICMP echo",
     eth(MAC_UPF, MAC_TESTER) / Dot1Q(prio=6, vlan=0) / IP(src=UPF4, dst=TESTER4, id=3, ttl=64)
     / ICMP(type=8, code=0, id=1, seq=1) / Raw(b"p")),
    ("qinq_udp_ipv6", "QinQ: S-tag VLAN 100 PCP 3 outside a C-tag VLAN 13, IPv6/UDP inside",
     eth(MAC_TESTER, MAC_UPF) / Dot1AD(prio=3, vlan=100) / Dot1Q(vlan=13)
     / IPv6(src=TESTER, dst=UPF, hlim=64) / UDP(sport=10000, dport=20000) / Raw(b"qinq")),
    ("qinq_ndp_ns", "QinQ Neighbor Solicitation: S-tag VLAN 200, C-tag VLAN 16",
     eth(MAC_UPF, TESTER_NSMA_MAC) / Dot1AD(vlan=200) / Dot1Q(vlan=16)
     / IPv6(src=UPF, dst=TESTER_NSMA, hlim=255)
     / ICMPv6ND_NS(tgt=TESTER) / ICMPv6NDOptSrcLLAddr(lladdr=MAC_UPF)),
]


def tags_and_payload(p):
    """The VLAN tags as Scapy decodes them, and the layer after them."""
    tags = []
    layer = p.payload
    tpid = p.type
    while isinstance(layer, (Dot1Q, Dot1AD)):
        tags.append({"tpid": tpid, "pcp": layer.prio, "dei": layer.id, "vid": layer.vlan})
        tpid = layer.type
        layer = layer.payload
    return tags, tpid, layer


def icmpv6_fields(ic, raw):
    out = {"type": ic.type, "code": ic.code, "checksum": ic.cksum,
           "rest_of_header": raw[4:8].hex(), "data": raw[8:].hex()}
    if isinstance(ic, (ICMPv6EchoRequest, ICMPv6EchoReply)):
        out.update({"id": ic.id, "seq": ic.seq})
    if isinstance(ic, ICMPv6ND_NS):
        out["target"] = ic.tgt
        if ICMPv6NDOptSrcLLAddr in ic:
            out["source_lladdr"] = ic[ICMPv6NDOptSrcLLAddr].lladdr
    if isinstance(ic, ICMPv6ND_NA):
        out.update({"target": ic.tgt, "router": bool(ic.R), "solicited": bool(ic.S),
                    "override": bool(ic.O)})
        if ICMPv6NDOptDstLLAddr in ic:
            out["target_lladdr"] = ic[ICMPv6NDOptDstLLAddr].lladdr
    return out


def fields(frame):
    """The fields as Scapy decodes them from the bytes."""
    raw = bytes(frame)
    p = Ether(raw)
    tags, ethertype, layer = tags_and_payload(p)
    out = {"eth_src": p.src, "eth_dst": p.dst, "vlans": tags, "ethertype": ethertype,
           "header_len": len(raw) - len(bytes(layer))}
    if isinstance(layer, ARP):
        out["arp"] = {"op": layer.op, "sender_mac": layer.hwsrc, "sender_ip": layer.psrc,
                      "target_mac": layer.hwdst, "target_ip": layer.pdst}
    if isinstance(layer, IP):
        out["ipv4"] = {"src": layer.src, "dst": layer.dst, "protocol": layer.proto,
                       "ttl": layer.ttl, "tos": layer.tos, "id": layer.id, "df": bool(layer.flags.DF),
                       "total_length": layer.len, "checksum": layer.chksum}
        if ICMP in layer:
            ic = layer[ICMP]
            out["icmp"] = {"type": ic.type, "code": ic.code, "id": ic.id, "seq": ic.seq,
                           "checksum": ic.chksum, "data": bytes(ic)[8:].hex()}
    if isinstance(layer, IPv6):
        out["ipv6"] = {"src": layer.src, "dst": layer.dst, "next_header": layer.nh,
                       "hop_limit": layer.hlim, "traffic_class": layer.tc,
                       "flow_label": layer.fl, "payload_length": layer.plen}
        ic = layer.payload
        if ic.name.startswith("ICMPv6") or ic.name.startswith("ICMP"):
            out["icmpv6"] = icmpv6_fields(ic, bytes(ic))
    udp = layer.getlayer(UDP) if not isinstance(layer, ARP) and "icmpv6" not in out else None
    if udp is not None:
        out["udp"] = {"sport": udp.sport, "dport": udp.dport, "length": udp.len,
                      "checksum": udp.chksum, "payload": bytes(udp.payload).hex()}
    return out


TSHARK_FIELDS = ["vlan.id", "ieee8021ad.id", "ipv6.src", "ipv6.dst", "ipv6.flow",
                 "udp.checksum.status", "icmpv6.checksum.status", "icmpv6.nd.ns.target_address",
                 "icmpv6.nd.na.target_address", "icmpv6.opt.src_linkaddr",
                 "icmpv6.opt.target_linkaddr", "icmpv6.nd.na.flag.s", "_ws.expert.severity"]


def tshark_check(frames, vectors):
    """tshark reads the same VLAN ids, addresses and ND fields, and good checksums."""
    with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
        wrpcap(f.name, [fr for _, _, fr in frames])
        cmd = ["tshark", "-r", f.name, "-o", "udp.check_checksum:TRUE", "-T", "fields",
               "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
        for name in TSHARK_FIELDS:
            cmd += ["-e", name]
        lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == len(vectors)
    for line, v in zip(lines, vectors):
        got = dict(zip(TSHARK_FIELDS, line.split("|")))
        f = v["fields"]
        vids = [str(t["vid"]) for t in f["vlans"]]
        # tshark shows an S-tag under ieee8021ad and a C-tag under vlan (the C-tag of QinQ too).
        seen = [x for x in (got["ieee8021ad.id"], got["vlan.id"]) if x]
        assert ",".join(seen) == ",".join(vids), (v["name"], got, vids)
        if "ipv6" in f:
            # The first occurrence: a quoted datagram has its own header.
            first = {k: got[k].split(",")[0] for k in ("ipv6.src", "ipv6.dst", "ipv6.flow")}
            assert (first["ipv6.src"], first["ipv6.dst"]) == (f["ipv6"]["src"], f["ipv6"]["dst"]), v["name"]
            assert int(first["ipv6.flow"], 16) == f["ipv6"]["flow_label"], v["name"]
        if "udp" in f and "ipv6" in f:
            assert got["udp.checksum.status"] == "1", (v["name"], got)  # 1: good
        if "icmpv6" in f:
            assert got["icmpv6.checksum.status"].split(",")[0] == "1", (v["name"], got)
            ic = f["icmpv6"]
            target = got["icmpv6.nd.ns.target_address"] or got["icmpv6.nd.na.target_address"]
            assert target == ic.get("target", ""), (v["name"], got)
            assert got["icmpv6.opt.src_linkaddr"] == ic.get("source_lladdr", ""), v["name"]
            assert got["icmpv6.opt.target_linkaddr"] == ic.get("target_lladdr", ""), v["name"]
            if "solicited" in ic:
                assert got["icmpv6.nd.na.flag.s"] in (("1", "True") if ic["solicited"] else ("0", "False")), v["name"]
        # No expert error (malformed packet, bad checksum); notes and chats are fine.
        assert "8388608" not in got["_ws.expert.severity"], (v["name"], got)
    print(f"tshark agrees on {len(lines)} frames")


vectors = [{"name": name, "description": what, "hex": bytes(f).hex(), "fields": fields(f)}
           for name, what, f in FRAMES]
tshark_check(FRAMES, vectors)
doc = {"generator": "Scapy 2.5 (testdata/make_net_ipv6_vlan.py); fields decoded back by Scapy, "
                    "checked with tshark 4.0",
       "vectors": vectors}
with open("testdata/net_ipv6_vlan.json", "w") as out:
    json.dump(doc, out, indent=1)
    out.write("\n")
print(f"{len(vectors)} vectors")
