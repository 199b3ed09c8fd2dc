//! Checks of what the UPF answered against the system file.

use std::net::IpAddr;

use upfbench_pfcp::driver::EstablishAllError;
use upfbench_pfcp::ie::Cause;
use upfbench_pfcp::node::{NodeError, Session};

/// The uplink goes to the N3 peer of the system file: a UPF that chose (CH=1) another address
/// for a session's F-TEID would not receive it there. `None` when every chosen address is the
/// peer (or none was chosen).
pub fn chosen_endpoint_mismatch(sessions: &[Session], n3_peer: IpAddr) -> Option<String> {
    let (i, s, addr) = sessions.iter().enumerate().find_map(|(i, s)| {
        let (_, a) = s.uplink_endpoint()?;
        (a != n3_peer).then_some((i, s, a))
    })?;
    Some(format!(
        "PFCP: the UPF chose the uplink F-TEID address {addr} for session {i} (CP SEID {:#x}), \
         but the system file's N3 peer is {n3_peer}: set n3.peer to the UPF's GTP-U address",
        s.cp_seid.0
    ))
}

/// What a rejected establishment most likely means for the user, when the Cause says more than
/// its name: the run's message gets it after the UPF's answer.
pub fn establishment_hint(e: &EstablishAllError) -> Option<String> {
    let NodeError::Rejected { cause, .. } = &e.error else {
        return None;
    };
    match *cause {
        // A UPF that took some sessions and then refuses to create rules is out of room for
        // them: eUPF's eBPF maps are sized when it is built.
        Cause::RULE_CREATION_MODIFICATION_FAILURE | Cause::NO_RESOURCES_AVAILABLE
            if e.established > 0 =>
        {
            Some(format!(
                "the UPF took {} sessions, then refused to create more rules: its rule tables \
                 are full (eUPF 0.7.1 as released holds 512 sessions, 2 FARs each in maps of \
                 1,024; build it with larger maps, see \"Real UPFs: what to set\" in \
                 profiles/README.md), or give sessions.count at most {}",
                e.established, e.established
            ))
        }
        Cause::NO_ESTABLISHED_PFCP_ASSOCIATION => Some(
            "the UPF no longer holds our association (Open5GS drops it when its heartbeats go \
             unanswered, e.g. between two runs: wait 30 s or restart it)"
                .to_owned(),
        ),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use upfbench_pfcp::ie::Fteid;
    use upfbench_pfcp::node::SessionState;
    use upfbench_pfcp::{Seid, Teid};

    use super::*;

    fn session(cp: u64, fteid: Option<Fteid>) -> Session {
        Session {
            cp_seid: Seid(cp),
            up_seid: Some(Seid(cp + 100)),
            up_address: None,
            state: SessionState::Established,
            uplink_f_teid: fteid,
            uplink_pdr: None,
        }
    }

    fn at(addr: IpAddr) -> Option<Fteid> {
        Some(Fteid::assigned(Teid(7), addr))
    }

    fn rejected(established: usize, cause: u8) -> EstablishAllError {
        EstablishAllError {
            established,
            total: 1000,
            plan: Some(established),
            error: NodeError::Rejected {
                procedure: upfbench_pfcp::node::Procedure::SessionEstablishment(Seid(0x201)),
                peer: "192.168.14.151:8805".parse().unwrap(),
                seq: upfbench_pfcp::types::SequenceNumber::new(515).unwrap(),
                cause: Cause(cause),
                offending_ie: None,
                failed_rule: None,
            },
        }
    }

    #[test]
    fn a_full_rule_table_after_some_sessions_says_how_many_fit_and_where_to_look() {
        let h = establishment_hint(&rejected(512, 73)).expect("a hint");
        assert!(h.contains("took 512 sessions"), "{h}");
        assert!(h.contains("rule tables are full"), "{h}");
        assert!(h.contains("eUPF 0.7.1 as released holds 512"), "{h}");
        assert!(h.contains("sessions.count at most 512"), "{h}");
        assert!(establishment_hint(&rejected(3, 75)).is_some());
        // Refused from the first session on: not a table that filled up.
        assert_eq!(establishment_hint(&rejected(0, 73)), None);
    }

    #[test]
    fn a_lost_association_points_at_the_heartbeats_and_other_causes_add_nothing() {
        let h = establishment_hint(&rejected(0, 72)).expect("a hint");
        assert!(h.contains("30 s"), "{h}");
        assert_eq!(establishment_hint(&rejected(10, 66)), None);
        assert_eq!(establishment_hint(&rejected(10, 64)), None);
    }

    #[test]
    fn a_chosen_address_other_than_the_n3_peer_names_the_session_and_both_addresses() {
        let peer = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 13, 151));
        let other = IpAddr::V4(std::net::Ipv4Addr::new(192, 168, 13, 9));
        let ok = [session(1, at(peer)), session(2, None)];
        assert_eq!(chosen_endpoint_mismatch(&ok, peer), None);
        let bad = [session(1, at(peer)), session(0x2a, at(other))];
        let m = chosen_endpoint_mismatch(&bad, peer).unwrap();
        assert!(
            m.contains("192.168.13.9 for session 1 (CP SEID 0x2a)"),
            "{m}"
        );
        assert!(m.contains("N3 peer is 192.168.13.151"), "{m}");
    }

    #[test]
    fn an_ipv6_n3_peer_checks_the_chosen_ipv6_address() {
        let peer: IpAddr = "2001:db8:13::151".parse().unwrap();
        let other: IpAddr = "2001:db8:13::9".parse().unwrap();
        assert_eq!(
            chosen_endpoint_mismatch(&[session(1, at(peer))], peer),
            None
        );
        let m = chosen_endpoint_mismatch(&[session(3, at(other))], peer).unwrap();
        assert!(m.contains("2001:db8:13::9 for session 0"), "{m}");
    }
}
