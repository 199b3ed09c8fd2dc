//! The UPF side with IPv6 and dual-stack UEs: a downlink PDR's UE IP Address names the UE's
//! IPv6 prefix (and its IPv4 address for a dual-stack UE); the rules table indexes both, and a
//! prefix belongs to one session.

mod common;

use std::net::Ipv6Addr;

use common::net::*;
use common::plans::ue_v4;
use common::upf::*;
use upfbench_pfcp::PdrId;
use upfbench_pfcp::ie::{Cause, FailedRuleId, IeType};
use upfbench_pfcp::plan::{UeIpv6Prefix, UeSessionPlan};

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
