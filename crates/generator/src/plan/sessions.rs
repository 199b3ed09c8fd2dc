//! The PFCP sessions of a run: one per UE, from the profile's session settings and the system
//! file's addresses, by the interoperability rules (docs/pfcp.md) that crates/pfcp's plan
//! encodes.

use std::net::SocketAddr;
use std::sync::Arc;

use upfbench_pfcp::Seid;
use upfbench_pfcp::ie::{BitRate, DnsName, NodeId, SdfFilter};
use upfbench_pfcp::plan::{
    QerPlan, SessionTemplate, UeSession, UeSessionPlan, UplinkTeid, UrrPlan,
};

use super::ue::{UeTable, UplinkTeids};
use crate::config::{Profile, System};

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

/// The session of each UE, in UE order, sharing one template; CP SEID `i + 1` for UE `i`.
pub fn session_plans(
    system: &System,
    profile: &Profile,
    ues: &UeTable,
) -> Result<Vec<UeSessionPlan>, SessionError> {
    let s = &profile.sessions;
    let cp = match system.pfcp.as_ref().map(|p| p.local) {
        Some(SocketAddr::V4(a)) => *a.ip(),
        _ => return Err(SessionError::NoLocalAddress),
    };
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
    let sdf = s.uplink_sdf_filter.as_ref().map(|f| SdfFilter {
        flow_description: Some(f.as_bytes().to_vec()),
        tos_traffic_class: None,
        security_parameter_index: None,
        flow_label: None,
        sdf_filter_id: None,
    });
    let template = Arc::new(SessionTemplate {
        node_id: NodeId::Ipv4(cp),
        cp_address: cp.into(),
        upf_n3_address: system.n3.peer,
        gnb_n3_address: system.n3.address.addr,
        network_instance,
        dnn,
        uplink_qfi: s.qfi.filter(|_| s.uplink_pdr_qfi),
        uplink_sdf_filter: sdf,
        interface_types: s.interface_types,
        qer,
        urr,
    });
    Ok((0..ues.count)
        .map(|i| {
            UeSessionPlan::new(
                Arc::clone(&template),
                UeSession {
                    cp_seid: Seid(u64::from(i) + 1),
                    ue_address: ues.address(i),
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
