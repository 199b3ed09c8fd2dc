//! The UPF side with IPv6 and dual-stack UEs: a downlink PDR's UE IP Address names the UE's
//! IPv6 prefix (and its IPv4 address for a dual-stack UE); the rules table indexes both, and a
//! prefix belongs to one session.

mod common;

use std::net::{IpAddr, Ipv6Addr};

use common::net::*;
use common::plans::ue_v4;
use common::upf::*;
use upfbench_pfcp::ie::{Cause, FailedRuleId, Fteid, IeType};
use upfbench_pfcp::node::UpfConfig;
use upfbench_pfcp::plan::{UeIpv6Prefix, UeSessionPlan, UplinkTeid};
use upfbench_pfcp::{PdrId, Teid};

fn prefix(text: &str, len: u8) -> UeIpv6Prefix {
    UeIpv6Prefix {
        prefix: text.parse().unwrap(),
        len,
    }
}

/// UE `i` of `plan(i)` over IPv6 only, with `p`.
fn v6_plan(i: u32, p: UeIpv6Prefix) -> UeSessionPlan {
    let mut s = plan(i);
    let address = Ipv6Addr::from_bits(p.prefix.to_bits() | 2);
    s.ue.ue_address = if p.len == 128 { p.prefix } else { address }.into();
    s.ue.ue_ipv6 = Some(p);
    s
}

#[test]
fn an_ipv6_ues_prefix_is_its_downlink_key() {
    let (mut u, now) = associated();
    let p = prefix("2001:db8:45:3::", 64);
    let (_, r) = establish(&mut u, now, v6_plan(0, p).establishment_request(), 2);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let rules = u.rules();
    let d = rules.downlink_v6(p).expect("indexed by its prefix");
    assert_eq!((d.ue_address, d.ue_prefix), (None, Some(p)));
    assert!(d.tunnel.is_some() && d.forward);
    assert_eq!((rules.downlink_count(), rules.downlink_v6_count()), (0, 1));
    assert_eq!(rules.downlink_v6(prefix("2001:db8:45:4::", 64)), None);
    // A /128 (an address per UE) is its own key.
    let single = prefix("2001:db8:45::12e", 128);
    let (_, r) = establish(&mut u, now, v6_plan(1, single).establishment_request(), 3);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    assert_eq!(
        u.rules().downlink_v6(single).unwrap().ue_prefix,
        Some(single)
    );
}

#[test]
fn a_dual_stack_ue_is_indexed_by_both_families() {
    let (mut u, now) = associated();
    let p = prefix("2001:db8:45:7::", 64);
    let mut s = plan(7);
    s.ue.ue_ipv6 = Some(p);
    let (_, r) = establish(&mut u, now, s.establishment_request(), 2);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let rules = u.rules();
    let by_v4 = rules.downlink(ue_v4(&s)).expect("by its IPv4 address");
    assert_eq!(rules.downlink_v6(p), Some(by_v4));
    assert_eq!(
        (by_v4.ue_address, by_v4.ue_prefix),
        (Some(ue_v4(&s)), Some(p))
    );
}

#[test]
fn a_prefix_belongs_to_one_session() {
    let (mut u, now) = associated();
    let p = prefix("2001:db8:45:3::", 64);
    establish(&mut u, now, v6_plan(0, p).establishment_request(), 2);
    let (_, r) = establish(&mut u, now, v6_plan(1, p).establishment_request(), 3);
    assert_eq!(
        rejection(&r),
        (
            73,
            Some(IeType::UE_IP_ADDRESS),
            Some(FailedRuleId::Pdr(PdrId(1)))
        )
    );
    assert_eq!(u.rules().len(), 1);
}

/// `plan(i)` over an IPv6 N3: the UPF's F-TEID and the gNB's tunnel in IPv6, the TEID given
/// (`assigned`) or chosen by the UPF.
fn v6_n3_plan(i: u32, assigned: bool) -> UeSessionPlan {
    let mut s = plan(i);
    let t = std::sync::Arc::make_mut(&mut s.template);
    t.upf_n3_address = "2001:db8:13::151".parse::<Ipv6Addr>().unwrap().into();
    t.gnb_n3_address = "2001:db8:13::131".parse::<Ipv6Addr>().unwrap().into();
    if !assigned {
        s.ue.uplink_teid = UplinkTeid::ChosenByUpf;
    }
    s
}

#[test]
fn an_ipv6_n3_gets_its_f_teid_chosen_in_ipv6_and_its_tunnel_in_ipv6() {
    let n3: Ipv6Addr = "2001:db8:13::151".parse().unwrap();
    let gnb: Ipv6Addr = "2001:db8:13::131".parse().unwrap();
    let (mut u, now) = associated_with(UpfConfig::new(UP, n3, UP_TS, CP.into()));
    let s = v6_n3_plan(0, false);
    let (_, r) = establish(&mut u, now, s.establishment_request(), 2);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    let f = r.created_pdrs[0].local_f_teid.expect("an F-TEID chosen");
    let Fteid::Assigned { teid, ipv4, ipv6 } = f else {
        panic!("{f:?}")
    };
    assert_eq!((ipv4, ipv6), (None, Some(n3)), "in our N3 address's family");
    let rules = u.rules();
    let up = rules
        .uplink(teid)
        .expect("the chosen TEID is the uplink key");
    assert_eq!(up.address, IpAddr::V6(n3));
    let d = rules.downlink(ue_v4(&s)).expect("the IPv4 UE's downlink");
    assert_eq!(d.tunnel.map(|t| t.address), Some(IpAddr::V6(gnb)));
    // Given TEIDs at an IPv6 F-TEID are taken as they are.
    let (_, r) = establish(&mut u, now, v6_n3_plan(1, true).establishment_request(), 3);
    assert_eq!(r.cause, Cause::REQUEST_ACCEPTED);
    assert_eq!(u.rules().uplink(Teid(3)).unwrap().address, IpAddr::V6(n3));
}

#[test]
fn a_choose_of_the_other_family_than_our_n3_is_refused() {
    // An IPv4 N3 asked for an IPv6 F-TEID: Cause 71, Invalid F-TEID allocation option.
    let (mut u, now) = associated();
    let (_, r) = establish(&mut u, now, v6_n3_plan(0, false).establishment_request(), 2);
    assert_eq!(
        rejection(&r),
        (71, Some(IeType::F_TEID), Some(FailedRuleId::Pdr(PdrId(2))))
    );
    assert_eq!(u.rules().len(), 0);
    // An IPv6 N3 asked to tunnel to an IPv4 gNB: Cause 73, Offending IE Outer Header Creation.
    let n3: Ipv6Addr = "2001:db8:13::151".parse().unwrap();
    let (mut u, now) = associated_with(UpfConfig::new(UP, n3, UP_TS, CP.into()));
    let mut s = v6_n3_plan(0, true);
    std::sync::Arc::make_mut(&mut s.template).gnb_n3_address = GNB_N3.into();
    let (_, r) = establish(&mut u, now, s.establishment_request(), 2);
    assert_eq!(
        rejection(&r),
        (
            73,
            Some(IeType::OUTER_HEADER_CREATION),
            Some(FailedRuleId::Far(upfbench_pfcp::FarId(1)))
        )
    );
}
