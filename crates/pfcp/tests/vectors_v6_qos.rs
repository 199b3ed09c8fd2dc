//! The IPv6 and QoS reference vectors (testdata/pfcp_v6_qos.json, made by Scapy with
//! testdata/make_pfcp_v6_qos.py): every vector decodes to the listed fields and re-encodes byte
//! for byte; the gate-closing request is what `plan::gate_request` builds; the client names the
//! Cause and the Offending IE of the rejections (69, 72, 74). tests/tshark.rs dissects them.

mod common;

use common::net::*;
use common::vectors::hex;
use serde_json::{Value, json};
use upfbench_pfcp::header::Header;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::SessionEstablishmentRequest;
use upfbench_pfcp::node::{Event, NodeError, Procedure};
use upfbench_pfcp::plan::gate_request;
use upfbench_pfcp::{Message, MessageBody, QerId, Seid, SequenceNumber};

/// Every vector of pfcp_v6_qos.json: name, hex, description, fields.
fn vectors() -> Vec<Value> {
    let v: Value = serde_json::from_str(include_str!("../testdata/pfcp_v6_qos.json")).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

fn vector(name: &str) -> Vec<u8> {
    let v = vectors().into_iter().find(|v| v["name"] == name).unwrap();
    hex(v["hex"].as_str().unwrap())
}

fn fseid(f: &Fseid) -> Value {
    let mut v = json!({ "seid": f.seid.0 });
    if let Some(a) = f.ipv4 {
        v["ipv4"] = json!(a.to_string());
    }
    if let Some(a) = f.ipv6 {
        v["ipv6"] = json!(a.to_string());
    }
    v
}

fn node_id(n: &NodeId) -> Value {
    match n {
        NodeId::Ipv4(a) => json!(a.to_string()),
        NodeId::Ipv6(a) => json!(a.to_string()),
        NodeId::Fqdn(d) => json!(d.to_string()),
    }
}

/// The decoded value of one listed field of a message.
fn field(msg: &Message, key: &str, listed: &Value) -> Value {
    match (key, &msg.body) {
        ("message_type", _) => json!(msg.message_type().0),
        ("seq", _) => json!(msg.sequence.get()),
        ("seid", _) => json!(msg.seid.unwrap().0),
        ("node_id", MessageBody::SessionEstablishmentRequest(m)) => node_id(&m.node_id),
        ("node_id", MessageBody::SessionEstablishmentResponse(m)) => node_id(&m.node_id),
        ("cp_f_seid", MessageBody::SessionEstablishmentRequest(m)) => fseid(&m.cp_f_seid),
        ("up_f_seid", MessageBody::SessionEstablishmentResponse(m)) => {
            fseid(m.up_f_seid.as_ref().unwrap())
        }
        ("pdn_type", MessageBody::SessionEstablishmentRequest(m)) => {
            json!(m.pdn_type.unwrap().get())
        }
        ("pdrs", MessageBody::SessionEstablishmentRequest(m)) => each(listed, &m.create_pdrs, pdr),
        ("fars", MessageBody::SessionEstablishmentRequest(m)) => each(listed, &m.create_fars, far),
        ("qers", MessageBody::SessionEstablishmentRequest(m)) => each(listed, &m.create_qers, qer),
        ("created_pdrs", MessageBody::SessionEstablishmentResponse(m)) => {
            each(listed, &m.created_pdrs, created_pdr)
        }
        ("update_qers", MessageBody::SessionModificationRequest(m)) => {
            each(listed, &m.update_qers, |k, q| match k {
                "id" => json!(q.qer_id.0),
                "gate" => gate(q.gate_status.unwrap()),
                _ => panic!("unknown Update QER field {k}"),
            })
        }
        ("cause", MessageBody::SessionEstablishmentResponse(m)) => json!(m.cause.0),
        ("cause", MessageBody::SessionModificationResponse(m)) => json!(m.cause.0),
        ("offending_ie", MessageBody::SessionEstablishmentResponse(m)) => {
            json!(m.offending_ie.unwrap().0.0)
        }
        ("offending_ie", MessageBody::SessionModificationResponse(m)) => {
            json!(m.offending_ie.unwrap().0.0)
        }
        _ => panic!("no extractor for field {key} of {}", msg.message_type()),
    }
}

/// The listed fields of each element of `got`, in order.
fn each<T>(listed: &Value, got: &[T], get: impl Fn(&str, &T) -> Value) -> Value {
    let want = listed.as_array().unwrap();
    assert_eq!(want.len(), got.len());
    let rows = want.iter().zip(got).map(|(w, x)| sub(w, |k| get(k, x)));
    Value::Array(rows.collect())
}

fn sub(want: &Value, get: impl Fn(&str) -> Value) -> Value {
    let keys = want.as_object().unwrap().keys();
    Value::Object(keys.map(|k| (k.clone(), get(k))).collect())
}

fn gate(g: GateStatus) -> Value {
    json!([g.ul.get(), g.dl.get()])
}

fn rates(b: Option<BitRate>) -> Value {
    let b = b.unwrap();
    json!([b.ul_kbps, b.dl_kbps])
}

/// A field of a UE IP Address, or `None` when the key is not about one.
fn ue(k: &str, u: Option<UeIpAddress>) -> Option<Value> {
    let u = u?;
    Some(match k {
        "ue_ipv4" => json!(u.ipv4.unwrap().to_string()),
        "ue_ipv6" => json!(u.ipv6.unwrap().to_string()),
        "ue_prefix_len" => json!(u.ipv6_prefix_len().unwrap()),
        "ue_destination" => json!(u.is_destination),
        "ue_choose" => json!([u.choose_ipv4, u.choose_ipv6]),
        _ => return None,
    })
}

/// A field of an F-TEID, or `None` when the key is not about one.
fn fteid(k: &str, f: Option<Fteid>) -> Option<Value> {
    Some(match (k, f?) {
        ("teid", f) => json!(f.teid().unwrap().0),
        ("f_teid_ipv6", Fteid::Assigned { ipv6, .. }) => json!(ipv6.unwrap().to_string()),
        (
            "choose",
            Fteid::Choose {
                ipv4,
                ipv6,
                choose_id,
            },
        ) => json!({ "ipv4": ipv4, "ipv6": ipv6, "choose_id": choose_id }),
        _ => return None,
    })
}

fn pdr(k: &str, p: &CreatePdr) -> Value {
    if let Some(v) = ue(k, p.pdi.ue_ip_address).or_else(|| fteid(k, p.pdi.local_f_teid)) {
        return v;
    }
    match k {
        "id" => json!(p.pdr_id.0),
        "qer_ids" => json!(p.qer_ids.iter().map(|q| q.0).collect::<Vec<_>>()),
        "qfi" => json!(p.pdi.qfi.unwrap().get()),
        "outer_header_removal" => json!(p.outer_header_removal.unwrap().description),
        "flow" => json!(
            p.pdi.sdf_filters[0]
                .parse_flow()
                .unwrap()
                .unwrap()
                .to_string()
        ),
        _ => panic!("unknown PDR field {k}"),
    }
}

fn created_pdr(k: &str, p: &CreatedPdr) -> Value {
    match k {
        "id" => json!(p.pdr_id.0),
        _ => ue(k, p.ue_ip_address)
            .or_else(|| fteid(k, p.local_f_teid))
            .unwrap_or_else(|| panic!("unknown Created PDR field {k}")),
    }
}

fn far(k: &str, f: &CreateFar) -> Value {
    let ohc = || {
        let fp = f.forwarding_parameters.as_ref().unwrap();
        fp.outer_header_creation.unwrap()
    };
    match k {
        "id" => json!(f.far_id.0),
        "ohc_teid" => json!(ohc().teid.unwrap().0),
        "ohc_ipv4" => json!(ohc().ipv4.unwrap().to_string()),
        "ohc_ipv6" => json!(ohc().ipv6.unwrap().to_string()),
        _ => panic!("unknown FAR field {k}"),
    }
}

fn qer(k: &str, q: &CreateQer) -> Value {
    match k {
        "id" => json!(q.qer_id.0),
        "gate" => gate(q.gate_status),
        "mbr" => rates(q.mbr),
        "gbr" => rates(q.gbr),
        "qfi" => json!(q.qfi.unwrap().get()),
        "rqi" => json!(q.rqi.unwrap().0),
        "ppi" => json!(q.paging_policy_indicator.unwrap().get()),
        "qer_correlation_id" => json!(q.qer_correlation_id.unwrap().0),
        _ => panic!("unknown QER field {k}"),
    }
}

#[test]
fn every_vector_decodes_to_its_fields_and_reencodes_byte_for_byte() {
    let vs = vectors();
    assert_eq!(vs.len(), 8, "the vector file changed: review this test");
    for v in &vs {
        let name = v["name"].as_str().unwrap();
        let bytes = hex(v["hex"].as_str().unwrap());
        let msg = Message::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let listed = &v["fields"];
        let got = sub(listed, |k| field(&msg, k, &listed[k]));
        assert_eq!(&got, listed, "{name}: decoded fields differ");
        assert_eq!(msg.to_vec().unwrap(), bytes, "{name}: re-encoding differs");
        assert_eq!(msg.buffer_len(), bytes.len(), "{name}: buffer_len");
        assert!(nothing_kept_raw(&msg), "{name}: an IE was kept raw");
    }
}

/// Whether every IE of the message was typed (none left in an `other_ies`).
fn nothing_kept_raw(msg: &Message) -> bool {
    match &msg.body {
        MessageBody::SessionEstablishmentRequest(m) => request_typed(m),
        MessageBody::SessionEstablishmentResponse(m) => {
            m.other_ies.is_empty() && m.created_pdrs.iter().all(|c| c.other_ies.is_empty())
        }
        MessageBody::SessionModificationRequest(m) => {
            m.other_ies.is_empty() && m.update_qers.iter().all(|q| q.other_ies.is_empty())
        }
        MessageBody::SessionModificationResponse(m) => m.other_ies.is_empty(),
        _ => false,
    }
}

fn request_typed(m: &SessionEstablishmentRequest) -> bool {
    m.other_ies.is_empty()
        && m.create_pdrs
            .iter()
            .all(|p| p.other_ies.is_empty() && p.pdi.other_ies.is_empty())
        && m.create_fars.iter().all(|f| {
            let fp = f.forwarding_parameters.as_ref();
            f.other_ies.is_empty() && fp.is_none_or(|p| p.other_ies.is_empty())
        })
        && m.create_qers.iter().all(|q| q.other_ies.is_empty())
}

#[test]
fn pdrs_name_several_qers_and_share_them() {
    let msg = Message::parse(&vector("session_establishment_request_ipv6_three_flows")).unwrap();
    let MessageBody::SessionEstablishmentRequest(r) = msg.body else {
        panic!()
    };
    let naming = |q: u32| -> Vec<u16> {
        let pdrs = r.create_pdrs.iter();
        let named = pdrs.filter(|p| p.qer_ids.contains(&QerId(q)));
        named.map(|p| p.pdr_id.0).collect()
    };
    // The downlink PDR names two QERs; QER 2 serves the downlink and the web uplink.
    assert_eq!(r.create_pdrs[0].qer_ids, [QerId(2), QerId(3)]);
    assert_eq!(
        (naming(1), naming(2), naming(3)),
        (vec![2], vec![1, 3], vec![1])
    );
    // The GBR flow is the one QER with a GBR; QER 3's uplink gate alone is closed.
    let gbr: Vec<u32> = r
        .create_qers
        .iter()
        .filter(|q| q.gbr.is_some())
        .map(|q| q.qer_id.0)
        .collect();
    assert_eq!(gbr, [1]);
    let gates: Vec<(bool, bool)> = r
        .create_qers
        .iter()
        .map(|q| (q.gate_status.ul.is_open(), q.gate_status.dl.is_open()))
        .collect();
    assert_eq!(gates, [(true, true), (true, true), (false, true)]);
}

#[test]
fn the_gate_closing_vector_is_what_the_plan_builds() {
    let bytes = vector("session_modification_request_gates_closed");
    let ours = gate_request([QerId(2), QerId(3)], GateStatus::CLOSED);
    let msg = Message::session(Seid(7), SequenceNumber::new(24).unwrap(), ours);
    assert_eq!(msg.to_vec().unwrap(), bytes);
    // The plan's own QER, when it has one.
    let p = plan(0);
    let closed = p.gate_request(GateStatus::CLOSED).unwrap();
    assert_eq!(
        closed.update_qers,
        [UpdateQer::gate(
            upfbench_pfcp::plan::QER,
            GateStatus::CLOSED
        )]
    );
    let mut no_qer = plan(0);
    no_qer.template_mut().qer = None;
    assert_eq!(no_qer.gate_request(GateStatus::CLOSED), None);
}

/// The client's sessions: one established with the UPF side, then a request left unanswered
/// whose answer the test writes from a vector (its sequence number and SEID put in).
fn answer_with(net: &mut Net, vector_name: &str, seid: Seid) -> NodeError {
    let req = net.client.poll_transmit().unwrap();
    let seq = Header::new_checked(&req.contents[..]).unwrap().sequence();
    let mut rsp = vector(vector_name);
    let mut h = Header::new_checked(&mut rsp[..]).unwrap();
    h.set_sequence(seq);
    h.set_seid(seid);
    net.client.handle_datagram(net.now, up_addr(), &rsp);
    match net.client.poll_event() {
        Some(Event::Failed(e)) => e,
        e => panic!("{vector_name}: {e:?}"),
    }
}

#[test]
fn the_client_names_the_cause_and_the_offending_ie() {
    let mut net = Net::new(client_config(), upf_config(), 21);
    net.associate();
    let cp = net.client.establish(net.now, &plan(0)).unwrap();
    net.settle();
    net.take_client_events();
    // A gate closed through the UPF side: accepted.
    let close = plan(0).gate_request(GateStatus::CLOSED).unwrap();
    net.client.modify(net.now, cp, close).unwrap();
    net.settle();
    let events = net.take_client_events();
    assert!(
        matches!(&events[..], [Event::Modified(s)] if s.cp_seid == cp),
        "{events:?}"
    );
    // Establishments refused with Cause 69 and 72, a modification with Cause 74.
    let cases = [
        (
            "session_establishment_response_cause_69",
            "Mandatory IE incorrect (69), offending IE UE IP Address (93)",
        ),
        (
            "session_establishment_response_cause_72",
            "No established PFCP Association (72), offending IE Node ID (60)",
        ),
        (
            "session_modification_response_cause_74",
            "PFCP entity in congestion (74), offending IE Paging Policy Indicator (158)",
        ),
    ];
    for (i, (name, said)) in cases.into_iter().enumerate() {
        let procedure = if name.contains("modification") {
            net.client
                .modify(net.now, cp, gate_request([QerId(2)], GateStatus::OPEN))
                .unwrap();
            Procedure::SessionModification(cp)
        } else {
            let s = net.client.establish(net.now, &plan(1 + i as u32)).unwrap();
            Procedure::SessionEstablishment(s)
        };
        let e = answer_with(&mut net, name, procedure.cp_seid().unwrap());
        let NodeError::Rejected {
            procedure: p,
            offending_ie,
            ..
        } = &e
        else {
            panic!("{name}: {e:?}")
        };
        assert_eq!(*p, procedure, "{name}");
        assert!(offending_ie.is_some(), "{name}");
        assert!(e.to_string().ends_with(said), "{name}: {e}");
    }
}
