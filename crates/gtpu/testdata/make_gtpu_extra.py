#!/usr/bin/python3
"""Makes testdata/gtpu_extra.json: vectors beyond testdata/gtpu.json, built with Scapy
and checked with tshark (run from crates/gtpu: /usr/bin/python3 testdata/make_gtpu_extra.py).

They cover what gtpu.json does not: an Error Indication whose GTP-U Peer Address carries
the address (gtpu.json's vector has an empty Peer Address IE, length 0, a Scapy quirk when the IE
length is left unset), the UDP Port extension header, DL PDU Session Containers with PPP/PPI,
RQI, QMP and SNP, a UL container with every optional field, and sequence/N-PDU numbers."""
import json
import subprocess
import tempfile

from scapy.all import Ether, IP, UDP, Raw, wrpcap
from scapy.contrib.gtp import (GTPHeader, GTPPDUSessionContainer, GTPErrorIndication,
                               GTP_UDPPort_ExtensionHeader, IE_TEIDI, IE_GSNAddress)

N3_TESTER, N3_UPF = "192.168.13.131", "192.168.13.151"
MAC_TESTER, MAC_UPF = "02:00:00:00:13:31", "02:00:00:00:13:51"
UE, DN = "10.45.0.2", "192.168.16.152"


def inner_ul(n):
    return IP(src=UE, dst=DN, id=0) / UDP(sport=10000, dport=20000) / Raw(b"x" * n)


def inner_dl(n):
    return IP(src=DN, dst=UE, id=0) / UDP(sport=20000, dport=10000) / Raw(b"y" * n)


def ul_frame(gtp):
    return Ether(src=MAC_TESTER, dst=MAC_UPF) / IP(src=N3_TESTER, dst=N3_UPF, id=0) / \
        UDP(sport=2152, dport=2152) / gtp


def dl_frame(gtp):
    return Ether(src=MAC_UPF, dst=MAC_TESTER) / IP(src=N3_UPF, dst=N3_TESTER, id=0) / \
        UDP(sport=2152, dport=2152) / gtp


vectors = [
    ("error_indication_peer_ipv4",
     "GTP-U Error Indication (type 26) for TEID 0x99, GTP-U Peer Address 192.168.13.151 (length 4), starting at the IPv4 header",
     IP(src=N3_UPF, dst=N3_TESTER, id=0) / UDP(sport=2152, dport=2152) /
     GTPHeader(S=1, gtp_type=26, seq=0, teid=0) /
     GTPErrorIndication(IE_list=[IE_TEIDI(TEIDI=0x99), IE_GSNAddress(length=4, ipv4_address=N3_UPF)]),
     {"gtp_msg_type": 26, "seq": 0, "teid": 0, "teid_data_i": 153, "gsn_address": N3_UPF}),
    ("error_indication_udp_port",
     "GTP-U Error Indication with the UDP Port extension header (0x40, port 2152), TEID Data I 0x1234, peer 192.168.13.151, seq 7, starting at the IPv4 header",
     IP(src=N3_UPF, dst=N3_TESTER, id=0) / UDP(sport=2152, dport=2152) /
     GTPHeader(S=1, E=1, gtp_type=26, seq=7, teid=0, next_ex=0x40) /
     GTP_UDPPort_ExtensionHeader(udp_port=2152, next_ex=0) /
     GTPErrorIndication(IE_list=[IE_TEIDI(TEIDI=0x1234), IE_GSNAddress(length=4, ipv4_address=N3_UPF)]),
     {"gtp_msg_type": 26, "seq": 7, "teid": 0, "udp_port": 2152, "teid_data_i": 4660, "gsn_address": N3_UPF}),
    ("dl_gpdu_pdusc_ppp_rqi_payload10",
     "N3 downlink G-PDU, TEID 2, DL PDU SESSION INFORMATION with PPP=1 PPI=5, RQI=1, QFI 7, 10-byte payload",
     dl_frame(GTPHeader(E=1, gtp_type=255, teid=2, next_ex=0x85) /
              GTPPDUSessionContainer(type=0, PPP=1, PPI=5, RQI=1, QFI=7) / inner_dl(10)),
     {"teid": 2, "pdu_type": 0, "qfi": 7, "rqi": True, "ppi": 5, "inner_src": DN, "inner_dst": UE, "payload_len": 10}),
    ("dl_gpdu_pdusc_qmp_snp_payload10",
     "N3 downlink G-PDU, TEID 2, DL PDU SESSION INFORMATION with QMP (DL Sending Time Stamp 0x1122334455667788) and SNP (DL QFI SN 0xabcdef), QFI 1, 10-byte payload",
     dl_frame(GTPHeader(E=1, gtp_type=255, teid=2, next_ex=0x85) /
              GTPPDUSessionContainer(type=0, QMP=1, SNP=1, QFI=1, dlSendTime=0x1122334455667788,
                                     dlQFISeqNum=0xabcdef) / inner_dl(10)),
     {"teid": 2, "pdu_type": 0, "qfi": 1, "dl_sending_time_stamp": 0x1122334455667788,
      "dl_qfi_sequence_number": 0xabcdef, "inner_src": DN, "inner_dst": UE, "payload_len": 10}),
    ("ul_gpdu_pdusc_all_fields_payload10",
     "N3 uplink G-PDU, TEID 0x11223344, UL PDU SESSION INFORMATION with QMP time stamps, DL/UL delay results, UL QFI SN and N3/N9 delay result, QFI 63, 10-byte payload",
     ul_frame(GTPHeader(E=1, gtp_type=255, teid=0x11223344, next_ex=0x85) /
              GTPPDUSessionContainer(type=1, QMP=1, dlDelayInd=1, ulDelayInd=1, SNP=1, N3N9DelayInd=1,
                                     QFI=63, dlSendTimeRpt=1, dlRecvTime=2, ulSendTime=3,
                                     dlDelayRslt=4, ulDelayRslt=5, UlQFISeqNum=6, N3N9DelayRslt=7) /
              inner_ul(10)),
     {"teid": 0x11223344, "pdu_type": 1, "qfi": 63, "dl_sending_time_stamp_repeated": 1,
      "dl_received_time_stamp": 2, "ul_sending_time_stamp": 3, "dl_delay_result": 4,
      "ul_delay_result": 5, "ul_qfi_sequence_number": 6, "n3_n9_delay_result": 7,
      "inner_src": UE, "inner_dst": DN, "payload_len": 10}),
    ("ul_gpdu_seq_npdu_payload10",
     "N3 uplink G-PDU, TEID 1, sequence number 0xbeef and N-PDU number 0x42 (S=1, PN=1), no extension header, 10-byte payload",
     ul_frame(GTPHeader(S=1, PN=1, gtp_type=255, teid=1, seq=0xbeef, npdu=0x42) / inner_ul(10)),
     {"teid": 1, "seq": 0xbeef, "npdu": 0x42, "inner_src": UE, "inner_dst": DN, "payload_len": 10}),
]

out = []
pkts = []
for name, desc, pkt, fields in vectors:
    raw = bytes(pkt)
    out.append({"name": name, "description": desc, "hex": raw.hex(), "fields": fields})
    pkts.append(pkt if isinstance(pkt, Ether) else Ether(src=MAC_UPF, dst=MAC_TESTER) / IP(raw))

with tempfile.NamedTemporaryFile(suffix=".pcap") as f:
    wrpcap(f.name, pkts)
    # tshark must dissect every packet without a malformed-packet or wrong-length complaint.
    text = subprocess.run(["tshark", "-r", f.name, "-V"], capture_output=True, text=True, check=True).stdout
    for bad in ("Malformed", "wrong length", "unknown type"):
        assert bad not in text, bad
    print(text)

json.dump({"generator": "Scapy (make_gtpu_extra.py), checked with tshark", "vectors": out},
          open("testdata/gtpu_extra.json", "w"), indent=1)
