//! proptest strategies for every message, built from the IE strategies of `strategies`:
//! valid on the wire and canonical, as those are.

use std::net::{Ipv4Addr, Ipv6Addr};

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::{
    FarId, Message, MessageBody, MessagePriority, PdrId, Precedence, QerId, Qfi, Seid,
    SequenceNumber, Teid, UrrId,
};

use super::strategies::*;

fn association_setup_request() -> BoxedStrategy<AssociationSetupRequest> {
    (
        node_id(),
        ntp(),
        option::of(up_function_features()),
        option::of(cp_function_features()),
        others(),
    )
        .prop_map(|(n, t, up, cp, o)| AssociationSetupRequest {
            node_id: n,
            recovery_time_stamp: t,
            up_function_features: up,
            cp_function_features: cp,
            other_ies: o,
        })
        .boxed()
}

/// An Association Update Request: the IEs of a Setup Request but the Recovery Time Stamp.
fn association_update_request() -> BoxedStrategy<AssociationUpdateRequest> {
    association_setup_request()
        .prop_map(|r| AssociationUpdateRequest {
            node_id: r.node_id,
            up_function_features: r.up_function_features,
            cp_function_features: r.cp_function_features,
            other_ies: r.other_ies,
        })
        .boxed()
}

fn node_body() -> BoxedStrategy<MessageBody> {
    prop_oneof![
        (ntp(), others()).prop_map(|(t, o)| HeartbeatRequest {
            recovery_time_stamp: t,
            other_ies: o
        }
        .into()),
        (ntp(), others()).prop_map(|(t, o)| HeartbeatResponse {
            recovery_time_stamp: t,
            other_ies: o
        }
        .into()),
        association_setup_request().prop_map(MessageBody::from),
        (association_setup_request(), cause()).prop_map(|(r, c)| AssociationSetupResponse {
            node_id: r.node_id,
            cause: c,
            recovery_time_stamp: r.recovery_time_stamp,
            up_function_features: r.up_function_features,
            cp_function_features: r.cp_function_features,
            other_ies: r.other_ies
        }
        .into()),
        association_update_request().prop_map(MessageBody::from),
        (association_update_request(), cause()).prop_map(|(r, c)| AssociationUpdateResponse {
            node_id: r.node_id,
            cause: c,
            up_function_features: r.up_function_features,
            cp_function_features: r.cp_function_features,
            other_ies: r.other_ies
        }
        .into()),
        (node_id(), others()).prop_map(|(n, o)| AssociationReleaseRequest {
            node_id: n,
            other_ies: o
        }
        .into()),
        (node_id(), cause(), others()).prop_map(|(n, c, o)| AssociationReleaseResponse {
            node_id: n,
            cause: c,
            other_ies: o
        }
        .into()),
        Just(VersionNotSupportedResponse::default().into()),
    ]
    .boxed()
}

fn session_body() -> BoxedStrategy<MessageBody> {
    prop_oneof![
        session_establishment_request(),
        (
            node_id(),
            cause(),
            option::of(offending()),
            option::of(fseid()),
            vec(created_pdr(), 0..3),
            option::of(failed_rule_id()),
            others()
        )
            .prop_map(|(n, c, off, f, cp, fr, o)| SessionEstablishmentResponse {
                node_id: n,
                cause: c,
                offending_ie: off,
                up_f_seid: f,
                created_pdrs: cp,
                failed_rule_id: fr,
                other_ies: o
            }
            .into()),
        session_modification_request(),
        (
            cause(),
            option::of(offending()),
            vec(created_pdr(), 0..2),
            vec(usage_report(), 0..2),
            option::of(failed_rule_id()),
            others()
        )
            .prop_map(|(c, off, cp, ur, fr, o)| SessionModificationResponse {
                cause: c,
                offending_ie: off,
                created_pdrs: cp,
                usage_reports: ur,
                failed_rule_id: fr,
                other_ies: o
            }
            .into()),
        others().prop_map(|o| SessionDeletionRequest { other_ies: o }.into()),
        (
            cause(),
            option::of(offending()),
            vec(usage_report(), 0..2),
            others()
        )
            .prop_map(|(c, off, ur, o)| {
                SessionDeletionResponse {
                    cause: c,
                    offending_ie: off,
                    usage_reports: ur,
                    other_ies: o,
                }
                .into()
            }),
        (report_type(), vec(usage_report(), 0..2), others()).prop_map(|(rt, ur, o)| {
            SessionReportRequest {
                report_type: rt,
                usage_reports: ur,
                other_ies: o,
            }
            .into()
        }),
        (cause(), option::of(offending()), others()).prop_map(|(c, off, o)| {
            SessionReportResponse {
                cause: c,
                offending_ie: off,
                other_ies: o,
            }
            .into()
        }),
    ]
    .boxed()
}

fn session_establishment_request() -> BoxedStrategy<MessageBody> {
    (
        (node_id(), fseid()),
        vec(create_pdr(), 1..3),
        vec(create_far(), 1..3),
        vec(create_urr(), 0..2),
        option::of((1u8..=5).prop_map(PdnType::new)),
        option::of(dns_name()),
        vec(create_qer(), 0..2),
        others(),
    )
        .prop_map(|((n, f), pdrs, fars, urrs, pdn, dnn, qers, o)| {
            SessionEstablishmentRequest {
                node_id: n,
                cp_f_seid: f,
                create_pdrs: pdrs,
                create_fars: fars,
                create_urrs: urrs,
                pdn_type: pdn,
                apn_dnn: dnn,
                create_qers: qers,
                other_ies: o,
            }
            .into()
        })
        .boxed()
}

fn session_modification_request() -> BoxedStrategy<MessageBody> {
    (
        (option::of(fseid()), option::of(node_id())),
        removals(),
        (
            vec(create_pdr(), 0..2),
            vec(create_far(), 0..2),
            vec(create_urr(), 0..2),
            vec(create_qer(), 0..2),
        ),
        (
            vec(update_pdr(), 0..2),
            vec(update_far(), 0..2),
            vec(update_urr(), 0..2),
            vec(update_qer(), 0..2),
        ),
        others(),
    )
        .prop_map(
            |((f, n), (rp, rf, ru, rq), (cp, cf, cu, cq), (up, uf, uu, uq), o)| {
                SessionModificationRequest {
                    cp_f_seid: f,
                    remove_pdrs: rp,
                    remove_fars: rf,
                    remove_urrs: ru,
                    remove_qers: rq,
                    create_pdrs: cp,
                    create_fars: cf,
                    create_urrs: cu,
                    create_qers: cq,
                    update_pdrs: up,
                    update_fars: uf,
                    update_urrs: uu,
                    update_qers: uq,
                    node_id: n,
                    other_ies: o,
                }
                .into()
            },
        )
        .boxed()
}

/// The Remove PDR, FAR, URR and QER lists of a Session Modification Request.
fn removals() -> impl Strategy<
    Value = (
        Vec<RemovePdr>,
        Vec<RemoveFar>,
        Vec<RemoveUrr>,
        Vec<RemoveQer>,
    ),
> {
    (
        vec(
            any::<u16>().prop_map(|i| RemovePdr {
                pdr_id: PdrId(i),
                other_ies: vec![],
            }),
            0..2,
        ),
        vec(
            any::<u32>().prop_map(|i| RemoveFar {
                far_id: FarId(i),
                other_ies: vec![],
            }),
            0..2,
        ),
        vec(
            any::<u32>().prop_map(|i| RemoveUrr {
                urr_id: UrrId(i),
                other_ies: vec![],
            }),
            0..2,
        ),
        vec(
            any::<u32>().prop_map(|i| RemoveQer {
                qer_id: QerId(i),
                other_ies: vec![],
            }),
            0..2,
        ),
    )
}

fn sequence() -> BoxedStrategy<SequenceNumber> {
    (0..=SequenceNumber::MAX)
        .prop_map(|s| SequenceNumber::new(s).unwrap())
        .boxed()
}

/// Any supported message; FO is left 0 (a lone message in a datagram).
pub fn message() -> BoxedStrategy<Message> {
    prop_oneof![
        (sequence(), node_body()).prop_map(|(s, b)| Message::node(s, b)),
        (
            any::<u64>(),
            sequence(),
            option::of((0u8..=15).prop_map(|p| MessagePriority::new(p).unwrap())),
            session_body()
        )
            .prop_map(|(seid, s, p, b)| {
                let mut m = Message::session(Seid(seid), s, b);
                m.priority = p;
                m
            }),
    ]
    .boxed()
}
