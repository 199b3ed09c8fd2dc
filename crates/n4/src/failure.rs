//! What the run says when the UPF did not establish or delete every session: which session
//! (its index in the plan, its UE address and CP SEID), and why in the UPF's words (the Cause,
//! the Offending IE, the failed rule).

use upfbench_pfcp::driver::{DeleteAllError, EstablishAllError};
use upfbench_pfcp::plan::UeSessionPlan;

/// `PFCP: session 0 (UE 10.45.0.2) was not established (0 of 4 were): Session Establishment (CP
/// SEID 0x1) rejected by 127.0.0.2:8805 (sequence number 3): Rule creation/modification Failure
/// (73), offending IE Network Instance (22), failed rule PDR 1`. `plans` are the plans the
/// batch was given, the run's sessions from `first` on.
pub fn establishment_failure(
    e: &EstablishAllError,
    plans: &[UeSessionPlan],
    first: usize,
) -> String {
    let counts = format!("{} of {} were", e.established, e.total);
    match e.plan.and_then(|i| Some((i, plans.get(i)?))) {
        Some((i, plan)) => format!(
            "PFCP: session {} (UE {}) was not established ({counts}): {}",
            first + i,
            plan.ue_address(),
            e.error
        ),
        None => format!(
            "PFCP: not every session was established ({counts}): {}",
            e.error
        ),
    }
}

/// `PFCP: session 2 (UE 10.45.0.4) was not deleted (1 of 3 were): Session Deletion (CP SEID
/// 0x3) rejected by 127.0.0.2:8805 (sequence number 9): Request rejected (64)`. `plans` are
/// the plans the establishment was given: the session is found by its CP SEID.
pub fn deletion_failure(e: &DeleteAllError, plans: &[UeSessionPlan]) -> String {
    let counts = format!("{} of {} were", e.deleted, e.total);
    let session = e
        .cp_seid
        .and_then(|seid| plans.iter().enumerate().find(|(_, p)| p.cp_seid() == seid));
    match session {
        Some((i, plan)) => format!(
            "PFCP: session {i} (UE {}) was not deleted ({counts}): {}",
            plan.ue_address(),
            e.error
        ),
        None => format!(
            "PFCP: not every session was deleted ({counts}): {}",
            e.error
        ),
    }
}

#[cfg(test)]
mod tests {
    use std::net::{Ipv4Addr, SocketAddr};

    use upfbench_pfcp::ie::{Cause, FailedRuleId, IeType};
    use upfbench_pfcp::node::{NodeError, Procedure};
    use upfbench_pfcp::{PdrId, Seid, SequenceNumber};

    use super::*;

    fn plans() -> Vec<UeSessionPlan> {
        let system: upfbench_config::System =
            upfbench_config::system_from_str("n3: {device: net_null0, address: 192.168.13.131/24, peer: 192.168.13.151}\nn6: {device: net_null1, address: 192.168.16.152/24, peer: 192.168.16.151}\npfcp: {local: 127.0.0.1, peer: 127.0.0.2}\n", "s.yaml")
                .unwrap();
        let profile = upfbench_config::profile_from_str(
            "name: p\nsessions: {count: 3}\nstreams: [{name: ul, direction: uplink, rate: 1kpps, payload: 100}]\nduration: 1s\n",
            "p.yaml",
        )
        .unwrap();
        let plan = upfbench_run::plan::build(&system, &profile, None, [None, None]).unwrap();
        upfbench_run::plan::sessions::session_plans(&system, &profile, &plan.ues).unwrap()
    }

    #[test]
    fn a_rejection_names_the_session_its_ue_the_cause_the_offending_ie_and_the_rule() {
        let plans = plans();
        let upf: SocketAddr = "127.0.0.2:8805".parse().unwrap();
        let e = EstablishAllError {
            established: 1,
            total: 3,
            plan: Some(2),
            error: NodeError::Rejected {
                procedure: Procedure::SessionEstablishment(plans[2].cp_seid()),
                peer: upf,
                seq: SequenceNumber::new(5).unwrap(),
                cause: Cause::RULE_CREATION_MODIFICATION_FAILURE,
                offending_ie: Some(IeType::NETWORK_INSTANCE),
                failed_rule: Some(FailedRuleId::Pdr(PdrId(1))),
            },
        };
        assert_eq!(plans[2].ue_address(), Ipv4Addr::new(10, 45, 0, 4));
        assert_eq!(
            establishment_failure(&e, &plans, 0),
            format!(
                "PFCP: session 2 (UE 10.45.0.4) was not established (1 of 3 were): Session \
                 Establishment (CP SEID {:#x}) rejected by 127.0.0.2:8805 (sequence number 5): \
                 Rule creation/modification Failure (73), offending IE Network Instance (22), \
                 failed rule PDR 1",
                plans[2].cp_seid().0
            )
        );
    }

    #[test]
    fn a_failed_deletion_names_the_session_its_ue_and_its_cp_seid() {
        let plans = plans();
        let upf: SocketAddr = "127.0.0.2:8805".parse().unwrap();
        let seid = plans[2].cp_seid();
        let e = DeleteAllError {
            deleted: 1,
            total: 3,
            cp_seid: Some(seid),
            error: NodeError::Rejected {
                procedure: Procedure::SessionDeletion(seid),
                peer: upf,
                seq: SequenceNumber::new(9).unwrap(),
                cause: Cause::REQUEST_REJECTED,
                offending_ie: None,
                failed_rule: None,
            },
        };
        assert_eq!(seid, Seid(3));
        assert_eq!(
            deletion_failure(&e, &plans),
            "PFCP: session 2 (UE 10.45.0.4) was not deleted (1 of 3 were): Session Deletion \
             (CP SEID 0x3) rejected by 127.0.0.2:8805 (sequence number 9): Request rejected (64)"
        );
        // A timeout names the session the same way.
        let seid = plans[0].cp_seid();
        let e = DeleteAllError {
            deleted: 2,
            total: 3,
            cp_seid: Some(seid),
            error: NodeError::Timeout {
                procedure: Procedure::SessionDeletion(seid),
                peer: upf,
                seq: SequenceNumber::new(7).unwrap(),
                attempts: 4,
            },
        };
        assert_eq!(
            deletion_failure(&e, &plans),
            "PFCP: session 0 (UE 10.45.0.2) was not deleted (2 of 3 were): Session Deletion \
             (CP SEID 0x1) with 127.0.0.2:8805: no response to sequence number 7 after 4 \
             transmissions"
        );
        // A driver that stopped names no session.
        let e = DeleteAllError {
            deleted: 0,
            total: 0,
            cp_seid: None,
            error: NodeError::Aborted {
                procedure: Procedure::SessionDeletion(Seid(0)),
                reason: "the PFCP driver stopped",
            },
        };
        assert_eq!(
            deletion_failure(&e, &plans),
            "PFCP: not every session was deleted (0 of 0 were): Session Deletion (CP SEID 0x0) \
             aborted: the PFCP driver stopped"
        );
    }

    #[test]
    fn without_a_plan_index_the_counts_and_the_error_remain() {
        let e = EstablishAllError {
            established: 0,
            total: 3,
            plan: None,
            error: NodeError::Aborted {
                procedure: Procedure::SessionEstablishment(Seid(0)),
                reason: "the PFCP driver stopped",
            },
        };
        assert_eq!(
            establishment_failure(&e, &plans(), 0),
            "PFCP: not every session was established (0 of 3 were): Session Establishment \
             (CP SEID 0x0) aborted: the PFCP driver stopped"
        );
    }
}
