//! The run's PFCP procedures in flight on the control thread: started when the run's state
//! machine asks, polled between its actions, each outcome handed back to it as an event.

use std::net::Ipv4Addr;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use upfbench_net::Teid;
use upfbench_pfcp::driver::Release;
use upfbench_pfcp::node::{NodeError, Stats};
use upfbench_pfcp::plan::UeSessionPlan;

use crate::app::out;
use crate::lifecycle::{Event, Lifecycle};
use crate::n4::checks::{chosen_endpoint_mismatch, establishment_hint};
use crate::n4::client_side::{
    ClientThread, Deletion, Establishment, HandoverOrder, HandoverOutcome, Pending,
};
use crate::n4::failure::{deletion_failure, establishment_failure};
use crate::n4::progress::{BatchMeter, stalled_message};
use crate::plan::HandoverPlan;
use crate::report::{ControlTimes, RunEvent, Timeline};

/// What the control thread is doing for the run, and the wall times it took.
pub(super) struct N4Work<'a> {
    client: &'a ClientThread,
    sessions: &'a [UeSessionPlan],
    /// The UPF's N3 address, which the F-TEIDs it chooses must carry.
    upf_n3: Ipv4Addr,
    /// A batch with failures and no success for this long talks to a UPF that stopped
    /// answering.
    give_up: Duration,
    association: Option<Pending<Result<upfbench_pfcp::driver::Association, NodeError>>>,
    establishment: Option<(Establishment, BatchMeter)>,
    deletion: Option<(Deletion, BatchMeter)>,
    release: Option<Pending<Result<Release, NodeError>>>,
    stats: Option<Pending<Option<Stats>>>,
    last_stats: Option<Stats>,
    /// When the batches ran and how the release ended (the report's control section).
    pub times: ControlTimes,
}

/// What an established batch changed for the run.
pub(super) enum Established {
    /// Nothing to learn (or nothing established).
    Nothing,
    /// The UPF chose the uplink TEIDs: one per UE, in order.
    UplinkTeids(Vec<Teid>),
}

fn take<T>(p: &mut Pending<T>) -> Result<Option<T>> {
    p.try_take().map_err(|e| anyhow!("{e}"))
}

fn pfcp(
    procedure: &'static str,
    outcome: &'static str,
    count: Option<u64>,
    detail: Option<String>,
) -> RunEvent {
    RunEvent::Pfcp {
        procedure,
        outcome,
        count,
        detail,
    }
}

impl<'a> N4Work<'a> {
    pub(super) fn new(
        client: &'a ClientThread,
        sessions: &'a [UeSessionPlan],
        upf_n3: Ipv4Addr,
        give_up: Duration,
    ) -> N4Work<'a> {
        N4Work {
            client,
            sessions,
            upf_n3,
            give_up,
            association: None,
            establishment: None,
            deletion: None,
            release: None,
            stats: None,
            last_stats: None,
            times: ControlTimes::default(),
        }
    }

    /// The control thread.
    /// Starts the step's handovers: each moving UE's path switch (Update FAR, SNDEM as
    /// planned) at its time after `start`.
    pub(super) fn handovers(
        &self,
        start: Instant,
        plan: &HandoverPlan,
    ) -> Pending<Vec<HandoverOutcome>> {
        let orders = plan
            .moves
            .iter()
            .filter_map(|m| {
                let session = self.sessions.get(m.ue as usize)?;
                Some(HandoverOrder {
                    ue: m.ue,
                    at: Duration::from_nanos(m.at_ns),
                    cp_seid: session.cp_seid(),
                    request: session.path_switch_request(
                        plan.target_teid(m.ue),
                        plan.target_address.into(),
                        plan.end_marker,
                    ),
                })
            })
            .collect();
        self.client.handovers(start, orders)
    }

    pub(super) fn client(&self) -> &'a ClientThread {
        self.client
    }

    /// Whether a procedure is waiting for the UPF (the loop then polls more often: the
    /// batches' rates are measured by it).
    pub(super) fn busy(&self) -> bool {
        self.association.is_some()
            || self.establishment.is_some()
            || self.deletion.is_some()
            || self.release.is_some()
    }

    pub(super) fn associate(&mut self, peer: &str, now: Instant, tl: &mut Timeline) {
        out::line(&format!("PFCP: associating with {peer}"));
        tl.record(
            now,
            pfcp("association", "started", None, Some(peer.to_owned())),
        );
        self.association = Some(self.client.associate());
    }

    pub(super) fn establish(&mut self, now: Instant, tl: &mut Timeline) {
        let count = self.sessions.len() as u64;
        tl.record(now, pfcp("establishment", "started", Some(count), None));
        out::line(&format!(
            "PFCP: establishing {} sessions",
            self.sessions.len()
        ));
        self.times.establish_started = Some(now);
        self.establishment = self
            .client
            .establish(self.sessions.to_vec())
            .map(|b| (b, BatchMeter::new("established", now)));
    }

    pub(super) fn cancel_establishment(&mut self, now: Instant, tl: &mut Timeline) {
        out::line("interrupted: establishment stops after the requests in flight");
        tl.record(now, pfcp("establishment", "cancelled", None, None));
        if let Some((b, _)) = &self.establishment {
            b.cancel();
        }
    }

    /// Starts the deletion; `false` when there is nothing to delete.
    pub(super) fn delete(&mut self, now: Instant, tl: &mut Timeline) -> bool {
        out::line("PFCP: deleting the sessions");
        tl.record(now, pfcp("deletion", "started", None, None));
        self.times.delete_started = Some(now);
        self.deletion = self
            .client
            .delete()
            .map(|b| (b, BatchMeter::new("deleted", now)));
        self.deletion.is_some()
    }

    pub(super) fn release(&mut self, now: Instant, tl: &mut Timeline) {
        tl.record(now, pfcp("release", "started", None, None));
        self.release = Some(self.client.release());
    }

    /// Polls every procedure in flight; tells `machine` what ended. `want_upf_teids`: the UPF
    /// chooses the uplink TEIDs, which an established batch then returns.
    pub(super) fn poll(
        &mut self,
        now: Instant,
        machine: &mut Lifecycle,
        want_upf_teids: bool,
        tl: &mut Timeline,
    ) -> Result<Established> {
        let mut learnt = Established::Nothing;
        if let Some(p) = &mut self.association
            && let Some(r) = take(p)?
        {
            self.association = None;
            match r {
                Ok(a) => {
                    out::line(&format!("PFCP: associated with {}", a.peer));
                    tl.record(
                        now,
                        pfcp("association", "done", None, Some(a.peer.to_string())),
                    );
                    machine.handle(now, Event::Associated);
                }
                Err(e) => {
                    tl.record(
                        now,
                        pfcp("association", "failed", None, Some(e.to_string())),
                    );
                    machine.handle(now, Event::Failed(format!("PFCP association: {e}")));
                }
            }
        }
        if let Some((b, meter)) = &mut self.establishment {
            if let Some(line) = meter.line(now, b.progress(), self.last_stats.as_ref()) {
                out::progress(&line);
                self.stats.get_or_insert_with(|| self.client.stats());
            }
            if meter.stalled(now, b.progress(), self.give_up) {
                out::line(&stalled_message("establishment", self.give_up));
                tl.record(now, pfcp("establishment", "stalled", None, None));
                b.cancel();
            }
        }
        if let Some(p) = &mut self.stats
            && let Some(r) = take(p)?
        {
            self.stats = None;
            self.last_stats = r;
        }
        if let Some((b, _)) = &mut self.establishment
            && let Some(r) = b.try_result()
        {
            self.establishment = None;
            self.times.establish_ended = Some(now);
            match r {
                Ok(sessions) => {
                    out::line(&format!("PFCP: {} sessions established", sessions.len()));
                    tl.record(
                        now,
                        pfcp("establishment", "done", Some(sessions.len() as u64), None),
                    );
                    if want_upf_teids {
                        learnt = Established::UplinkTeids(
                            sessions
                                .iter()
                                .map(|s| s.uplink_endpoint().map_or(Teid::ZERO, |(t, _)| t))
                                .collect(),
                        );
                    }
                    match chosen_endpoint_mismatch(&sessions, self.upf_n3) {
                        Some(m) => machine.handle(now, Event::Failed(m)),
                        None => machine.handle(now, Event::Established),
                    }
                }
                // Cancelled because the user interrupted: not a failure; the teardown
                // deletes what was established.
                Err(e)
                    if machine.stopped_early()
                        && machine.failure().is_none()
                        && matches!(
                            e.error,
                            NodeError::Aborted {
                                reason: "cancelled",
                                ..
                            }
                        ) =>
                {
                    out::line(&format!(
                        "PFCP: {} of {} sessions established before the interruption",
                        e.established, e.total
                    ));
                    tl.record(
                        now,
                        pfcp(
                            "establishment",
                            "cancelled",
                            Some(e.established as u64),
                            None,
                        ),
                    );
                    machine.handle(now, Event::Established);
                }
                Err(e) => {
                    let hint = establishment_hint(&e)
                        .map(|h| format!(": {h}"))
                        .unwrap_or_default();
                    let failure = format!("{}{hint}", establishment_failure(&e, self.sessions));
                    tl.record(
                        now,
                        pfcp(
                            "establishment",
                            "failed",
                            Some(e.established as u64),
                            Some(failure.clone()),
                        ),
                    );
                    machine.handle(now, Event::Failed(failure));
                }
            }
        }
        if let Some((b, meter)) = &mut self.deletion {
            if let Some(line) = meter.line(now, b.progress(), self.last_stats.as_ref()) {
                out::progress(&line);
                self.stats.get_or_insert_with(|| self.client.stats());
            }
            if meter.stalled(now, b.progress(), self.give_up) {
                out::line(&stalled_message("deletion", self.give_up));
                tl.record(now, pfcp("deletion", "stalled", None, None));
                b.cancel();
            }
        }
        if let Some((b, _)) = &mut self.deletion
            && let Some(r) = b.try_result()
        {
            self.deletion = None;
            self.times.delete_ended = Some(now);
            match r {
                Ok(n) => {
                    out::line(&format!("PFCP: {n} sessions deleted"));
                    tl.record(now, pfcp("deletion", "done", Some(n as u64), None));
                    machine.handle(now, Event::Deleted);
                }
                Err(e) => {
                    let failure = deletion_failure(&e, self.sessions);
                    tl.record(now, pfcp("deletion", "failed", None, Some(failure.clone())));
                    machine.handle(now, Event::Failed(failure));
                }
            }
        }
        if let Some(p) = &mut self.release
            && let Some(r) = take(p)?
        {
            self.release = None;
            let (outcome, said) = match r {
                Ok(Release::Answered) => ("done", "answered".to_owned()),
                Ok(Release::Unanswered) => (
                    "unanswered",
                    "not answered (Open5GS, eUPF and UPG-VPP never answer it)".to_owned(),
                ),
                Err(e) => ("failed", format!("failed: {e}")),
            };
            tl.record(now, pfcp("release", outcome, None, Some(said.clone())));
            self.times.release = Some(said);
            machine.handle(now, Event::Released);
        }
        Ok(learnt)
    }
}
