#!/usr/bin/python3
"""The handover reference vector of pfcp.json, made by Scapy (Debian's python3-scapy):
a Session Modification Request as an SMF sends it in an Xn handover (TS 23.502 §4.9.1.2.2):
Update FAR 1 with Update Forwarding Parameters carrying the target gNB's Outer Header Creation
and PFCPSMReq-Flags SNDEM (TS 29.244 §8.2.69). Prints the vector as JSON; it is kept in
pfcp.json's "vectors" list."""

import json

from scapy.contrib.pfcp import (
    PFCP,
    IE_ApplyAction,
    IE_DestinationInterface,
    IE_FAR_Id,
    IE_OuterHeaderCreation,
    IE_PFCPSMReqFlags,
    IE_UpdateFAR,
    IE_UpdateForwardingParameters,
    PFCPSessionModificationRequest,
)

msg = PFCP(version=1, S=1, seid=1, seq=7) / PFCPSessionModificationRequest(
    IE_list=[
        IE_UpdateFAR(
            IE_list=[
                IE_FAR_Id(id=1),
                IE_ApplyAction(FORW=1),
                IE_UpdateForwardingParameters(
                    IE_list=[
                        IE_DestinationInterface(interface="Access"),
                        IE_OuterHeaderCreation(
                            GTPUUDPIPV4=1, TEID=0x20000002, ipv4="192.168.13.132"
                        ),
                        IE_PFCPSMReqFlags(SNDEM=1),
                    ]
                ),
            ]
        )
    ]
)
print(
    json.dumps(
        {
            "name": "session_modification_request_sndem",
            "description": "Session Modification Request of an Xn handover: Update FAR 1 (FORW) "
            "with Update Forwarding Parameters: Destination Interface Access, Outer Header "
            "Creation GTP-U/UDP/IPv4 TEID 0x20000002 to 192.168.13.132, PFCPSMReq-Flags "
            "SNDEM (bytes start at the PFCP header)",
            "fields": {
                "message_type": 52,
                "seq": 7,
                "seid": 1,
                "update_fars": [
                    {
                        "id": 1,
                        "apply_action": "FORW",
                        "destination_interface": 0,
                        "ohc_teid": 0x20000002,
                        "ohc_ipv4": "192.168.13.132",
                        "sndem": True,
                    }
                ],
            },
            "hex": bytes(msg).hex(),
        },
        indent=2,
    )
)
