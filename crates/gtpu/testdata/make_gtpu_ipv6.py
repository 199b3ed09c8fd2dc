#!/usr/bin/python3
"""Makes testdata/gtpu_ipv6.json: GTP-U with IPv6, built with Scapy 2.5 and checked with tshark
4.0 (run from crates/gtpu: /usr/bin/python3 testdata/make_gtpu_ipv6.py).

G-PDUs over IPv6 transport (N3 on 2001:db8:13::/64) carrying IPv4 and IPv6 UE packets, G-PDUs
over IPv4 transport carrying IPv6 UE packets (UEs in 2001:db8:45::/64, the data network at
2001:db8:16::152), an IPv6 N6 packet, and an Echo Request and an Error Indication over IPv6
whose GTP-U Peer Address is 16 octets (TS 29.281 §8.4). Every UDP checksum is computed: over
IPv6 it is mandatory (RFC 8200 §8.1), over IPv4 Scapy fills it as the IPv4 vectors have it.
tshark must dissect every frame without an expert error, find good UDP checksums, and read
the same TEIDs, QFIs and inner addresses."""
import json
import subprocess
import tempfile

from scapy.all import Ether, IP, IPv6, UDP, Raw, wrpcap
from scapy.contrib.gtp import (GTPHeader, GTP_U_Header, GTPPDUSessionContainer, GTPEchoRequest,
                               GTPErrorIndication, IE_TEIDI, IE_GSNAddress)

N3_TESTER6, N3_UPF6 = "2001:db8:13::131", "2001:db8:13::151"
N3_TESTER4, N3_UPF4 = "192.168.13.131", "192.168.13.151"
MAC_TESTER, MAC_UPF = "02:00:00:00:13:31", "02:00:00:00:13:51"
MAC_N6_TESTER, MAC_N6_UPF = "02:00:00:00:16:52", "02:00:00:00:16:51"
UE4, DN4 = "10.45.0.2", "192.168.16.152"
UE6, DN6 = "2001:db8:45::2", "2001:db8:16::152"


def inner(uplink, v6, n):
    """The UE's packet: ports 10000/20000 by direction, payload of 'x' uplink, 'y' downlink."""
    src, dst = ((UE6, DN6) if v6 else (UE4, DN4)) if uplink else ((DN6, UE6) if v6 else (DN4, UE4))
    ports = (10000, 20000) if uplink else (20000, 10000)
    ip = IPv6(src=src, dst=dst, hlim=64) if v6 else IP(src=src, dst=dst, id=0)
    return ip / UDP(sport=ports[0], dport=ports[1]) / Raw((b"x" if uplink else b"y") * n)


def n3(uplink, v6, gtp):
    """The N3 frame around a GTP-U message: tester to UPF uplink, UPF to tester downlink."""
    src, dst = (N3_TESTER6, N3_UPF6) if v6 else (N3_TESTER4, N3_UPF4)
    macs = (MAC_TESTER, MAC_UPF)
    if not uplink:
        src, dst, macs = dst, src, (MAC_UPF, MAC_TESTER)
    ip = IPv6(src=src, dst=dst, hlim=64) if v6 else IP(src=src, dst=dst, id=0)
    return Ether(src=macs[0], dst=macs[1]) / ip / UDP(sport=2152, dport=2152) / gtp


def gpdu(teid, container=None):
    if container is None:
        return GTPHeader(gtp_type=255, teid=teid)
    return GTPHeader(E=1, gtp_type=255, teid=teid, next_ex=0x85) / container


VECTORS = [
    ("ul_gpdu_v6_payload10", "N3 uplink G-PDU over IPv6, TEID 1, inner IPv4/UDP, 10-byte payload",
     n3(True, True, gpdu(1) / inner(True, False, 10))),
    ("ul_gpdu_v6_pdusc_qfi9_payload300",
     "N3 uplink G-PDU over IPv6, TEID 0x1234, UL PDU Session Container QFI 9, inner IPv4, 300 bytes",
     n3(True, True, gpdu(0x1234, GTPPDUSessionContainer(type=1, QFI=9)) / inner(True, False, 300))),
    ("dl_gpdu_v6_pdusc_qfi1_payload1400",
     "N3 downlink G-PDU over IPv6, TEID 2, DL PDU Session Container QFI 1, inner IPv4, 1400 bytes",
     n3(False, True, gpdu(2, GTPPDUSessionContainer(type=0, QFI=1)) / inner(False, False, 1400))),
    ("ul_gpdu_inner_v6_payload10",
     "N3 uplink G-PDU over IPv4, TEID 1, inner IPv6/UDP from UE 2001:db8:45::2, 10 bytes",
     n3(True, False, gpdu(1) / inner(True, True, 10))),
    ("dl_gpdu_inner_v6_pdusc_qfi5_payload300",
     "N3 downlink G-PDU over IPv4, TEID 3, DL PDU Session Container QFI 5, inner IPv6, 300 bytes",
     n3(False, False, gpdu(3, GTPPDUSessionContainer(type=0, QFI=5)) / inner(False, True, 300))),
    ("ul_gpdu_v6_inner_v6_pdusc_qfi9_payload1400",
     "N3 uplink G-PDU over IPv6, TEID 0xabcdef01, UL container QFI 9, inner IPv6, 1400 bytes",
     n3(True, True, gpdu(0xabcdef01, GTPPDUSessionContainer(type=1, QFI=9))
        / inner(True, True, 1400))),
    ("n6_dl_udp_v6_payload10", "N6 downlink IPv6/UDP from the data network to the UE, 10 bytes",
     Ether(src=MAC_N6_TESTER, dst=MAC_N6_UPF) / inner(False, True, 10)),
    ("echo_request_v6", "GTP-U Echo Request over IPv6, sequence number 0x1234",
     n3(True, True, GTPHeader(S=1, gtp_type=1, seq=0x1234, teid=0) / GTPEchoRequest())),
    ("error_indication_v6_peer_ipv6",
     "GTP-U Error Indication over IPv6 for TEID 0x99, GTP-U Peer Address 2001:db8:13::151 "
     "(16 octets)",
     n3(False, True, GTPHeader(S=1, gtp_type=26, seq=0, teid=0)
        / GTPErrorIndication(IE_list=[IE_TEIDI(TEIDI=0x99),
                                      IE_GSNAddress(length=16, ipv6_address=N3_UPF6)]))),
]


def fields(frame):
    """The fields as Scapy decodes them from the bytes."""
    p = Ether(bytes(frame))
    out = {"frame_len": len(bytes(frame))}
    outer = p.payload
    udp = outer[UDP]
    if udp.dport != 2152:
        out.update({"src": outer.src, "dst": outer.dst, "payload_len": len(udp.payload)})
        return out
    out.update({"outer_src": outer.src, "outer_dst": outer.dst, "udp_dport": udp.dport,
                "udp_checksum": udp.chksum})
    g = p[GTP_U_Header]  # what Scapy decodes UDP port 2152 as
    out.update({"gtp_msg_type": g.gtp_type, "teid": g.teid, "gtp_length": g.length})
    if g.S:
        out["seq"] = g.seq
    if GTPPDUSessionContainer in p:
        c = p[GTPPDUSessionContainer]
        out.update({"pdu_type": c.type, "qfi": c.QFI})
    if GTPErrorIndication in p:
        ies = p[GTPErrorIndication].IE_list
        out["teid_data_i"] = ies[0].TEIDI
        out["gsn_address"] = ies[1].ipv6_address
    if g.gtp_type == 255:
        body = g.payload
        while isinstance(body, GTPPDUSessionContainer):
            body = body.payload
        iu = body[UDP]
        out.update({"inner_src": body.src, "inner_dst": body.dst, "inner_udp_sport": iu.sport,
                    "inner_udp_dport": iu.dport, "payload_len": len(iu.payload)})
    return out


TSHARK_FIELDS = ["gtp.teid", "gtp.ext_hdr.pdu_ses_con.qos_flow_id", "ipv6.src", "ip.src",
                 "udp.checksum.status", "gtp.tid", "_ws.expert.severity"]


def tshark_check(vectors):
    with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
        wrpcap(f.name, [Ether(bytes.fromhex(v["hex"])) for v in vectors])
        cmd = ["tshark", "-r", f.name, "-o", "udp.check_checksum:TRUE", "-T", "fields",
               "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,"]
        for name in TSHARK_FIELDS:
            cmd += ["-e", name]
        lines = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(lines) == len(vectors)
    for line, v in zip(lines, vectors):
        got = dict(zip(TSHARK_FIELDS, line.split("|")))
        f = v["fields"]
        # Every UDP checksum of the frame (outer and inner) is good (status 1).
        assert set(got["udp.checksum.status"].split(",")) == {"1"}, (v["name"], got)
        assert "8388608" not in got["_ws.expert.severity"], (v["name"], got)  # no error
        if "teid" in f:
            assert int(got["gtp.teid"].split(",")[0], 16) == f["teid"], (v["name"], got)
        if "qfi" in f:
            assert int(got["gtp.ext_hdr.pdu_ses_con.qos_flow_id"]) == f["qfi"], (v["name"], got)
        addresses = (got["ipv6.src"] + "," + got["ip.src"]).strip(",").split(",")
        for key in ("outer_src", "inner_src", "src"):
            if key in f:
                assert f[key] in addresses, (v["name"], key, got)
    print(f"tshark agrees on {len(lines)} frames")


vectors = [{"name": name, "description": what, "hex": bytes(f).hex(), "fields": fields(f)}
           for name, what, f in VECTORS]
tshark_check(vectors)
doc = {"generator": "Scapy 2.5 (testdata/make_gtpu_ipv6.py), checked with tshark 4.0",
       "vectors": vectors}
with open("testdata/gtpu_ipv6.json", "w") as out:
    json.dump(doc, out, indent=1)
    out.write("\n")
print(f"{len(vectors)} vectors")
