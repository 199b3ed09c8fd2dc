#!/usr/bin/env python3
"""Scapy's side of the echo test (tests/e2e/echo.rs), run in the tester's namespace.

  echo_scapy.py IFACE OUR_MAC OUR_IP THEIR_MAC THEIR_IP UDP_COUNT TCP_COUNT

Sends on IFACE, to the reflector in echo mode at THEIR_MAC/THEIR_IP: an ARP request for
THEIR_IP, UDP_COUNT UDP datagrams (source port 40000 + i, destination port 7, a payload of its
own each), one ICMP echo request and TCP_COUNT TCP segments; sniffs what comes back from
THEIR_MAC and prints it as one JSON object: the ARP replies, the ICMP echo replies, and each UDP
datagram's addresses, ports, payload and whether its IPv4 and UDP checksums are right (Scapy
recomputes them from the bytes received).
"""
import json
import sys
import time

from scapy.all import ARP, ICMP, IP, TCP, UDP, AsyncSniffer, Ether, Raw, conf, raw, sendp

conf.verb = 0


def checksums_ok(frame):
    """Whether the IPv4 and UDP checksums of `frame` are what Scapy computes for its bytes."""
    got = (frame[IP].chksum, frame[UDP].chksum)
    again = frame.copy()
    del again[IP].chksum
    del again[UDP].chksum
    again = Ether(raw(again))
    return got[0] == again[IP].chksum, got[1] == again[UDP].chksum


def main():
    iface, our_mac, our_ip, their_mac, their_ip = sys.argv[1:6]
    udp_count, tcp_count = int(sys.argv[6]), int(sys.argv[7])
    sniffer = AsyncSniffer(
        iface=iface,
        store=True,
        lfilter=lambda p: Ether in p and p[Ether].src.lower() == their_mac.lower(),
    )
    sniffer.start()
    time.sleep(1.0)
    frames = [Ether(src=our_mac, dst="ff:ff:ff:ff:ff:ff") / ARP(
        op=1, hwsrc=our_mac, psrc=our_ip, pdst=their_ip)]
    for i in range(udp_count):
        payload = bytes((i + k) % 256 for k in range(20 + 13 * i))
        frames.append(Ether(src=our_mac, dst=their_mac) / IP(src=our_ip, dst=their_ip, id=i)
                      / UDP(sport=40000 + i, dport=7) / Raw(payload))
    frames.append(Ether(src=our_mac, dst=their_mac) / IP(src=our_ip, dst=their_ip)
                  / ICMP(type=8, id=0x1234, seq=1) / Raw(b"upfbench"))
    for i in range(tcp_count):
        frames.append(Ether(src=our_mac, dst=their_mac) / IP(src=our_ip, dst=their_ip)
                      / TCP(sport=50000 + i, dport=80, flags="S"))
    sendp(frames, iface=iface, inter=0.01)
    time.sleep(1.5)
    got = sniffer.stop()
    out = {"arp_replies": [], "icmp_replies": [], "udp": [], "other": []}
    for p in got:
        if ARP in p:
            out["arp_replies"].append({"op": p[ARP].op, "hwsrc": p[ARP].hwsrc,
                                       "psrc": p[ARP].psrc, "pdst": p[ARP].pdst})
        elif ICMP in p:
            out["icmp_replies"].append({"type": p[ICMP].type, "id": p[ICMP].id,
                                        "seq": p[ICMP].seq, "src": p[IP].src})
        elif UDP in p:
            ip_ok, udp_ok = checksums_ok(p)
            out["udp"].append({
                "eth_src": p[Ether].src, "eth_dst": p[Ether].dst,
                "ip_src": p[IP].src, "ip_dst": p[IP].dst, "ip_id": p[IP].id,
                "sport": p[UDP].sport, "dport": p[UDP].dport,
                "payload": bytes(p[UDP].payload).hex(),
                "ip_checksum_ok": ip_ok, "udp_checksum_ok": udp_ok,
            })
        else:
            out["other"].append(p.summary())
    print(json.dumps(out))


if __name__ == "__main__":
    main()
