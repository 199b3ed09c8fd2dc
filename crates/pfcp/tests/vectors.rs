//! The reference vectors (testdata/pfcp.json, made by Scapy): every vector decodes to
//! the listed fields and re-encodes byte for byte.

mod common;

use common::vectors::{hex, vectors};
use serde_json::{Value, json};
use upfbench_pfcp::ie::{
    ApplyAction, CreateFar, CreatePdr, CreateQer, Fteid, NodeId, PfcpsmReqFlags,
    UpFunctionFeatures, UpdateFar,
};
use upfbench_pfcp::{Message, MessageBody};

/// Places where the listed fields contradict the vector's own bytes and description.
/// (vector, JSON pointer into "fields", listed value, value the bytes hold, why)
const ERRATA: &[(&str, &str, i64, i64, &str)] = &[(
    "session_establishment_request",
    "/pdrs/0/source_interface",
    2,
    1,
    "the bytes (IE 20 = 0x01) and the description say Core (1); 2 is SGi-LAN/N6-LAN",
)];

fn node_id(n: &NodeId) -> Value {
    match n {
        NodeId::Ipv4(a) => json!(a.to_string()),
        NodeId::Ipv6(a) => json!(a.to_string()),
        NodeId::Fqdn(d) => json!(d.to_string()),
    }
}

fn apply_action_names(a: ApplyAction) -> String {
    let names = [
        (ApplyAction::DROP, "DROP"),
        (ApplyAction::FORW, "FORW"),
        (ApplyAction::BUFF, "BUFF"),
    ];
    let set: Vec<&str> = names
        .iter()
        .filter(|(m, _)| a.contains(*m))
        .map(|(_, n)| *n)
        .collect();
    set.join("|")
}

/// The decoded value of one listed field.
fn field(msg: &Message, key: &str, listed: &Value) -> Value {
    let b = &msg.body;
    match (key, b) {
        ("message_type", _) => json!(msg.message_type().0),
        ("seq", _) => json!(msg.sequence.get()),
        ("seid", _) => json!(msg.seid.unwrap().0),
        ("recovery_time_stamp", MessageBody::HeartbeatRequest(m)) => json!(m.recovery_time_stamp.0),
        ("recovery_time_stamp", MessageBody::HeartbeatResponse(m)) => {
            json!(m.recovery_time_stamp.0)
        }
        ("node_id", MessageBody::AssociationSetupRequest(m)) => node_id(&m.node_id),
        ("node_id", MessageBody::AssociationSetupResponse(m)) => node_id(&m.node_id),
        ("cause", MessageBody::AssociationSetupResponse(m)) => json!(m.cause.0),
        ("cause", MessageBody::SessionEstablishmentResponse(m)) => json!(m.cause.0),
        ("cause", MessageBody::SessionModificationResponse(m)) => json!(m.cause.0),
        ("cause", MessageBody::SessionDeletionResponse(m)) => json!(m.cause.0),
        ("ftup", MessageBody::AssociationSetupResponse(m)) => {
            json!(
                m.up_function_features
                    .unwrap()
                    .contains(UpFunctionFeatures::FTUP)
            )
        }
        ("cp_seid", MessageBody::SessionEstablishmentRequest(m)) => json!(m.cp_f_seid.seid.0),
        ("up_seid", MessageBody::SessionEstablishmentResponse(m)) => {
            json!(m.up_f_seid.unwrap().seid.0)
        }
        ("offending_ie", MessageBody::SessionEstablishmentResponse(m)) => {
            json!(m.offending_ie.unwrap().0.0)
        }
        ("pdrs", MessageBody::SessionEstablishmentRequest(m)) => pdrs(listed, &m.create_pdrs),
        ("fars", MessageBody::SessionEstablishmentRequest(m)) => fars(listed, &m.create_fars),
        ("update_fars", MessageBody::SessionModificationRequest(m)) => {
            update_fars(listed, &m.update_fars)
        }
        ("qers", MessageBody::SessionEstablishmentRequest(m)) => qers(listed, &m.create_qers),
        _ => panic!("no extractor for field {key} of {}", msg.message_type()),
    }
}

/// The listed Create PDRs' fields, decoded.
fn pdrs(listed: &Value, got: &[CreatePdr]) -> Value {
    let want = listed.as_array().unwrap();
    assert_eq!(want.len(), got.len());
    Value::Array(
        want.iter()
            .zip(got)
            .map(|(w, p)| {
                sub(w, |k| match k {
                    "id" => json!(p.pdr_id.0),
                    "source_interface" => json!(p.pdi.source_interface.get()),
                    "ue_ip" => {
                        json!(p.pdi.ue_ip_address.unwrap().ipv4.unwrap().to_string())
                    }
                    "far_id" => json!(p.far_id.unwrap().0),
                    "teid" => json!(p.pdi.local_f_teid.unwrap().teid().unwrap().0),
                    "f_teid_ipv4" => match p.pdi.local_f_teid.unwrap() {
                        Fteid::Assigned { ipv4, .. } => json!(ipv4.unwrap().to_string()),
                        Fteid::Choose { .. } => Value::Null,
                    },
                    "qfi" => json!(p.pdi.qfi.unwrap().get()),
                    "outer_header_removal" => {
                        json!(p.outer_header_removal.unwrap().description)
                    }
                    _ => panic!("unknown PDR field {k}"),
                })
            })
            .collect(),
    )
}

/// The listed Create FARs' fields, decoded.
fn fars(listed: &Value, got: &[CreateFar]) -> Value {
    let want = listed.as_array().unwrap();
    assert_eq!(want.len(), got.len());
    Value::Array(
        want.iter()
            .zip(got)
            .map(|(w, f)| {
                let fp = f.forwarding_parameters.as_ref().unwrap();
                sub(w, |k| match k {
                    "id" => json!(f.far_id.0),
                    "apply_action" => json!(apply_action_names(f.apply_action)),
                    "destination_interface" => json!(fp.destination_interface.get()),
                    "ohc_teid" => json!(fp.outer_header_creation.unwrap().teid.unwrap().0),
                    "ohc_ipv4" => {
                        json!(fp.outer_header_creation.unwrap().ipv4.unwrap().to_string())
                    }
                    _ => panic!("unknown FAR field {k}"),
                })
            })
            .collect(),
    )
}

/// The listed Update FARs' fields, decoded.
fn update_fars(listed: &Value, got: &[UpdateFar]) -> Value {
    let want = listed.as_array().unwrap();
    assert_eq!(want.len(), got.len());
    Value::Array(
        want.iter()
            .zip(got)
            .map(|(w, f)| {
                let fp = f.update_forwarding_parameters.as_ref().unwrap();
                sub(w, |k| match k {
                    "id" => json!(f.far_id.0),
                    "apply_action" => json!(apply_action_names(f.apply_action.unwrap())),
                    "destination_interface" => {
                        json!(fp.destination_interface.unwrap().get())
                    }
                    "ohc_teid" => json!(fp.outer_header_creation.unwrap().teid.unwrap().0),
                    "ohc_ipv4" => {
                        json!(fp.outer_header_creation.unwrap().ipv4.unwrap().to_string())
                    }
                    "sndem" => json!(
                        fp.pfcpsm_req_flags
                            .is_some_and(|f| f.contains(PfcpsmReqFlags::SNDEM))
                    ),
                    _ => panic!("unknown Update FAR field {k}"),
                })
            })
            .collect(),
    )
}

/// The listed Create QERs' fields, decoded.
fn qers(listed: &Value, got: &[CreateQer]) -> Value {
    let want = listed.as_array().unwrap();
    assert_eq!(want.len(), got.len());
    Value::Array(
        want.iter()
            .zip(got)
            .map(|(w, q)| {
                sub(w, |k| match k {
                    "id" => json!(q.qer_id.0),
                    "mbr_ul_kbps" => json!(q.mbr.unwrap().ul_kbps),
                    "mbr_dl_kbps" => json!(q.mbr.unwrap().dl_kbps),
                    "gbr_ul_kbps" => json!(q.gbr.unwrap().ul_kbps),
                    "gbr_dl_kbps" => json!(q.gbr.unwrap().dl_kbps),
                    "qfi" => json!(q.qfi.unwrap().get()),
                    _ => panic!("unknown QER field {k}"),
                })
            })
            .collect(),
    )
}

fn sub(want: &Value, get: impl Fn(&str) -> Value) -> Value {
    Value::Object(
        want.as_object()
            .unwrap()
            .keys()
            .map(|k| (k.clone(), get(k)))
            .collect(),
    )
}

#[test]
fn every_vector_decodes_to_its_fields_and_reencodes_byte_for_byte() {
    let vs = vectors();
    assert_eq!(vs.len(), 14, "the vector file changed: review this test");
    let mut errata = 0;
    for v in &vs {
        let name = v["name"].as_str().unwrap();
        let bytes = hex(v["hex"].as_str().unwrap());
        let msg = Message::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));

        let mut listed = v["fields"].clone();
        for (vec, ptr, was, is, why) in ERRATA {
            if *vec == name {
                let slot = listed.pointer_mut(ptr).unwrap();
                assert_eq!(
                    slot.as_i64(),
                    Some(*was),
                    "{name}{ptr}: erratum fixed upstream? ({why})"
                );
                *slot = json!(is);
                errata += 1;
            }
        }
        let got = sub(&listed, |k| field(&msg, k, &listed[k]));
        assert_eq!(got, listed, "{name}: decoded fields differ");

        let out = msg.to_vec().unwrap();
        assert_eq!(out, bytes, "{name}: re-encoding differs");
        assert_eq!(msg.buffer_len(), bytes.len(), "{name}: buffer_len");
        assert!(
            msg_has_no_kept_ies(&msg),
            "{name}: the vectors use only IEs the codec types, nothing should be kept raw"
        );
    }
    // Every erratum met its vector: one whose vector was renamed would hide nothing.
    assert_eq!(errata, ERRATA.len(), "errata applied");
}

fn msg_has_no_kept_ies(msg: &Message) -> bool {
    match &msg.body {
        MessageBody::SessionEstablishmentRequest(m) => {
            m.other_ies.is_empty()
                && m.create_pdrs
                    .iter()
                    .all(|p| p.other_ies.is_empty() && p.pdi.other_ies.is_empty())
                && m.create_fars.iter().all(|f| {
                    f.other_ies.is_empty()
                        && f.forwarding_parameters
                            .as_ref()
                            .is_none_or(|p| p.other_ies.is_empty())
                })
                && m.create_qers.iter().all(|q| q.other_ies.is_empty())
        }
        MessageBody::SessionModificationRequest(m) => {
            m.other_ies.is_empty()
                && m.update_fars.iter().all(|f| {
                    f.other_ies.is_empty()
                        && f.update_forwarding_parameters
                            .as_ref()
                            .is_none_or(|p| p.other_ies.is_empty())
                })
        }
        MessageBody::SessionEstablishmentResponse(m) => {
            m.other_ies.is_empty() && m.created_pdrs.iter().all(|c| c.other_ies.is_empty())
        }
        MessageBody::HeartbeatRequest(m) => m.other_ies.is_empty(),
        MessageBody::HeartbeatResponse(m) => m.other_ies.is_empty(),
        MessageBody::AssociationSetupRequest(m) => m.other_ies.is_empty(),
        MessageBody::AssociationSetupResponse(m) => m.other_ies.is_empty(),
        MessageBody::AssociationReleaseRequest(m) => m.other_ies.is_empty(),
        MessageBody::SessionModificationResponse(m) => m.other_ies.is_empty(),
        MessageBody::SessionDeletionRequest(m) => m.other_ies.is_empty(),
        MessageBody::SessionDeletionResponse(m) => m.other_ies.is_empty(),
        _ => false,
    }
}

#[test]
fn apply_action_of_the_vectors_is_one_octet_and_kept_so() {
    // The reference client sends a 1-octet Apply Action (which Open5GS 2.8 drops); decoding
    // keeps the width so that the bytes come back, while new FARs get 2 octets.
    let v = vectors()
        .into_iter()
        .find(|v| v["name"] == "session_establishment_request")
        .unwrap();
    let msg = Message::parse(&hex(v["hex"].as_str().unwrap())).unwrap();
    let MessageBody::SessionEstablishmentRequest(m) = msg.body else {
        panic!()
    };
    assert!(m.create_fars.iter().all(|f| f.apply_action.octets() == 1));
    assert_eq!(ApplyAction::new(ApplyAction::FORW).octets(), 2);
}

#[test]
fn the_handover_vector_is_what_the_plan_sends() {
    // The Scapy-made Session Modification Request of a handover and the plan's own
    // `path_switch_request` to the same target carry the same Update FAR, byte for byte.
    let v = vectors()
        .into_iter()
        .find(|v| v["name"] == "session_modification_request_sndem")
        .unwrap();
    let bytes = hex(v["hex"].as_str().unwrap());
    let msg = Message::parse(&bytes).unwrap();
    let MessageBody::SessionModificationRequest(m) = &msg.body else {
        panic!()
    };
    let flags = m.update_fars[0]
        .update_forwarding_parameters
        .as_ref()
        .and_then(|p| p.pfcpsm_req_flags)
        .unwrap();
    assert_eq!((flags.bits(), flags.octets()), (PfcpsmReqFlags::SNDEM, 1));
    let plan = common::plans::reference_plan();
    let mut ours = plan.path_switch_request(
        upfbench_pfcp::Teid(0x2000_0002),
        std::net::Ipv4Addr::new(192, 168, 13, 132).into(),
        true,
    );
    // The vector's Apply Action has one octet (Scapy's), ours two.
    let far = &mut ours.update_fars[0];
    far.apply_action = Some(ApplyAction::with_octets(ApplyAction::FORW, 1));
    assert_eq!(m.update_fars, ours.update_fars);
}
