#!/usr/bin/python3
"""The IPv6 and QoS reference vectors of pfcp_v6_qos.json, made by Scapy (Debian's python3-scapy,
2.5.0): sessions of IPv6 and dual-stack UEs over an IPv6 N3 with several QoS flows (PDRs naming
several QERs, QERs shared by several PDRs, MBR/GBR, RQI, PPI, QER Correlation ID), the UE IP
Address forms of TS 29.244 §8.2.62, a gate closed by a Session Modification, and rejections
with Cause 69, 72 and 74 and an Offending IE.

Scapy 2.5 has no fields for the UE IP Address's IPv6D, CHV4, CHV6 and IP6PL flags (its 5 spare
bits) nor for the two octets after the addresses: the script sets those bits through Scapy's
`spare` field and appends the octets as `extra_data`, so those bytes are laid by this script, and
checked by tshark's dissector (tests/tshark.rs), not by Scapy's. The IEs of every group are in
the order upfbench's encoder emits them (the spec tables' order), so that each vector re-encodes
byte for byte. Prints the JSON file."""

import json

from scapy.contrib.pfcp import (
    PFCP,
    IE_3GPP_InterfaceType,
    IE_APN_DNN,
    IE_ApplyAction,
    IE_Cause,
    IE_CreatedPDR,
    IE_CreateFAR,
    IE_CreatePDR,
    IE_CreateQER,
    IE_DestinationInterface,
    IE_FAR_Id,
    IE_FSEID,
    IE_FTEID,
    IE_ForwardingParameters,
    IE_GBR,
    IE_GateStatus,
    IE_MBR,
    IE_NetworkInstance,
    IE_NodeId,
    IE_OffendingIE,
    IE_OuterHeaderCreation,
    IE_OuterHeaderRemoval,
    IE_PDI,
    IE_PDNType,
    IE_PDR_Id,
    IE_PagingPolicyIndicator,
    IE_Precedence,
    IE_QERCorrelationId,
    IE_QER_Id,
    IE_QFI,
    IE_RQI,
    IE_SDF_Filter,
    IE_SourceInterface,
    IE_UE_IP_Address,
    IE_UpdateQER,
    PFCPSessionEstablishmentRequest,
    PFCPSessionEstablishmentResponse,
    PFCPSessionModificationRequest,
    PFCPSessionModificationResponse,
)

CP_V6 = "2001:db8:14::111"
CP_V4 = "192.168.14.111"
UPF_V6 = "2001:db8:14::151"
UPF_N3_V6 = "2001:db8:13::151"
UPF_N3_V4 = "192.168.13.151"
GNB_V6 = "2001:db8:13::131"
GNB_V4 = "192.168.13.131"
UE_V6 = "2001:db8:45:2::"
UE_V4 = "10.45.0.2"
CP_SEID = 0x0000000000000042
UP_SEID = 0x0000000000000007
FLOW_VOICE = "permit out 17 from 2001:db8::/64 to assigned 1000-2000"
FLOW_WEB = "permit out 6 from 2001:db8:1::/48 80,443 to assigned"


def ue_ip(sd=0, v4=None, v6=None, ipv6d=None, ip6pl=None, chv4=0, chv6=0):
    """A UE IP Address; the flags Scapy lacks go into its spare bits, their octets after."""
    spare = (ip6pl is not None) << 3 | chv6 << 2 | chv4 << 1 | (ipv6d is not None)
    extra = bytes(x for x in (ipv6d, ip6pl) if x is not None)
    ie = IE_UE_IP_Address(spare=spare, SD=sd, V4=int(v4 is not None), V6=int(v6 is not None))
    if v4 is not None:
        ie.ipv4 = v4
    if v6 is not None:
        ie.ipv6 = v6
    if extra:
        ie.extra_data = extra
    return ie


def pdr(pdr_id, pdi, far_id, qer_ids, ohr=None):
    ies = [IE_PDR_Id(id=pdr_id), IE_Precedence(precedence=0xFFFF), IE_PDI(IE_list=pdi)]
    ies.append(IE_FAR_Id(id=far_id))
    if ohr is not None:
        ies.append(IE_OuterHeaderRemoval(header=ohr))
    ies += [IE_QER_Id(id=q) for q in qer_ids]
    return IE_CreatePDR(IE_list=ies)


def far(far_id, interface, ohc=None):
    fp = [IE_DestinationInterface(interface=interface), IE_NetworkInstance(instance="internet")]
    if ohc is not None:
        fp.append(ohc)
    return IE_CreateFAR(
        IE_list=[IE_FAR_Id(id=far_id), IE_ApplyAction(FORW=1), IE_ForwardingParameters(IE_list=fp)]
    )


def qer(qer_id, qfi, mbr=None, gbr=None, gate=("OPEN", "OPEN"), rqi=None, ppi=None, corr=None):
    ies = [IE_QER_Id(id=qer_id)]
    if corr is not None:
        ies.append(IE_QERCorrelationId(id=corr))
    ies.append(IE_GateStatus(ul=gate[0], dl=gate[1]))
    if mbr is not None:
        ies.append(IE_MBR(ul=mbr[0], dl=mbr[1]))
    if gbr is not None:
        ies.append(IE_GBR(ul=gbr[0], dl=gbr[1]))
    ies.append(IE_QFI(QFI=qfi))
    if rqi is not None:
        ies.append(IE_RQI(RQI=rqi))
    if ppi is not None:
        ies.append(IE_PagingPolicyIndicator(ppi=ppi))
    return IE_CreateQER(IE_list=ies)


def three_flow_session():
    """An IPv6 UE over an IPv6 N3 with three QoS flows: QFI 1 (GBR voice, QER 1), QFI 2 (web,
    QER 2) and QFI 3 (the default flow, QER 3); the downlink default PDR names QERs 2 and 3,
    each uplink PDR its own, QER 2 is shared by the web uplink and the downlink."""
    sdf = lambda text: IE_SDF_Filter(FD=1, flow_description=text)
    dl = [
        IE_SourceInterface(interface="Core"),
        IE_NetworkInstance(instance="internet"),
        ue_ip(sd=1, v6=UE_V6),
        IE_3GPP_InterfaceType(interface_type=17),
    ]
    voice = [
        IE_SourceInterface(interface="Access"),
        IE_FTEID(V6=1, TEID=0x11, ipv6=UPF_N3_V6),
        IE_NetworkInstance(instance="internet"),
        ue_ip(v6=UE_V6),
        sdf(FLOW_VOICE),
        IE_QFI(QFI=1),
    ]
    web = [
        IE_SourceInterface(interface="Access"),
        IE_FTEID(V6=1, TEID=0x11, ipv6=UPF_N3_V6),
        IE_NetworkInstance(instance="internet"),
        ue_ip(v6=UE_V6),
        sdf(FLOW_WEB),
        IE_QFI(QFI=2),
    ]
    return PFCP(version=1, S=1, seid=0, seq=21) / PFCPSessionEstablishmentRequest(
        IE_list=[
            IE_NodeId(id_type="IPv6", ipv6=CP_V6),
            IE_FSEID(v6=1, seid=CP_SEID, ipv6=CP_V6),
            pdr(1, dl, 1, [2, 3]),
            pdr(2, voice, 2, [1], ohr=1),
            pdr(3, web, 2, [2], ohr=1),
            far(1, "Access", IE_OuterHeaderCreation(GTPUUDPIPV6=1, TEID=0x22, ipv6=GNB_V6)),
            far(2, "Core"),
            IE_PDNType(pdn_type=2),
            IE_APN_DNN(apn_dnn="internet"),
            qer(1, 1, mbr=(128, 128), gbr=(64, 64), rqi=0, ppi=1),
            qer(2, 2, mbr=(10_000_000, 200_000_000), rqi=1, corr=0x1234),
            qer(3, 9, gate=("CLOSED", "OPEN")),
        ]
    )


def dual_stack_session():
    """A dual-stack UE (PDN Type IPv4v6, V4 and V6 in one UE IP Address, a /60 delegated with
    IPv6D) whose uplink F-TEID the UPF chooses in both families (CH, V4, V6, CHOOSE ID 7), and
    a downlink tunnel to a gNB with both addresses (GTP-U/UDP/IPv4 and IPv6 together); the
    uplink removes GTP-U/UDP/IP (either family)."""
    dl = [
        IE_SourceInterface(interface="Core"),
        IE_NetworkInstance(instance="internet"),
        ue_ip(sd=1, v4=UE_V4, v6=UE_V6, ipv6d=4),
    ]
    ul = [
        IE_SourceInterface(interface="Access"),
        IE_FTEID(CHID=1, CH=1, V6=1, V4=1, choose_id=7),
        IE_NetworkInstance(instance="internet"),
        ue_ip(v4=UE_V4, v6=UE_V6, ipv6d=4),
    ]
    ohc = IE_OuterHeaderCreation(
        GTPUUDPIPV6=1, GTPUUDPIPV4=1, TEID=0x22, ipv4=GNB_V4, ipv6=GNB_V6
    )
    return PFCP(version=1, S=1, seid=0, seq=22) / PFCPSessionEstablishmentRequest(
        IE_list=[
            IE_NodeId(id_type="IPv4", ipv4=CP_V4),
            IE_FSEID(v4=1, v6=1, seid=CP_SEID, ipv4=CP_V4, ipv6=CP_V6),
            pdr(1, dl, 1, [1]),
            pdr(2, ul, 2, [1], ohr=6),
            far(1, "Access", ohc),
            far(2, "Core"),
            IE_PDNType(pdn_type=3),
            qer(1, 5, mbr=(1_000_000, 1_000_000)),
        ]
    )


def ue_chooses_addresses():
    """UE IP Addresses the UPF allocates (CHV4 and CHV6 with 4 delegation bits: a /60) and one
    with a prefix length (IP6PL 56), in the PDIs of a session whose uplink F-TEID it chooses for
    IPv6 only (CH, V6)."""
    dl = [
        IE_SourceInterface(interface="Core"),
        IE_NetworkInstance(instance="internet"),
        ue_ip(sd=1, chv4=1, chv6=1, ipv6d=4),
    ]
    ul = [
        IE_SourceInterface(interface="Access"),
        IE_FTEID(CH=1, V6=1),
        IE_NetworkInstance(instance="internet"),
        ue_ip(v6="2001:db8:45:100::", ip6pl=56),
    ]
    return PFCP(version=1, S=1, seid=0, seq=23) / PFCPSessionEstablishmentRequest(
        IE_list=[
            IE_NodeId(id_type="IPv6", ipv6=CP_V6),
            IE_FSEID(v6=1, seid=CP_SEID, ipv6=CP_V6),
            pdr(1, dl, 1, []),
            pdr(2, ul, 2, [], ohr=1),
            far(1, "Access", IE_OuterHeaderCreation(GTPUUDPIPV6=1, TEID=0x22, ipv6=GNB_V6)),
            far(2, "Core"),
            IE_PDNType(pdn_type=3),
        ]
    )


def created_addresses():
    """The UPF's answer to the request above: the F-TEID and the UE addresses it allocated
    (V4, and V6 with IPv6D 4) in Created PDRs, its IPv6 F-SEID and Node ID."""
    return PFCP(version=1, S=1, seid=CP_SEID, seq=23) / PFCPSessionEstablishmentResponse(
        IE_list=[
            IE_NodeId(id_type="IPv6", ipv6=UPF_V6),
            IE_Cause(cause=1),
            IE_FSEID(v6=1, seid=UP_SEID, ipv6=UPF_V6),
            IE_CreatedPDR(
                IE_list=[IE_PDR_Id(id=1), ue_ip(sd=1, v4=UE_V4, v6=UE_V6, ipv6d=4)]
            ),
            IE_CreatedPDR(
                IE_list=[IE_PDR_Id(id=2), IE_FTEID(V6=1, TEID=0x1234, ipv6=UPF_N3_V6)]
            ),
        ]
    )


def gate_closed():
    """The gates of QERs 2 and 3 closed both ways: an Update QER with only the QER ID and the
    Gate Status for each, as `plan::gate_request` builds it."""
    return PFCP(version=1, S=1, seid=UP_SEID, seq=24) / PFCPSessionModificationRequest(
        IE_list=[
            IE_UpdateQER(IE_list=[IE_QER_Id(id=q), IE_GateStatus(ul="CLOSED", dl="CLOSED")])
            for q in (2, 3)
        ]
    )


def rejected(cause, offending, seq, modification=False):
    ies = [IE_Cause(cause=cause), IE_OffendingIE(type=offending)]
    if modification:
        return PFCP(version=1, S=1, seid=CP_SEID, seq=seq) / PFCPSessionModificationResponse(
            IE_list=ies
        )
    return PFCP(version=1, S=1, seid=CP_SEID, seq=seq) / PFCPSessionEstablishmentResponse(
        IE_list=[IE_NodeId(id_type="IPv6", ipv6=UPF_V6)] + ies
    )


VECTORS = [
    (
        "session_establishment_request_ipv6_three_flows",
        three_flow_session(),
        "Session Establishment Request of an IPv6 UE (2001:db8:45:2::/64) over an IPv6 N3 with "
        "three QoS flows: Node ID and CP F-SEID IPv6; PDR 1 downlink (UE IP V6 destination, "
        "QER IDs 2 and 3); PDR 2 voice uplink (F-TEID V6, SDF filter UDP 1000-2000 from "
        "2001:db8::/64, QFI 1, QER 1, Outer Header Removal GTP-U/UDP/IPv6); PDR 3 web uplink "
        "(the same F-TEID, TCP 80,443 from 2001:db8:1::/48, QFI 2, QER 2, shared with PDR 1); "
        "FAR 1 Outer Header Creation GTP-U/UDP/IPv6; PDN Type IPv6; QER 1 GBR (MBR 128/128, GBR "
        "64/64 kbps, RQI 0, PPI 1), QER 2 (MBR 10 Mbps up, 200 Mbps down, RQI 1, QER "
        "Correlation ID 0x1234), QER 3 (QFI 9, uplink gate closed)",
        {
            "message_type": 50,
            "seq": 21,
            "node_id": CP_V6,
            "cp_f_seid": {"seid": CP_SEID, "ipv6": CP_V6},
            "pdn_type": 2,
            "pdrs": [
                {"id": 1, "ue_ipv6": UE_V6, "ue_destination": True, "qer_ids": [2, 3]},
                {"id": 2, "teid": 0x11, "f_teid_ipv6": UPF_N3_V6, "flow": FLOW_VOICE,
                 "qfi": 1, "qer_ids": [1], "outer_header_removal": 1},
                {"id": 3, "teid": 0x11, "f_teid_ipv6": UPF_N3_V6, "flow": FLOW_WEB,
                 "qfi": 2, "qer_ids": [2], "outer_header_removal": 1},
            ],
            "fars": [{"id": 1, "ohc_teid": 0x22, "ohc_ipv6": GNB_V6}, {"id": 2}],
            "qers": [
                {"id": 1, "gate": [0, 0], "mbr": [128, 128], "gbr": [64, 64], "qfi": 1,
                 "rqi": False, "ppi": 1},
                {"id": 2, "gate": [0, 0], "mbr": [10_000_000, 200_000_000], "qfi": 2,
                 "rqi": True, "qer_correlation_id": 0x1234},
                {"id": 3, "gate": [1, 0], "qfi": 9},
            ],
        },
    ),
    (
        "session_establishment_request_dual_stack",
        dual_stack_session(),
        "Session Establishment Request of a dual-stack UE: CP F-SEID with IPv4 and IPv6; UE IP "
        "Address V4 10.45.0.2 and V6 2001:db8:45:2:: with IPv6D (4 bits: a /60); uplink F-TEID "
        "CH with V4, V6 and CHOOSE ID 7; Outer Header Removal GTP-U/UDP/IP (6); FAR 1 Outer "
        "Header Creation GTP-U/UDP/IPv4 and GTP-U/UDP/IPv6 (TEID 0x22 to 192.168.13.131 and "
        "2001:db8:13::131); PDN Type IPv4v6",
        {
            "message_type": 50,
            "seq": 22,
            "node_id": CP_V4,
            "cp_f_seid": {"seid": CP_SEID, "ipv4": CP_V4, "ipv6": CP_V6},
            "pdn_type": 3,
            "pdrs": [
                {"id": 1, "ue_ipv4": UE_V4, "ue_ipv6": UE_V6, "ue_prefix_len": 60,
                 "ue_destination": True, "qer_ids": [1]},
                {"id": 2, "choose": {"ipv4": True, "ipv6": True, "choose_id": 7},
                 "ue_ipv4": UE_V4, "ue_ipv6": UE_V6, "ue_prefix_len": 60,
                 "outer_header_removal": 6, "qer_ids": [1]},
            ],
            "fars": [{"id": 1, "ohc_teid": 0x22, "ohc_ipv4": GNB_V4, "ohc_ipv6": GNB_V6},
                     {"id": 2}],
            "qers": [{"id": 1, "gate": [0, 0], "mbr": [1_000_000, 1_000_000], "qfi": 5}],
        },
    ),
    (
        "session_establishment_request_upf_chooses_ue_addresses",
        ue_chooses_addresses(),
        "Session Establishment Request whose downlink PDI asks the UPF for the UE's addresses "
        "(UE IP Address S/D, CHV4, CHV6, IPv6D 4: a /60) and whose uplink PDI names a /56 (V6 "
        "2001:db8:45:100::, IP6PL 56); uplink F-TEID CH with V6 only",
        {
            "message_type": 50,
            "seq": 23,
            "node_id": CP_V6,
            "pdrs": [
                {"id": 1, "ue_choose": [True, True], "ue_prefix_len": 60,
                 "ue_destination": True, "qer_ids": []},
                {"id": 2, "choose": {"ipv4": False, "ipv6": True, "choose_id": None},
                 "ue_ipv6": "2001:db8:45:100::", "ue_prefix_len": 56, "qer_ids": []},
            ],
        },
    ),
    (
        "session_establishment_response_created_ue_addresses",
        created_addresses(),
        "Session Establishment Response with the UPF's IPv6 Node ID and UP F-SEID, Created PDR "
        "1 with the UE addresses it allocated (V4 10.45.0.2, V6 2001:db8:45:2:: with IPv6D 4) "
        "and Created PDR 2 with the F-TEID (TEID 0x1234 at 2001:db8:13::151)",
        {
            "message_type": 51,
            "seq": 23,
            "seid": CP_SEID,
            "node_id": UPF_V6,
            "cause": 1,
            "up_f_seid": {"seid": UP_SEID, "ipv6": UPF_V6},
            "created_pdrs": [
                {"id": 1, "ue_ipv4": UE_V4, "ue_ipv6": UE_V6, "ue_prefix_len": 60},
                {"id": 2, "teid": 0x1234, "f_teid_ipv6": UPF_N3_V6},
            ],
        },
    ),
    (
        "session_modification_request_gates_closed",
        gate_closed(),
        "Session Modification Request closing the gates of QERs 2 and 3 both ways: Update QER "
        "with QER ID and Gate Status (UL and DL CLOSED) only",
        {
            "message_type": 52,
            "seq": 24,
            "seid": UP_SEID,
            "update_qers": [{"id": 2, "gate": [1, 1]}, {"id": 3, "gate": [1, 1]}],
        },
    ),
    (
        "session_establishment_response_cause_69",
        rejected(69, 93, 25),
        "Session Establishment Response: Cause 69 (Mandatory IE incorrect), Offending IE UE IP "
        "Address (93)",
        {"message_type": 51, "seq": 25, "cause": 69, "offending_ie": 93},
    ),
    (
        "session_establishment_response_cause_72",
        rejected(72, 60, 26),
        "Session Establishment Response: Cause 72 (No established PFCP Association), Offending "
        "IE Node ID (60)",
        {"message_type": 51, "seq": 26, "cause": 72, "offending_ie": 60},
    ),
    (
        "session_modification_response_cause_74",
        rejected(74, 158, 27, modification=True),
        "Session Modification Response: Cause 74 (PFCP entity in congestion), Offending IE "
        "Paging Policy Indicator (158)",
        {"message_type": 53, "seq": 27, "cause": 74, "offending_ie": 158},
    ),
]

print(
    json.dumps(
        {
            "generator": "Scapy 2.5.0, make_pfcp_v6_qos.py",
            "vectors": [
                {
                    "name": name,
                    "description": description + " (bytes start at the PFCP header)",
                    "hex": bytes(msg).hex(),
                    "fields": fields,
                }
                for name, msg, description, fields in VECTORS
            ],
        },
        indent=1,
    )
)
