#!/usr/bin/python3
"""Makes testdata/net.json: reference frames for the layers of upfbench-net, built with Scapy
2.5 and decoded back by Scapy into the fields the tests compare against (run from crates/net:
/usr/bin/python3 testdata/make_net.py).

Every vector is a whole Ethernet frame. ARP frames carry the 18 octets of padding a NIC adds
to reach 60 octets; the ICMP Destination Unreachable quotes an IPv4 header and 8 octets of the
datagram that caused it; one IPv4 header carries an option (Router Alert, IHL 6)."""
import json

from scapy.all import ARP, Ether, ICMP, IP, IPerror, IPOption_Router_Alert, Padding, Raw, UDP, \
    UDPerror

MAC_TESTER, MAC_UPF = "02:00:00:00:13:31", "02:00:00:00:13:51"
TESTER, UPF = "192.168.13.131", "192.168.13.151"
BROADCAST = "ff:ff:ff:ff:ff:ff"


def eth(src, dst):
    return Ether(src=src, dst=dst)


FRAMES = [
    ("arp_request", "ARP request from the UPF for the tester's address, broadcast, padded to 60",
     eth(MAC_UPF, BROADCAST) / ARP(op=1, hwsrc=MAC_UPF, psrc=UPF, hwdst="00:00:00:00:00:00",
                                   pdst=TESTER) / Padding(load=b"\0" * 18)),
    ("arp_reply", "ARP reply from the tester to the UPF, padded to 60",
     eth(MAC_TESTER, MAC_UPF) / ARP(op=2, hwsrc=MAC_TESTER, psrc=TESTER, hwdst=MAC_UPF,
                                    pdst=UPF) / Padding(load=b"\0" * 18)),
    ("arp_gratuitous", "gratuitous ARP request (sender address = target address), unpadded",
     eth(MAC_UPF, BROADCAST) / ARP(op=1, hwsrc=MAC_UPF, psrc=UPF, hwdst="00:00:00:00:00:00",
                                   pdst=UPF)),
    ("icmp_echo_request", "ping from the UPF to the tester: identifier 0x1234, sequence 7",
     eth(MAC_UPF, MAC_TESTER) / IP(src=UPF, dst=TESTER, id=99, ttl=64, flags="DF")
     / ICMP(type=8, code=0, id=0x1234, seq=7) / Raw(b"upfbench ping data")),
    ("icmp_echo_reply", "the tester's answer to icmp_echo_request",
     eth(MAC_TESTER, MAC_UPF) / IP(src=TESTER, dst=UPF, id=99, ttl=64)
     / ICMP(type=0, code=0, id=0x1234, seq=7) / Raw(b"upfbench ping data")),
    ("icmp_echo_request_empty", "ping without data, identifier 1, sequence 65535",
     eth(MAC_UPF, MAC_TESTER) / IP(src=UPF, dst=TESTER, id=1, ttl=255)
     / ICMP(type=8, code=0, id=1, seq=65535)),
    ("icmp_port_unreachable", "Destination Unreachable, port unreachable (3/3), quoting a UDP datagram",
     eth(MAC_UPF, MAC_TESTER) / IP(src=UPF, dst=TESTER, id=5, ttl=64)
     / ICMP(type=3, code=3) / IPerror(src=TESTER, dst=UPF, id=0, ttl=64)
     / UDPerror(sport=40000, dport=9)),
    ("udp_ipv4", "IPv4/UDP datagram with a computed checksum",
     eth(MAC_TESTER, MAC_UPF) / IP(src=TESTER, dst=UPF, id=0x4242, ttl=64, tos=0xb8)
     / UDP(sport=10000, dport=20000) / Raw(b"0123456789")),
    ("udp_ipv4_zero_checksum", "IPv4/UDP datagram without a checksum (0), odd payload length",
     eth(MAC_TESTER, MAC_UPF) / IP(src=TESTER, dst=UPF, id=1, ttl=1)
     / UDP(sport=2152, dport=2152, chksum=0) / Raw(b"abc")),
    ("udp_ipv4_router_alert", "IPv4 header with a Router Alert option (IHL 6) over UDP",
     eth(MAC_TESTER, MAC_UPF) / IP(src=TESTER, dst=UPF, id=7, ttl=64,
                                   options=[IPOption_Router_Alert()])
     / UDP(sport=1, dport=2) / Raw(b"opt")),
]


def fields(frame):
    """The fields as Scapy decodes them from the bytes."""
    p = Ether(bytes(frame))
    out = {"eth_src": p.src, "eth_dst": p.dst, "ethertype": p.type}
    if ARP in p:
        a = p[ARP]
        out["arp"] = {"op": a.op, "sender_mac": a.hwsrc, "sender_ip": a.psrc,
                      "target_mac": a.hwdst, "target_ip": a.pdst}
    if IP in p:
        ip = p[IP]
        out["ipv4"] = {"src": ip.src, "dst": ip.dst, "protocol": ip.proto, "ttl": ip.ttl,
                       "tos": ip.tos, "id": ip.id, "df": bool(ip.flags.DF), "ihl": ip.ihl,
                       "total_length": ip.len, "checksum": ip.chksum}
    if ICMP in p:
        ic = p[ICMP]
        out["icmp"] = {"type": ic.type, "code": ic.code, "checksum": ic.chksum,
                       "rest_of_header": bytes(ic)[4:8].hex(), "data": bytes(ic)[8:].hex()}
        if ic.type in (0, 8):
            out["icmp"].update({"id": ic.id, "seq": ic.seq})
    elif UDP in p:
        u = p[UDP]
        out["udp"] = {"sport": u.sport, "dport": u.dport, "length": u.len, "checksum": u.chksum,
                      "payload": bytes(u.payload).hex()}
    return out


vectors = [{"name": name, "description": what, "hex": bytes(f).hex(), "fields": fields(f)}
           for name, what, f in FRAMES]
doc = {"generator": "Scapy 2.5 (testdata/make_net.py); fields decoded back by Scapy",
       "vectors": vectors}
with open("testdata/net.json", "w") as out:
    json.dump(doc, out, indent=1)
    out.write("\n")
print(f"{len(vectors)} vectors")
