//! What the nodes put on the wire, dissected by tshark: an association, establishments (ours
//! and UPF-chosen TEIDs), a rejection with Failed Rule ID, heartbeats both ways, a
//! modification, a deletion and the release, with no malformed packet or expert warning, and
//! the message types, sequence numbers and causes tshark reads equal to ours.

mod common;

use std::time::Duration;

use common::net::*;
use common::pcap;
use upfbench_pfcp::plan::UplinkTeid;
use upfbench_pfcp::{Message, MessageBody, Teid};

#[test]
fn a_whole_exchange_dissects_cleanly() {
    let net = run_whole_exchange();
    let payloads: Vec<Vec<u8>> = net.captured.iter().map(|c| c.bytes.clone()).collect();
    let ours: Vec<Message> = payloads
        .iter()
        .map(|b| Message::parse(b).unwrap())
        .collect();
    check_every_message_type_is_there(&ours);
    let path = pcap::temp_pcap("node-exchange");
    pcap::write_pcap(&path, &payloads);
    pcap::assert_clean_dissection(&path, payloads.len());
    check_tshark_reads_our_fields(&path, &ours);
}

/// Association, establishments (ours, UPF-chosen TEIDs, a clash), heartbeats both ways (client
/// every 4 s, UPF side every 10 s), a path switch, a deletion and the release, captured.
fn run_whole_exchange() -> Net {
    let mut c = client_config();
    c.node.heartbeat_interval = Some(Duration::from_secs(4));
    let mut net = Net::new(c, upf_config(), 11);
    net.capture = true;
    net.associate();
    let p = plan(0);
    net.client.establish(net.now, &p).unwrap();
    let mut chosen = plan(1);
    chosen.ue.uplink_teid = UplinkTeid::ChosenByUpf;
    net.client.establish(net.now, &chosen).unwrap();
    let mut clash = plan(2);
    clash.ue.uplink_teid = UplinkTeid::Assigned(Teid(1));
    net.client.establish(net.now, &clash).unwrap();
    net.settle();
    // Heartbeats both ways (client every 4 s, UPF side every 10 s).
    net.run_for(Duration::from_secs(11));
    net.client
        .modify(
            net.now,
            p.cp_seid(),
            p.path_switch_request(Teid(70), GNB_N3.into(), true),
        )
        .unwrap();
    net.client.delete(net.now, chosen.cp_seid()).unwrap();
    net.settle();
    net.client.release(net.now).unwrap();
    net.settle();
    net
}

/// Every message type of the exchange was captured.
fn check_every_message_type_is_there(ours: &[Message]) {
    let types: Vec<u8> = ours.iter().map(|m| m.message_type().0).collect();
    for t in [5, 6, 50, 51, 1, 2, 52, 53, 54, 55, 9, 10] {
        assert!(
            types.contains(&t),
            "message type {t} missing from {types:?}"
        );
    }
}

/// tshark reads our message types, sequence numbers, causes and SNDEM flags, one failed PDR
/// and two Recovery Time Stamps.
fn check_tshark_reads_our_fields(path: &std::path::Path, ours: &[Message]) {
    let rows = pcap::fields(
        path,
        &[
            "pfcp.msg_type",
            "pfcp.seqno",
            "pfcp.cause",
            "pfcp.failed_rule_id_type",
            "pfcp.recovery_time_stamp",
            "pfcp.smreq_flags.sndem",
        ],
    );
    assert_eq!(rows.len(), ours.len());
    let mut failed_rules = 0;
    let mut stamps = std::collections::BTreeSet::new();
    for (row, m) in rows.iter().zip(ours) {
        assert_eq!(row[0], m.message_type().0.to_string());
        assert_eq!(row[1], m.sequence.get().to_string());
        let cause = match &m.body {
            MessageBody::AssociationSetupResponse(r) => Some(r.cause),
            MessageBody::AssociationReleaseResponse(r) => Some(r.cause),
            MessageBody::SessionEstablishmentResponse(r) => Some(r.cause),
            MessageBody::SessionModificationResponse(r) => Some(r.cause),
            MessageBody::SessionDeletionResponse(r) => Some(r.cause),
            _ => None,
        };
        assert_eq!(row[2], cause.map(|c| c.0.to_string()).unwrap_or_default());
        if !row[3].is_empty() {
            assert_eq!(row[3], "0", "the failed rule is a PDR");
            failed_rules += 1;
        }
        if !row[4].is_empty() {
            stamps.insert(row[4].clone());
        }
        // The path switch asks for an End Marker (SNDEM), and only it carries the flags.
        let sndem = if m.message_type().0 == 52 { "1" } else { "" };
        assert_eq!(
            row[5],
            sndem,
            "SNDEM of message type {}",
            m.message_type().0
        );
    }
    // Each side's Recovery Time Stamp never changed: two values in the whole capture.
    assert_eq!(stamps.len(), 2, "{stamps:?}");
    assert_eq!(failed_rules, 1);
}
