//! proptest strategies for every typed IE and message, producing values that are valid on the
//! wire (so that Wireshark dissects them cleanly) and canonical (so that decode(encode(x)) == x).

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use proptest::collection::vec;
use proptest::option;
use proptest::prelude::*;
use upfbench_pfcp::ie::*;
use upfbench_pfcp::message::*;
use upfbench_pfcp::{
    FarId, Message, MessageBody, MessagePriority, PdrId, Precedence, QerId, Qfi, Seid,
    SequenceNumber, Teid, UrrId,
};

pub fn ipv4() -> BoxedStrategy<Ipv4Addr> {
    any::<u32>().prop_map(Ipv4Addr::from).boxed()
}

pub fn ipv6() -> BoxedStrategy<Ipv6Addr> {
    any::<u128>().prop_map(Ipv6Addr::from).boxed()
}

pub fn dns_name() -> BoxedStrategy<DnsName> {
    vec("[a-z][a-z0-9-]{0,14}", 1..4)
        .prop_map(|l| DnsName::from_dotted(&l.join(".")).unwrap())
        .boxed()
}

pub fn node_id() -> BoxedStrategy<NodeId> {
    prop_oneof![
        ipv4().prop_map(NodeId::Ipv4),
        ipv6().prop_map(NodeId::Ipv6),
        dns_name().prop_map(NodeId::Fqdn),
    ]
    .boxed()
}

pub fn fseid() -> BoxedStrategy<Fseid> {
    (any::<u64>(), option::of(ipv4()), option::of(ipv6()))
        .prop_filter("an address", |(_, a, b)| a.is_some() || b.is_some())
        .prop_map(|(s, ipv4, ipv6)| Fseid {
            seid: Seid(s),
            ipv4,
            ipv6,
        })
        .boxed()
}

pub fn fteid() -> BoxedStrategy<Fteid> {
    prop_oneof![
        (any::<u32>(), option::of(ipv4()), option::of(ipv6()))
            .prop_filter("an address", |(_, a, b)| a.is_some() || b.is_some())
            .prop_map(|(t, ipv4, ipv6)| Fteid::Assigned {
                teid: Teid(t),
                ipv4,
                ipv6
            }),
        (any::<bool>(), any::<bool>(), option::of(any::<u8>()))
            .prop_filter("a family", |(v4, v6, _)| *v4 || *v6)
            .prop_map(|(v4, v6, choose_id)| Fteid::choose(v4, v6, choose_id)),
    ]
    .boxed()
}

/// The IPv4 part of a UE IP Address: none, an address (V4) or CHV4.
fn ue_ipv4() -> BoxedStrategy<(Option<Ipv4Addr>, bool)> {
    prop_oneof![
        Just((None, false)),
        ipv4().prop_map(|a| (Some(a), false)),
        Just((None, true)),
    ]
    .boxed()
}

/// The IPv6 part of a UE IP Address (the IPv6 fields of the value, the rest empty): none, or an
/// address (V6) or CHV6 with the default /64, IPv6 Prefix Delegation Bits (IPv6D) or an IPv6
/// Prefix Length (IP6PL).
fn ue_ipv6() -> BoxedStrategy<UeIpAddress> {
    let prefix = prop_oneof![
        Just((None, None)),
        (0u8..=64).prop_map(|b| (Some(b), None)),
        (0u8..=128).prop_map(|l| (None, Some(l))),
    ];
    prop_oneof![
        Just(UeIpAddress::default()),
        (option::of(ipv6()), prefix).prop_map(|(a, (d, l))| UeIpAddress {
            ipv6: a,
            choose_ipv6: a.is_none(),
            ipv6_prefix_delegation_bits: d,
            ipv6_prefix_length: l,
            ..UeIpAddress::default()
        }),
    ]
    .boxed()
}

/// A UE IP Address that keeps the rules of TS 29.244 §8.2.62.
pub fn ue_ip_address() -> BoxedStrategy<UeIpAddress> {
    (any::<bool>(), ue_ipv4(), ue_ipv6())
        .prop_map(|(d, (ipv4, c4), v6)| UeIpAddress {
            is_destination: d,
            ipv4,
            choose_ipv4: c4,
            ..v6
        })
        .boxed()
}

/// A port range, one port about a third of the time.
fn port_range() -> BoxedStrategy<PortRange> {
    prop_oneof![
        any::<u16>().prop_map(PortRange::one),
        (any::<u16>(), any::<u16>()).prop_map(|(a, b)| PortRange {
            first: a.min(b),
            last: a.max(b)
        }),
    ]
    .boxed()
}

/// A filter address: any, assigned, or an IPv4 or IPv6 network with its host bits cleared.
fn filter_address() -> BoxedStrategy<FilterAddress> {
    let network = |ip: IpAddr, len: u8| {
        let width = if ip.is_ipv4() { 32 } else { 128 };
        let len = len % (width + 1);
        let masked = match ip {
            IpAddr::V4(a) => IpAddr::V4(Ipv4Addr::from_bits(
                a.to_bits() & u32::MAX.checked_shl(u32::from(32 - len)).unwrap_or(0),
            )),
            IpAddr::V6(a) => IpAddr::V6(Ipv6Addr::from_bits(
                a.to_bits() & u128::MAX.checked_shl(u32::from(128 - len)).unwrap_or(0),
            )),
        };
        FilterAddress::network(masked, len).unwrap()
    };
    prop_oneof![
        Just(FilterAddress::Any),
        Just(FilterAddress::Assigned),
        (ipv4().prop_map(IpAddr::V4), any::<u8>()).prop_map(move |(a, l)| network(a, l)),
        (ipv6().prop_map(IpAddr::V6), any::<u8>()).prop_map(move |(a, l)| network(a, l)),
    ]
    .boxed()
}

fn filter_endpoint() -> BoxedStrategy<FilterEndpoint> {
    (filter_address(), vec(port_range(), 0..3))
        .prop_map(|(address, ports)| FilterEndpoint { address, ports })
        .boxed()
}

/// A flow description (IPFilterRule) of every form the parser reads.
pub fn flow_description() -> BoxedStrategy<FlowDescription> {
    (
        prop_oneof![Just(FilterAction::Permit), Just(FilterAction::Deny)],
        prop_oneof![Just(FilterDirection::In), Just(FilterDirection::Out)],
        option::of(any::<u8>()),
        filter_endpoint(),
        filter_endpoint(),
    )
        .prop_map(
            |(action, direction, protocol, source, destination)| FlowDescription {
                action,
                direction,
                protocol,
                source,
                destination,
            },
        )
        .boxed()
}

pub fn sdf_filter() -> BoxedStrategy<SdfFilter> {
    (
        option::of(prop_oneof![
            "permit out (ip|udp|17) from any to (assigned|10\\.45\\.0\\.[0-9]{1,2})",
            flow_description().prop_map(|f| f.to_string()),
        ]),
        option::of(any::<u16>()),
        option::of(any::<u32>()),
        option::of(0u32..=0xf_ffff),
        option::of(any::<u32>()),
    )
        .prop_map(|(fd, ttc, spi, fl, id)| SdfFilter {
            flow_description: fd.map(String::into_bytes),
            tos_traffic_class: ttc,
            security_parameter_index: spi,
            flow_label: fl,
            sdf_filter_id: id,
        })
        .boxed()
}

pub fn qfi() -> BoxedStrategy<Qfi> {
    (0u8..=63).prop_map(|q| Qfi::new(q).unwrap()).boxed()
}

pub fn bit_rate() -> BoxedStrategy<BitRate> {
    (0..=BitRate::MAX_KBPS, 0..=BitRate::MAX_KBPS)
        .prop_map(|(ul_kbps, dl_kbps)| BitRate { ul_kbps, dl_kbps })
        .boxed()
}

pub fn gate_status() -> BoxedStrategy<GateStatus> {
    (0u8..2, 0u8..2)
        .prop_map(|(u, d)| GateStatus {
            ul: Gate::new(u),
            dl: Gate::new(d),
        })
        .boxed()
}

pub fn outer_header_removal() -> BoxedStrategy<OuterHeaderRemoval> {
    (0u8..=8, option::of(0u8..=1))
        .prop_map(|(description, x)| OuterHeaderRemoval {
            description,
            gtpu_extension_header_deletion: x,
        })
        .boxed()
}

/// Outer Header Creation over IPv4, IPv6 or both (GTP-U), or UDP and IP alone.
pub fn outer_header_creation() -> BoxedStrategy<OuterHeaderCreation> {
    let bare = OuterHeaderCreation {
        description: 0,
        teid: None,
        ipv4: None,
        ipv6: None,
        port: None,
        c_tag: None,
        s_tag: None,
    };
    prop_oneof![
        (any::<u32>(), ipv4()).prop_map(|(t, a)| OuterHeaderCreation::gtpu_udp_ipv4(Teid(t), a)),
        (any::<u32>(), ipv6())
            .prop_map(|(t, a)| OuterHeaderCreation::gtpu_udp(Teid(t), IpAddr::V6(a))),
        (any::<u32>(), ipv4(), ipv6())
            .prop_map(|(t, a, b)| { OuterHeaderCreation::gtpu_udp_dual_stack(Teid(t), a, b) }),
        (ipv4(), any::<u16>()).prop_map(move |(a, p)| OuterHeaderCreation {
            description: OuterHeaderCreation::UDP_IPV4,
            ipv4: Some(a),
            port: Some(p),
            ..bare
        }),
        (ipv6(), any::<u16>()).prop_map(move |(a, p)| OuterHeaderCreation {
            description: OuterHeaderCreation::UDP_IPV6,
            ipv6: Some(a),
            port: Some(p),
            ..bare
        }),
        ipv4().prop_map(move |a| OuterHeaderCreation {
            description: OuterHeaderCreation::IPV4,
            ipv4: Some(a),
            ..bare
        }),
        ipv6().prop_map(move |a| OuterHeaderCreation {
            description: OuterHeaderCreation::IPV6,
            ipv6: Some(a),
            ..bare
        }),
    ]
    .boxed()
}

pub fn volume() -> BoxedStrategy<Volume> {
    (
        option::of(any::<u64>()),
        option::of(any::<u64>()),
        option::of(any::<u64>()),
    )
        .prop_map(|(total, uplink, downlink)| Volume {
            total,
            uplink,
            downlink,
        })
        .boxed()
}

pub fn volume_measurement() -> BoxedStrategy<VolumeMeasurement> {
    vec(option::of(any::<u64>()), 6)
        .prop_map(|v| VolumeMeasurement {
            total: v[0],
            uplink: v[1],
            downlink: v[2],
            total_packets: v[3],
            uplink_packets: v[4],
            downlink_packets: v[5],
        })
        .boxed()
}

/// A flag set with the bits the release defines (`max_bits`) and a number of octets from
/// `octets`, made by `with_octets`.
fn flag_set<T: std::fmt::Debug + 'static>(
    max_bits: u32,
    octets: std::ops::RangeInclusive<u8>,
    with_octets: fn(u64, u8) -> T,
) -> BoxedStrategy<T> {
    (any::<u64>(), octets)
        .prop_map(move |(b, o)| with_octets(b & ((1u64 << max_bits) - 1), o))
        .boxed()
}

/// `name() -> Type`: the flag set with `bits` defined bits, encoded on `octets` octets.
macro_rules! flag_sets {
    ($($name:ident: $t:ident($bits:expr, $octets:expr);)*) => {
        $(
            pub fn $name() -> BoxedStrategy<$t> {
                flag_set($bits, $octets, $t::with_octets)
            }
        )*
    };
}

flag_sets! {
    apply_action: ApplyAction(13, 1..=2);
    up_function_features: UpFunctionFeatures(24, 2..=3);
    cp_function_features: CpFunctionFeatures(10, 1..=2);
    reporting_triggers: ReportingTriggers(18, 2..=3);
    usage_report_trigger: UsageReportTrigger(22, 3..=3);
    measurement_method: MeasurementMethod(3, 1..=1);
    report_type: ReportType(7, 1..=1);
    usage_information: UsageInformation(4, 1..=1);
    // One octet: the only one TS 29.244 defines, the only one tshark 4.0 decodes.
    pfcpsm_req_flags: PfcpsmReqFlags(7, 1..=1);
}

/// IEs no codec layer types: unassigned types and vendor-specific IEs (with at least one data
/// octet: tshark 4.0 throws on a vendor IE that holds only its Enterprise ID).
pub fn raw_ie() -> BoxedStrategy<RawIe> {
    prop_oneof![
        (1000u16..1100, vec(any::<u8>(), 0..8)).prop_map(|(t, value)| RawIe {
            ie_type: IeType(t),
            enterprise_id: None,
            value
        }),
        (0x8000u16..0x8100, 1u16..200, vec(any::<u8>(), 1..8)).prop_map(|(t, e, value)| RawIe {
            ie_type: IeType(t),
            enterprise_id: Some(e),
            value
        }),
    ]
    .boxed()
}

pub fn others() -> BoxedStrategy<Vec<RawIe>> {
    vec(raw_ie(), 0..2).boxed()
}

pub fn pdi() -> BoxedStrategy<Pdi> {
    (
        (0u8..=4).prop_map(SourceInterface::new),
        option::of(fteid()),
        option::of(dns_name()),
        option::of(ue_ip_address()),
        vec(sdf_filter(), 0..3),
        option::of(qfi()),
        option::of((0u8..=18).prop_map(InterfaceType::new)),
        others(),
    )
        .prop_map(|(si, f, ni, ue, sdf, q, it, o)| Pdi {
            source_interface: si,
            local_f_teid: f,
            network_instance: ni,
            ue_ip_address: ue,
            sdf_filters: sdf,
            qfi: q,
            source_interface_type: it,
            other_ies: o,
        })
        .boxed()
}

pub fn create_pdr() -> BoxedStrategy<CreatePdr> {
    (
        any::<u16>(),
        any::<u32>(),
        pdi(),
        option::of(any::<u32>()),
        option::of(outer_header_removal()),
        vec(any::<u32>(), 0..3),
        vec(any::<u32>(), 0..3),
        others(),
    )
        .prop_map(|(id, p, pdi, far, ohr, urrs, qers, o)| CreatePdr {
            pdr_id: PdrId(id),
            precedence: Precedence(p),
            pdi,
            far_id: far.map(FarId),
            outer_header_removal: ohr,
            urr_ids: urrs.into_iter().map(UrrId).collect(),
            qer_ids: qers.into_iter().map(QerId).collect(),
            other_ies: o,
        })
        .boxed()
}

pub fn update_pdr() -> BoxedStrategy<UpdatePdr> {
    (
        any::<u16>(),
        option::of(outer_header_removal()),
        option::of(any::<u32>()),
        option::of(pdi()),
        option::of(any::<u32>()),
        vec(any::<u32>(), 0..2),
        vec(any::<u32>(), 0..2),
        others(),
    )
        .prop_map(|(id, ohr, p, pdi, far, urrs, qers, o)| UpdatePdr {
            pdr_id: PdrId(id),
            outer_header_removal: ohr,
            precedence: p.map(Precedence),
            pdi,
            far_id: far.map(FarId),
            urr_ids: urrs.into_iter().map(UrrId).collect(),
            qer_ids: qers.into_iter().map(QerId).collect(),
            other_ies: o,
        })
        .boxed()
}

pub fn created_pdr() -> BoxedStrategy<CreatedPdr> {
    (
        any::<u16>(),
        option::of(fteid()),
        option::of(ue_ip_address()),
        others(),
    )
        .prop_map(|(id, f, ue, o)| CreatedPdr {
            pdr_id: PdrId(id),
            local_f_teid: f,
            ue_ip_address: ue,
            other_ies: o,
        })
        .boxed()
}

pub fn forwarding_parameters() -> BoxedStrategy<ForwardingParameters> {
    (
        (0u8..=5).prop_map(DestinationInterface::new),
        option::of(dns_name()),
        option::of(outer_header_creation()),
        option::of((0u8..=18).prop_map(InterfaceType::new)),
        others(),
    )
        .prop_map(|(di, ni, ohc, it, o)| ForwardingParameters {
            destination_interface: di,
            network_instance: ni,
            outer_header_creation: ohc,
            destination_interface_type: it,
            other_ies: o,
        })
        .boxed()
}

/// Update Forwarding Parameters: a Destination Interface or none, PFCPSMReq-Flags or none.
pub fn update_forwarding_parameters() -> BoxedStrategy<UpdateForwardingParameters> {
    (
        forwarding_parameters(),
        any::<bool>(),
        option::of(pfcpsm_req_flags()),
    )
        .prop_map(|(f, di, flags)| UpdateForwardingParameters {
            destination_interface: di.then_some(f.destination_interface),
            network_instance: f.network_instance,
            outer_header_creation: f.outer_header_creation,
            destination_interface_type: f.destination_interface_type,
            pfcpsm_req_flags: flags,
            other_ies: f.other_ies,
        })
        .boxed()
}

pub fn create_far() -> BoxedStrategy<CreateFar> {
    (
        any::<u32>(),
        apply_action(),
        option::of(forwarding_parameters()),
        others(),
    )
        .prop_map(|(id, a, fp, o)| CreateFar {
            far_id: FarId(id),
            apply_action: a,
            forwarding_parameters: fp,
            other_ies: o,
        })
        .boxed()
}

/// Update FAR: a Create FAR whose Apply Action may be left out, with Update Forwarding
/// Parameters.
pub fn update_far() -> BoxedStrategy<UpdateFar> {
    (
        create_far(),
        any::<bool>(),
        option::of(update_forwarding_parameters()),
    )
        .prop_map(|(c, a, fp)| UpdateFar {
            far_id: c.far_id,
            apply_action: a.then_some(c.apply_action),
            update_forwarding_parameters: fp,
            other_ies: c.other_ies,
        })
        .boxed()
}

pub fn rqi() -> BoxedStrategy<Rqi> {
    any::<bool>().prop_map(Rqi).boxed()
}

pub fn paging_policy_indicator() -> BoxedStrategy<PagingPolicyIndicator> {
    (0u8..=7).prop_map(PagingPolicyIndicator::new).boxed()
}

pub fn qer_correlation_id() -> BoxedStrategy<QerCorrelationId> {
    any::<u32>().prop_map(QerCorrelationId).boxed()
}

pub fn create_qer() -> BoxedStrategy<CreateQer> {
    (
        (
            any::<u32>(),
            option::of(qer_correlation_id()),
            gate_status(),
        ),
        option::of(bit_rate()),
        option::of(bit_rate()),
        option::of(qfi()),
        option::of(rqi()),
        option::of(paging_policy_indicator()),
        others(),
    )
        .prop_map(|((id, corr, g), mbr, gbr, q, rqi, ppi, o)| CreateQer {
            qer_id: QerId(id),
            qer_correlation_id: corr,
            gate_status: g,
            mbr,
            gbr,
            qfi: q,
            rqi,
            paging_policy_indicator: ppi,
            other_ies: o,
        })
        .boxed()
}

/// Update QER: a Create QER whose Gate Status may be left out.
pub fn update_qer() -> BoxedStrategy<UpdateQer> {
    (create_qer(), any::<bool>())
        .prop_map(|(c, g)| UpdateQer {
            qer_id: c.qer_id,
            qer_correlation_id: c.qer_correlation_id,
            gate_status: g.then_some(c.gate_status),
            mbr: c.mbr,
            gbr: c.gbr,
            qfi: c.qfi,
            rqi: c.rqi,
            paging_policy_indicator: c.paging_policy_indicator,
            other_ies: c.other_ies,
        })
        .boxed()
}

pub fn create_urr() -> BoxedStrategy<CreateUrr> {
    (
        any::<u32>(),
        measurement_method(),
        reporting_triggers(),
        option::of(any::<u32>()),
        option::of(volume()),
        option::of(volume()),
        option::of(any::<u32>()),
        option::of(any::<u32>()),
        others(),
    )
        .prop_map(|(id, mm, rt, mp, vt, vq, tt, tq, o)| CreateUrr {
            urr_id: UrrId(id),
            measurement_method: mm,
            reporting_triggers: rt,
            measurement_period: mp,
            volume_threshold: vt,
            volume_quota: vq,
            time_threshold: tt,
            time_quota: tq,
            other_ies: o,
        })
        .boxed()
}

/// Update URR: a Create URR whose Measurement Method and Reporting Triggers may be left out.
pub fn update_urr() -> BoxedStrategy<UpdateUrr> {
    (create_urr(), any::<bool>(), any::<bool>())
        .prop_map(|(c, mm, rt)| UpdateUrr {
            urr_id: c.urr_id,
            measurement_method: mm.then_some(c.measurement_method),
            reporting_triggers: rt.then_some(c.reporting_triggers),
            measurement_period: c.measurement_period,
            volume_threshold: c.volume_threshold,
            volume_quota: c.volume_quota,
            time_threshold: c.time_threshold,
            time_quota: c.time_quota,
            other_ies: c.other_ies,
        })
        .boxed()
}

pub fn ntp() -> BoxedStrategy<NtpTimestamp> {
    any::<u32>().prop_map(NtpTimestamp).boxed()
}

pub fn usage_report() -> BoxedStrategy<UsageReport> {
    (
        (any::<u32>(), any::<u32>(), usage_report_trigger()),
        option::of(ntp()),
        option::of(ntp()),
        option::of(volume_measurement()),
        option::of(any::<u32>()),
        option::of(ntp()),
        option::of(ntp()),
        option::of(usage_information()),
        others(),
    )
        .prop_map(
            |((id, seqn, trig), st, et, vm, dm, tf, tl, ui, o)| UsageReport {
                urr_id: UrrId(id),
                ur_seqn: seqn,
                usage_report_trigger: trig,
                start_time: st,
                end_time: et,
                volume_measurement: vm,
                duration_measurement: dm,
                time_of_first_packet: tf,
                time_of_last_packet: tl,
                usage_information: ui,
                other_ies: o,
            },
        )
        .boxed()
}

pub fn cause() -> BoxedStrategy<Cause> {
    prop_oneof![1u8..=2, 64u8..=79].prop_map(Cause).boxed()
}

pub fn failed_rule_id() -> BoxedStrategy<FailedRuleId> {
    prop_oneof![
        any::<u16>().prop_map(|i| FailedRuleId::Pdr(PdrId(i))),
        any::<u32>().prop_map(|i| FailedRuleId::Far(FarId(i))),
        any::<u32>().prop_map(|i| FailedRuleId::Qer(QerId(i))),
        any::<u32>().prop_map(|i| FailedRuleId::Urr(UrrId(i))),
        any::<u8>().prop_map(FailedRuleId::Bar),
        any::<u8>().prop_map(FailedRuleId::Srr),
        any::<u16>().prop_map(FailedRuleId::Mar),
    ]
    .boxed()
}

pub fn offending() -> BoxedStrategy<OffendingIe> {
    (1u16..=160).prop_map(|t| OffendingIe(IeType(t))).boxed()
}
