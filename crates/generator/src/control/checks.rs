//! Checks of what the UPF answered against the system file.

use std::net::Ipv4Addr;

use upfbench_pfcp::node::Session;

/// The uplink goes to the N3 peer of the system file: a UPF that chose (CH=1) another address
/// for a session's F-TEID would not receive it there. `None` when every chosen address is the
/// peer (or none was chosen).
pub fn chosen_endpoint_mismatch(sessions: &[Session], n3_peer: Ipv4Addr) -> Option<String> {
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

    fn at(addr: Ipv4Addr) -> Option<Fteid> {
        Some(Fteid::Assigned {
            teid: Teid(7),
            ipv4: Some(addr),
            ipv6: None,
        })
    }

    #[test]
    fn a_chosen_address_other_than_the_n3_peer_names_the_session_and_both_addresses() {
        let peer = Ipv4Addr::new(192, 168, 13, 151);
        let other = Ipv4Addr::new(192, 168, 13, 9);
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
}
