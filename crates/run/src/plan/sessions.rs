//! The PFCP sessions of a run: one per UE, from the profile's session settings and the system
//! file's addresses, by the interoperability rules (docs/pfcp.md) that crates/pfcp's plan
//! encodes.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::ops::Range;
use std::sync::Arc;

use upfbench_pfcp::Seid;
use upfbench_pfcp::ie::{BitRate, DnsName, NodeId, SdfFilter};
use upfbench_pfcp::plan::{
    FlowPlan, QerPlan, QerRule, SessionTemplate, UeIpv6Prefix, UeSession, UeSessionPlan,
    UplinkTeid, UrrPlan,
};

use super::ue::{UeTable, UplinkTeids};
use upfbench_config::{FlowRates, Profile, Sessions, System};

/// A session setting that cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    /// Not a DNS name.
    #[error("{field}: {value:?} is not a DNS name")]
    DnsName {
        /// The field.
        field: &'static str,
        /// Its value.
        value: String,
    },
    /// The PFCP section or its IPv4 address is missing.
    #[error("the system file's pfcp section needs an IPv4 local address")]
    NoLocalAddress,
}

fn dns(field: &'static str, value: &str) -> Result<DnsName, SessionError> {
    DnsName::from_dotted(value).map_err(|_| SessionError::DnsName {
        field,
        value: value.to_owned(),
    })
}

fn kbps(bps: Option<u64>) -> u64 {
    bps.map_or(0, |b| b.div_ceil(1000))
}

/// A flow's bit rates as a QER carries them, if it gives any.
fn bit_rate(r: Option<FlowRates>) -> Option<BitRate> {
    r.map(|r| BitRate {
        ul_kbps: kbps(r.uplink),
        dl_kbps: kbps(r.downlink),
    })
}

/// The profile's `qos_flows` as the sessions' flows and QERs: a QER per flow, or one per
/// shared name, which marks its QFI when it polices one flow only.
fn flow_plans(s: &Sessions) -> (Vec<FlowPlan>, Vec<QerRule>) {
    let mut qers: Vec<QerRule> = Vec::new();
    let mut shared: Vec<(&str, usize)> = Vec::new();
    let flows = s
        .qos_flows
        .iter()
        .map(|f| {
            let own = QerRule {
                qfi: Some(f.qfi),
                mbr: bit_rate(f.mbr),
                gbr: bit_rate(f.gbr),
            };
            let qer = match f.qer.as_deref() {
                Some(name) => match shared.iter().find(|(n, _)| *n == name) {
                    Some(&(_, i)) => {
                        // A second flow: the shared QER marks no one QFI.
                        qers[i].qfi = None;
                        i
                    }
                    None => {
                        shared.push((name, qers.len()));
                        qers.push(own);
                        qers.len() - 1
                    }
                },
                None => {
                    qers.push(own);
                    qers.len() - 1
                }
            };
            FlowPlan {
                uplink_qfi: s.uplink_pdr_qfi.then_some(f.qfi),
                sdf_filter: f.sdf.as_deref().map(SdfFilter::flow),
                qer,
            }
        })
        .collect();
    (flows, qers)
}

/// Where each pair's block of the `traffic` UEs ends, the last pair's at `u32::MAX` (the UEs
/// after the traffic's, churn's, are its); one pair's only when they cannot be cut.
fn pair_ends(system: &System, traffic: u32) -> Vec<u32> {
    let mut ends: Vec<u32> = system
        .ue_blocks(traffic)
        .map(|blocks| blocks.iter().map(|b| b.end).collect())
        .unwrap_or_default();
    match ends.last_mut() {
        Some(last) => *last = u32::MAX,
        None => ends.push(u32::MAX),
    }
    ends
}

/// The session of each UE, in UE order, sharing its pair's template; CP SEID `i + 1` for UE `i`.
/// The profile's UEs are cut over the system's pairs by weight ([`System::ue_blocks`]), the UEs
/// after them (churn's) go with the last pair; each pair's template carries its gNB address (its
/// N3 address: the downlink FAR's Outer Header Creation) and its N3 peer (the uplink F-TEID's
/// address when the CP chooses TEIDs).
pub fn session_plans(
    system: &System,
    profile: &Profile,
    ues: &UeTable,
) -> Result<Vec<UeSessionPlan>, SessionError> {
    let cp = match system.pfcp.as_ref().map(|p| p.local) {
        Some(SocketAddr::V4(a)) => *a.ip(),
        _ => return Err(SessionError::NoLocalAddress),
    };
    let ends = pair_ends(system, profile.sessions.count.min(ues.count));
    let gnbs: Vec<Gnb> = system
        .pairs()
        .iter()
        .zip(&ends)
        .scan(0, |start, (pair, &end)| {
            let ues = *start..end;
            *start = end;
            Some(Gnb {
                ues,
                gnb_n3: pair.n3.address.addr,
                upf_n3: pair.n3.peer,
            })
        })
        .collect();
    session_plans_over(profile, cp, &gnbs, ues)
}

/// One gNB of the run: a pair of the system file, or of an agent in a run over agents (one SMF
/// for every agent's pairs, docs/scale.md §3 "PFCP as one SMF").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Gnb {
    /// Its UEs (global indices).
    pub ues: Range<u32>,
    /// Its N3 address: the downlink FAR's Outer Header Creation.
    pub gnb_n3: IpAddr,
    /// The UPF's N3 address on its link: the uplink F-TEID's address when the CP chooses TEIDs.
    pub upf_n3: IpAddr,
}

/// The session of each UE of `ues`, in UE order, each with the template of the gNB whose
/// `ues` hold it (the first gNB's when none does); CP SEID `i + 1` for UE `i`; `cp` is the CP
/// function's N4 address (its Node ID and F-SEID).
pub fn session_plans_over(
    profile: &Profile,
    cp: Ipv4Addr,
    gnbs: &[Gnb],
    ues: &UeTable,
) -> Result<Vec<UeSessionPlan>, SessionError> {
    let Some(first) = gnbs.first() else {
        return Ok(Vec::new());
    };
    let template = template(&profile.sessions, cp, first)?;
    let templates: Vec<Arc<SessionTemplate>> = gnbs
        .iter()
        .map(|g| {
            Arc::new(SessionTemplate {
                upf_n3_address: g.upf_n3,
                gnb_n3_address: g.gnb_n3,
                ..template.clone()
            })
        })
        .collect();
    let gnb_of = |i: u32| gnbs.iter().position(|g| g.ues.contains(&i)).unwrap_or(0);
    Ok((0..ues.count)
        .map(|i| {
            UeSessionPlan::new(
                Arc::clone(&templates[gnb_of(i)]),
                UeSession {
                    cp_seid: Seid(u64::from(i) + 1),
                    ue_address: ues.address(i),
                    ue_ipv6: ues.v6.map(|v6| UeIpv6Prefix {
                        prefix: v6.prefix(i),
                        len: v6.prefix_len(),
                    }),
                    uplink_teid: match ues.uplink_teid {
                        UplinkTeids::Sequence(seq) => UplinkTeid::Assigned(seq.get(i)),
                        UplinkTeids::ChosenByUpf => UplinkTeid::ChosenByUpf,
                    },
                    downlink_teid: ues.downlink_teid.get(i),
                },
            )
        })
        .collect())
}

/// The sessions' template from the profile's `sessions`, for the CP function at `cp` and `gnb`.
fn template(s: &Sessions, cp: Ipv4Addr, gnb: &Gnb) -> Result<SessionTemplate, SessionError> {
    let network_instance = dns("sessions.network_instance", &s.network_instance)?;
    let dnn = s
        .dnn
        .as_deref()
        .map(|d| dns("sessions.dnn", d))
        .transpose()?;
    let qer = s.qfi.filter(|_| s.qer.enabled).map(|qfi| QerPlan {
        qfi,
        mbr: (s.qer.mbr_uplink.is_some() || s.qer.mbr_downlink.is_some()).then(|| BitRate {
            ul_kbps: kbps(s.qer.mbr_uplink),
            dl_kbps: kbps(s.qer.mbr_downlink),
        }),
        gbr: (s.qer.gbr_uplink.is_some() || s.qer.gbr_downlink.is_some()).then(|| BitRate {
            ul_kbps: kbps(s.qer.gbr_uplink),
            dl_kbps: kbps(s.qer.gbr_downlink),
        }),
    });
    let urr = s.urr.map(|u| UrrPlan {
        measurement_period_s: u.period.map(|p| p.as_secs() as u32),
        volume_threshold_octets: u.volume_threshold,
    });
    let sdf = s.uplink_sdf_filter.as_deref().map(SdfFilter::flow);
    let (flows, qers) = flow_plans(s);
    Ok(SessionTemplate {
        node_id: NodeId::Ipv4(cp),
        cp_address: cp.into(),
        upf_n3_address: gnb.upf_n3,
        gnb_n3_address: gnb.gnb_n3,
        network_instance,
        dnn,
        uplink_qfi: s.qfi.filter(|_| s.uplink_pdr_qfi),
        uplink_sdf_filter: sdf,
        interface_types: s.interface_types,
        qer: qer.filter(|_| flows.is_empty()),
        urr,
        flows,
        qers,
    })
}

#[cfg(test)]
mod shapes;

#[cfg(test)]
mod tests {
    use upfbench_pfcp::ie::IeType;
    use upfbench_pfcp::message::{MessageBody, SessionEstablishmentRequest};
    use upfbench_pfcp::{Message, SequenceNumber};

    use super::*;

    const SYSTEM: &str = "n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\n\
                          n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\n\
                          pfcp: {local: 192.168.14.111, peer: 192.168.14.151}\n";

    /// The Session Establishment Requests upfbench sends for `sessions` (the profile's
    /// `sessions:` mapping), as they come back from the wire.
    fn requests(sessions: &str) -> Vec<SessionEstablishmentRequest> {
        let system = upfbench_config::system_from_str(SYSTEM, "s.yaml").unwrap();
        let profile = upfbench_config::profile_from_str(
            &format!(
                "name: p\nsessions: {sessions}\nstreams: [{{name: ul, direction: uplink, rate: \
                 1kpps, payload: 100}}]\nduration: 1s\n"
            ),
            "p.yaml",
        )
        .unwrap();
        let plan = crate::plan::build(&system, &profile, None, [None, None]).unwrap();
        session_plans(&system, &profile, &plan.ues)
            .unwrap()
            .iter()
            .map(|p| {
                let m = Message::session(
                    Seid(0),
                    SequenceNumber::new(1).unwrap(),
                    p.establishment_request(),
                );
                let bytes = m.to_vec().unwrap();
                let MessageBody::SessionEstablishmentRequest(r) =
                    Message::parse(&bytes).unwrap().body
                else {
                    panic!("not a Session Establishment Request")
                };
                r
            })
            .collect()
    }

    /// Two pairs, weights 1 and 3: the first quarter of the UEs is pair a's, the rest pair b's;
    /// each session's downlink FAR sends to its pair's gNB (its N3 address) and its uplink F-TEID
    /// is its pair's N3 peer.
    #[test]
    fn each_ue_takes_its_pairs_gnb_and_n3_peer() {
        let system = upfbench_config::system_from_str(
            "pairs:\n\
             - {name: a, workers: [1], \
             n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}, \
             n6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}}\n\
             - {name: b, workers: [2], weight: 3, \
             n3: {device: net_null2, address: 192.168.23.131/24, peer: 192.168.23.151}, \
             n6: {device: net_null3, address: 192.168.26.152/24, peer: 192.168.26.151}}\n\
             pfcp: {local: 192.168.14.111, peer: 192.168.14.151}\n",
            "s.yaml",
        )
        .unwrap();
        let profile = upfbench_config::profile_from_str(
            "name: p\nsessions: {count: 8}\nstreams: [{name: ul, direction: uplink, rate: \
             1kpps, payload: 100}]\nduration: 1s\n",
            "p.yaml",
        )
        .unwrap();
        let plan = crate::plan::build(&system, &profile, None, [None, None]).unwrap();
        let plans = session_plans(&system, &profile, &plan.ues).unwrap();
        let seen: Vec<(String, String)> = plans
            .iter()
            .map(|p| {
                let r = p.establishment_request();
                let gnb = r
                    .create_fars
                    .iter()
                    .find_map(|f| f.forwarding_parameters.as_ref()?.outer_header_creation)
                    .and_then(|o| o.ipv4)
                    .expect("a downlink FAR with Outer Header Creation");
                let upf = r
                    .create_pdrs
                    .iter()
                    .find_map(|pdr| match pdr.pdi.local_f_teid {
                        Some(upfbench_pfcp::ie::Fteid::Assigned { ipv4, .. }) => ipv4,
                        _ => None,
                    })
                    .expect("an uplink F-TEID chosen by the CP");
                (gnb.to_string(), upf.to_string())
            })
            .collect();
        let a = ("192.168.13.131".to_owned(), "192.168.13.151".to_owned());
        let b = ("192.168.23.131".to_owned(), "192.168.23.151".to_owned());
        let mut want = vec![a; 2];
        want.extend(vec![b; 6]);
        assert_eq!(seen, want);
        // One template per pair, shared by its UEs.
        assert!(Arc::ptr_eq(&plans[2].template, &plans[7].template));
        assert!(!Arc::ptr_eq(&plans[1].template, &plans[2].template));
    }

    /// A Create PDR without a Network Instance crashes UPG-VPP v2.0.0 (SIGSEGV in
    /// upf_sxu_stage_4_before_rpc, seen twice in the lab), and UPG-VPP refuses a name that is
    /// not DNS labels of a configured `upf nwi`: every PDR upfbench builds carries the profile's
    /// network instance as DNS labels, whatever the other session settings.
    #[test]
    fn every_create_pdr_carries_the_network_instance_as_dns_labels() {
        for (sessions, labels) in [
            ("{count: 3}", &b"\x08internet"[..]),
            (
                "{count: 2, network_instance: access.mnc001.mcc001}",
                &b"\x06access\x06mnc001\x06mcc001"[..],
            ),
            (
                "{count: 2, uplink_teid: upf, dnn: null}",
                &b"\x08internet"[..],
            ),
            (
                "{count: 2, qer: {enabled: false}, interface_types: false}",
                &b"\x08internet"[..],
            ),
            (
                "{count: 2, qfi: null, pdu_session_container: false, uplink_pdr_qfi: false, \
                 uplink_sdf_filter: 'permit out ip from any to assigned'}",
                &b"\x08internet"[..],
            ),
            (
                "{count: 2, urr: {period: 10s}, network_instance: ims}",
                &b"\x03ims"[..],
            ),
        ] {
            let requests = requests(sessions);
            assert!(!requests.is_empty(), "{sessions}");
            for r in &requests {
                assert_eq!(r.create_pdrs.len(), 2, "{sessions}");
                for pdr in &r.create_pdrs {
                    let ni = pdr.pdi.network_instance.as_ref().unwrap_or_else(|| {
                        panic!(
                            "{sessions}: PDR {:?} without a Network Instance",
                            pdr.pdr_id
                        )
                    });
                    assert_eq!(ni.0, labels, "{sessions}: PDR {:?}", pdr.pdr_id);
                }
                // And the FARs' forwarding parameters name it too.
                for far in &r.create_fars {
                    let fp = far.forwarding_parameters.as_ref().unwrap();
                    assert_eq!(fp.network_instance.as_ref().map(|n| &n.0[..]), Some(labels));
                }
            }
        }
        assert_eq!(IeType::NETWORK_INSTANCE.0, 22);
    }

    #[test]
    fn an_empty_network_instance_is_refused_at_config_time() {
        for bad in ["''", "'.'", "'internet..x'"] {
            let e = upfbench_config::profile_from_str(
                &format!(
                    "name: p\nsessions: {{count: 1, network_instance: {bad}}}\nstreams: [{{name: \
                     ul, direction: uplink, rate: 1kpps, payload: 100}}]\nduration: 1s\n"
                ),
                "p.yaml",
            )
            .unwrap_err();
            assert!(
                e.to_string().contains("sessions.network_instance"),
                "{bad}: {e}"
            );
        }
        // And the plan would not encode one either.
        assert!(dns("sessions.network_instance", "").is_err());
    }
}
