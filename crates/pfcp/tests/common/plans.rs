//! Session plans shared by the tests and the benchmarks (which include this file by path): the
//! reference client's UE, and UE `i` of a run, on the address plan of the published UPF
//! measurements.

use std::net::Ipv4Addr;

use std::sync::Arc;
use upfbench_pfcp::ie::{DnsName, NodeId, SdfFilter};

use upfbench_pfcp::plan::{QerPlan, SessionTemplate, UeSession, UeSessionPlan, UplinkTeid};
use upfbench_pfcp::{Qfi, Seid, Teid};

pub const UPF_N3: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 151);
pub const GNB_N3: Ipv4Addr = Ipv4Addr::new(192, 168, 13, 131);
const REFERENCE_CP: Ipv4Addr = Ipv4Addr::new(192, 168, 14, 111);

fn internet() -> DnsName {
    DnsName::from_dotted("internet").unwrap()
}

/// The UE of the reference Session Establishment Request (testdata/pfcp.json): no QER, no URR.
pub fn reference_plan() -> UeSessionPlan {
    let template = SessionTemplate {
        node_id: NodeId::Ipv4(REFERENCE_CP),
        cp_address: REFERENCE_CP.into(),
        upf_n3_address: UPF_N3.into(),
        gnb_n3_address: GNB_N3.into(),
        network_instance: internet(),
        dnn: Some(internet()),
        uplink_qfi: Some(Qfi::new(1).unwrap()),
        uplink_sdf_filter: Some(SdfFilter::flow("permit out ip from any to assigned")),
        interface_types: true,
        qer: None,
        urr: None,
        flows: Vec::new(),
        qers: Vec::new(),
    };
    UeSessionPlan::new(
        Arc::new(template),
        UeSession {
            cp_seid: Seid(0xa037_4f94_eb52_b387),
            ue_address: Ipv4Addr::new(10, 45, 0, 2).into(),
            ue_ipv6: None,
            uplink_teid: UplinkTeid::Assigned(Teid(1)),
            downlink_teid: Teid(2),
        },
    )
}

/// The session template of a run whose CP function is `cp`: a QER with QFI 9.
pub fn template(cp: Ipv4Addr) -> SessionTemplate {
    SessionTemplate {
        node_id: NodeId::Ipv4(cp),
        cp_address: cp.into(),
        upf_n3_address: UPF_N3.into(),
        gnb_n3_address: GNB_N3.into(),
        network_instance: internet(),
        dnn: Some(internet()),
        uplink_qfi: None,
        uplink_sdf_filter: None,
        interface_types: true,
        qer: Some(QerPlan {
            qfi: Qfi::new(9).unwrap(),
            mbr: None,
            gbr: None,
        }),
        urr: None,
        flows: Vec::new(),
        qers: Vec::new(),
    }
}

/// UE `i`'s part: CP SEID i+1, UE address 10.45.x.y from .2, uplink TEID 2i+1, downlink TEID
/// 2i+2.
pub fn ue_session(i: u32) -> UeSession {
    UeSession {
        cp_seid: Seid(u64::from(i) + 1),
        ue_address: Ipv4Addr::from(u32::from(Ipv4Addr::new(10, 45, 0, 2)) + i).into(),
        ue_ipv6: None,
        uplink_teid: UplinkTeid::Assigned(Teid(2 * i + 1)),
        downlink_teid: Teid(2 * i + 2),
    }
}

/// UE `i` of a run whose CP function is `cp` (see [`template`] and [`ue_session`]).
pub fn ue_plan(i: u32, cp: Ipv4Addr) -> UeSessionPlan {
    UeSessionPlan::new(Arc::new(template(cp)), ue_session(i))
}

/// The IPv4 UE of a plan here (the UPF side's rules, like the reflector's datapath, are IPv4).
pub fn ue_v4(p: &UeSessionPlan) -> Ipv4Addr {
    match p.ue_address() {
        std::net::IpAddr::V4(a) => a,
        other => panic!("an IPv4 plan has an IPv4 UE, not {other}"),
    }
}
