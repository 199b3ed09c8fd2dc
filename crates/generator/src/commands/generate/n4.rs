//! The run's PFCP procedures in flight on the control thread: started when the run's state
//! machine asks, polled between its actions, each outcome handed back to it as an event.

use std::net::IpAddr;
use std::ops::Range;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use upfbench_net::Teid;
use upfbench_pfcp::driver::{Batch, EstablishAllError, Release};
use upfbench_pfcp::ie::{Cause, IeType};
use upfbench_pfcp::node::{NodeError, Session, Stats};
use upfbench_pfcp::plan::UeSessionPlan;
use upfbench_report::Release as ReleaseEnd;

use crate::report::{ControlTimes, Outcome, Procedure, RunEvent, Timeline};
use upfbench_cli::out;
use upfbench_n4::checks::{chosen_endpoint_mismatch, establishment_hint};
use upfbench_n4::client_side::{
    ChurnOrders, ChurnOutcome, ChurnSessionOrder, ClientThread, Deletion, Establishment,
    HandoverOrder, HandoverOutcome, Pending,
};
use upfbench_n4::failure::{deletion_failure, establishment_failure};
use upfbench_n4::progress::{BatchMeter, stalled_message};
use upfbench_run::lifecycle::{Event, Lifecycle};
use upfbench_run::plan::{ChurnPlan, GatePlan, HandoverPlan};

/// What the control thread is doing for the run, and the wall times it took.
pub(super) struct N4Work<'a> {
    client: &'a ClientThread,
    sessions: &'a [UeSessionPlan],
    /// The churn sessions' plans (UEs after the traffic's), for steps with churn.
    churn_sessions: &'a [UeSessionPlan],
    /// The UPF's N3 address, which the F-TEIDs it chooses must carry (none when the pairs'
    /// N3 peers differ: not checked).
    upf_n3: Option<IpAddr>,
    /// A batch with failures and no success for this long talks to a UPF that stopped
    /// answering.
    give_up: Duration,
    association: Option<Pending<Result<upfbench_pfcp::driver::Association, NodeError>>>,
    establishment: Option<(Establishment, BatchMeter)>,
    /// The sessions the establishment in flight asks for, and whether a refusal ends a climb
    /// (`upfbench capacity`) rather than the run.
    batch: Option<(Range<usize>, bool)>,
    /// How the last batch of a climb ended, until the interpreter takes it.
    pub batch_end: Option<BatchEnd>,
    deletion: Option<(Deletion, BatchMeter)>,
    release: Option<Pending<Result<Release, NodeError>>>,
    stats: Option<Pending<Option<Stats>>>,
    last_stats: Option<Stats>,
    /// A re-establishment after the UPF restarted: association, then every session again.
    again: Option<Again>,
    /// When the batches ran and how the release ended (the report's control section).
    pub times: ControlTimes,
}

/// A re-establishment: under way, or how it ended (sessions established again, and when).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Again {
    /// Association or establishment in flight.
    Running,
    /// Ended with this many sessions established, at this time.
    Ended(usize, Instant),
}

/// What an established batch changed for the run.
pub(super) enum Established {
    /// Nothing to learn (or nothing established).
    Nothing,
    /// The UPF chose the uplink TEIDs of the sessions from `start` on: one per UE, in order.
    UplinkTeids {
        /// The first session's index.
        start: usize,
        /// Their TEIDs.
        teids: Vec<Teid>,
    },
}

/// How a batch of a climb ended.
#[derive(Debug, Clone)]
pub(crate) struct BatchEnd {
    /// The sessions it asked for.
    pub range: Range<usize>,
    /// Of those, how many from the first on were established before the first refusal (all
    /// of them when there was none).
    pub established: usize,
    /// How long it took.
    pub wall: Duration,
    /// The UPF's first refusal, if any.
    pub refusal: Option<Refusal>,
}

/// The UPF refused a session of a climb.
#[derive(Debug, Clone)]
pub(crate) struct Refusal {
    /// What the run says of it (the session, the Cause, the Offending IE, ...).
    pub text: String,
    /// The Cause, when the UPF answered with one.
    pub cause: Option<Cause>,
    /// The Offending IE, when it named one.
    pub offending_ie: Option<IeType>,
    /// Sessions of the batch established all the same, past the first refusal (in flight).
    pub accepted_after: usize,
}

impl Refusal {
    fn of(e: &EstablishAllError, text: String) -> Refusal {
        let (cause, offending_ie) = match &e.error {
            NodeError::Rejected {
                cause,
                offending_ie,
                ..
            } => (Some(*cause), *offending_ie),
            // A malformed refusal that still says why (Open5GS past its session pool).
            NodeError::InvalidResponse { cause, .. } => (*cause, None),
            _ => (None, None),
        };
        let before = e.plan.unwrap_or(e.established).min(e.established);
        Refusal {
            text,
            cause,
            offending_ie,
            accepted_after: e.established - before,
        }
    }
}

/// The answer waiting in `slot`, once it came; the slot is then empty.
fn take<T>(slot: &mut Option<Pending<T>>) -> Result<Option<T>> {
    let Some(p) = slot else {
        return Ok(None);
    };
    let answer = p.try_take().map_err(|e| anyhow!("{e}"))?;
    if answer.is_some() {
        *slot = None;
    }
    Ok(answer)
}

fn pfcp(
    procedure: Procedure,
    outcome: Outcome,
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
        upf_n3: Option<IpAddr>,
        give_up: Duration,
    ) -> N4Work<'a> {
        N4Work {
            client,
            sessions,
            churn_sessions: &[],
            upf_n3,
            give_up,
            association: None,
            establishment: None,
            batch: None,
            batch_end: None,
            deletion: None,
            release: None,
            stats: None,
            last_stats: None,
            again: None,
            times: ControlTimes::default(),
        }
    }

    /// With the churn sessions' plans (churn session `k` is `churn[k]`).
    pub(super) fn with_churn(mut self, churn: &'a [UeSessionPlan]) -> N4Work<'a> {
        self.churn_sessions = churn;
        self
    }

    /// Starts the step's churn: each churn session established at its time after `start` and
    /// deleted at its own, each modification of a traffic session (its downlink FAR re-sent
    /// unchanged) at its time.
    pub(super) fn churn(&self, start: Instant, plan: &ChurnPlan) -> Pending<Vec<ChurnOutcome>> {
        let sessions = (0..plan.count)
            .filter_map(|k| {
                Some(ChurnSessionOrder {
                    slot: k,
                    establish_at: Duration::from_nanos(plan.establish_at(k)),
                    delete_at: Duration::from_nanos(plan.delete_at(k)),
                    plan: self.churn_sessions.get(k as usize)?.clone(),
                })
            })
            .collect();
        let modifications = plan
            .modifications
            .iter()
            .filter_map(|&(ue, at)| {
                let session = self.sessions.get(ue as usize)?;
                Some(HandoverOrder {
                    ue,
                    at: Duration::from_nanos(at),
                    cp_seid: session.cp_seid(),
                    request: session.refresh_request(),
                })
            })
            .collect();
        self.client.churn(
            start,
            ChurnOrders {
                sessions,
                modifications,
            },
        )
    }

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

    /// Starts closing `gate`'s QER in every session at its time after `start`.
    pub(super) fn close_gates(
        &self,
        start: Instant,
        gate: &GatePlan,
    ) -> Pending<Vec<HandoverOutcome>> {
        self.client
            .handovers(start, super::gate::gate_orders(self.sessions, gate))
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
            pfcp(
                Procedure::Association,
                Outcome::Started,
                None,
                Some(peer.to_owned()),
            ),
        );
        self.association = Some(self.client.associate());
    }

    /// Sets up the association and every session again, after the UPF restarted; the
    /// outcome is told as [`Event::Reestablished`] (a failure first as [`Event::Failed`]).
    pub(super) fn reestablish(&mut self, peer: &str, now: Instant, tl: &mut Timeline) {
        self.again = Some(Again::Running);
        self.associate(peer, now, tl);
    }

    /// How the last re-establishment ended, once (`None` while it runs, or if there was none).
    pub(super) fn take_reestablished(&mut self) -> Option<(usize, Instant)> {
        match self.again {
            Some(Again::Ended(n, at)) => {
                self.again = None;
                Some((n, at))
            }
            _ => None,
        }
    }

    /// The end of an establishment, for the run: the first one's, or a re-establishment's.
    fn established(&mut self, now: Instant, machine: &mut Lifecycle, count: usize) {
        if self.again == Some(Again::Running) {
            self.again = Some(Again::Ended(count, now));
            machine.handle(now, Event::Reestablished);
        } else {
            machine.handle(now, Event::Established);
        }
    }

    /// Establishes the sessions of `batch` (all when `None`); `climb`: a refusal ends a climb
    /// ([`Self::batch_end`]) instead of the run.
    pub(super) fn establish(
        &mut self,
        now: Instant,
        tl: &mut Timeline,
        batch: Option<Range<usize>>,
        climb: bool,
    ) {
        let range = batch.unwrap_or(0..self.sessions.len());
        let count = range.len() as u64;
        tl.record(
            now,
            pfcp(
                Procedure::Establishment,
                Outcome::Started,
                Some(count),
                None,
            ),
        );
        if range.start == 0 {
            out::line(&format!("PFCP: establishing {count} sessions"));
            if self.again.is_none() {
                self.times.establish_started = Some(now);
            }
        } else {
            out::line(&format!(
                "PFCP: establishing {count} more sessions ({} to {})",
                range.start,
                range.end - 1
            ));
        }
        self.establishment = self
            .client
            .establish(self.sessions[range.clone()].to_vec())
            .map(|b| (b, BatchMeter::new("established", now)));
        self.batch = Some((range, climb));
    }

    pub(super) fn cancel_establishment(&mut self, now: Instant, tl: &mut Timeline) {
        out::line("interrupted: establishment stops after the requests in flight");
        tl.record(
            now,
            pfcp(Procedure::Establishment, Outcome::Cancelled, None, None),
        );
        if let Some((b, _)) = &self.establishment {
            b.cancel();
        }
    }

    /// Starts the deletion; `false` when there is nothing to delete.
    pub(super) fn delete(&mut self, now: Instant, tl: &mut Timeline) -> bool {
        out::line("PFCP: deleting the sessions");
        tl.record(now, pfcp(Procedure::Deletion, Outcome::Started, None, None));
        self.times.delete_started = Some(now);
        self.deletion = self
            .client
            .delete()
            .map(|b| (b, BatchMeter::new("deleted", now)));
        self.deletion.is_some()
    }

    pub(super) fn release(&mut self, now: Instant, tl: &mut Timeline) {
        tl.record(now, pfcp(Procedure::Release, Outcome::Started, None, None));
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
        self.poll_association(now, machine, tl)?;
        if let Some(batch) = &mut self.establishment {
            let last_stats = self.last_stats.as_ref();
            watch_batch(
                (Procedure::Establishment, "establishment"),
                batch,
                now,
                self.give_up,
                last_stats,
                tl,
                || {
                    self.stats.get_or_insert_with(|| self.client.stats());
                },
            );
        }
        if let Some(r) = take(&mut self.stats)? {
            self.last_stats = r;
        }
        let learnt = self.poll_establishment(now, machine, want_upf_teids, tl);
        if let Some(batch) = &mut self.deletion {
            let last_stats = self.last_stats.as_ref();
            watch_batch(
                (Procedure::Deletion, "deletion"),
                batch,
                now,
                self.give_up,
                last_stats,
                tl,
                || {
                    self.stats.get_or_insert_with(|| self.client.stats());
                },
            );
        }
        self.poll_deletion(now, machine, tl);
        self.poll_release(now, machine, tl)?;
        Ok(learnt)
    }

    /// The association's outcome, when it came: the establishment next (at once in a
    /// re-establishment), or the run's failure.
    fn poll_association(
        &mut self,
        now: Instant,
        machine: &mut Lifecycle,
        tl: &mut Timeline,
    ) -> Result<()> {
        let Some(r) = take(&mut self.association)? else {
            return Ok(());
        };
        match r {
            Ok(a) => {
                out::line(&format!("PFCP: associated with {}", a.peer));
                tl.record(
                    now,
                    pfcp(
                        Procedure::Association,
                        Outcome::Done,
                        None,
                        Some(a.peer.to_string()),
                    ),
                );
                if self.again.is_some() {
                    self.establish(now, tl, None, false);
                } else {
                    machine.handle(now, Event::Associated);
                }
            }
            Err(e) => {
                tl.record(
                    now,
                    pfcp(
                        Procedure::Association,
                        Outcome::Failed,
                        None,
                        Some(e.to_string()),
                    ),
                );
                machine.handle(now, Event::Failed(format!("PFCP association: {e}")));
                if self.again.is_some() {
                    self.established(now, machine, 0);
                }
            }
        }
        Ok(())
    }

    /// The establishment's outcome, when it came; what it changed for the run.
    fn poll_establishment(
        &mut self,
        now: Instant,
        machine: &mut Lifecycle,
        want_upf_teids: bool,
        tl: &mut Timeline,
    ) -> Established {
        let Some((b, meter)) = &mut self.establishment else {
            return Established::Nothing;
        };
        let Some(r) = b.try_result() else {
            return Established::Nothing;
        };
        let began = meter.started();
        self.establishment = None;
        if self.again.is_none() {
            self.times.establish_ended = Some(now);
        }
        let (range, climb) = self.batch.take().unwrap_or((0..self.sessions.len(), false));
        let ended = EndedBatch {
            range,
            climb,
            began,
            want_upf_teids,
        };
        match r {
            Ok(sessions) => return self.batch_established(now, machine, tl, &ended, &sessions),
            Err(e) => self.batch_failed(now, machine, tl, &ended, &e),
        }
        Established::Nothing
    }

    /// Every session of the batch `ended` is established (`sessions`): the UPF's TEIDs
    /// learnt when it chose them, a climb's batch recorded, its F-TEIDs checked.
    fn batch_established(
        &mut self,
        now: Instant,
        machine: &mut Lifecycle,
        tl: &mut Timeline,
        ended: &EndedBatch,
        sessions: &[Session],
    ) -> Established {
        let mut learnt = Established::Nothing;
        out::line(&format!("PFCP: {} sessions established", sessions.len()));
        tl.record(
            now,
            pfcp(
                Procedure::Establishment,
                Outcome::Done,
                Some(sessions.len() as u64),
                None,
            ),
        );
        if ended.want_upf_teids {
            learnt = Established::UplinkTeids {
                start: ended.range.start,
                teids: sessions
                    .iter()
                    .map(|s| s.uplink_endpoint().map_or(Teid::ZERO, |(t, _)| t))
                    .collect(),
            };
        }
        if ended.climb {
            *self.times.establish_busy.get_or_insert_default() += now - ended.began;
            self.batch_end = Some(BatchEnd {
                established: ended.range.len(),
                range: ended.range.clone(),
                wall: now - ended.began,
                refusal: None,
            });
        }
        if let Some(m) = self
            .upf_n3
            .and_then(|n3| chosen_endpoint_mismatch(sessions, n3))
        {
            machine.handle(now, Event::Failed(m));
        }
        self.established(now, machine, sessions.len());
        learnt
    }

    /// The batch `ended` failed with `e`: cut short by the user's interruption (not a
    /// failure: the teardown deletes what was established), refused in a climb (the capacity
    /// found), or the run's failure.
    fn batch_failed(
        &mut self,
        now: Instant,
        machine: &mut Lifecycle,
        tl: &mut Timeline,
        ended: &EndedBatch,
        e: &EstablishAllError,
    ) {
        let interrupted = machine.stopped_early()
            && machine.failure().is_none()
            && matches!(
                e.error,
                NodeError::Aborted {
                    reason: "cancelled",
                    ..
                }
            );
        if interrupted {
            out::line(&format!(
                "PFCP: {} of {} sessions established before the interruption",
                e.established, e.total
            ));
            tl.record(
                now,
                pfcp(
                    Procedure::Establishment,
                    Outcome::Cancelled,
                    Some(e.established as u64),
                    None,
                ),
            );
            self.established(now, machine, e.established);
        } else if ended.climb && !machine.stopped_early() {
            self.climb_refused(now, machine, tl, ended, e);
        } else {
            let plans = &self.sessions[ended.range.clone()];
            let hint = establishment_hint(e)
                .map(|h| format!(": {h}"))
                .unwrap_or_default();
            let failure = format!(
                "{}{hint}",
                establishment_failure(e, plans, ended.range.start)
            );
            tl.record(
                now,
                pfcp(
                    Procedure::Establishment,
                    Outcome::Failed,
                    Some(e.established as u64),
                    Some(failure.clone()),
                ),
            );
            machine.handle(now, Event::Failed(failure));
            if self.again.is_some() {
                self.established(now, machine, e.established);
            }
        }
    }

    /// A climb's batch `ended` at the UPF's first refusal (`e`): the capacity found.
    fn climb_refused(
        &mut self,
        now: Instant,
        machine: &mut Lifecycle,
        tl: &mut Timeline,
        ended: &EndedBatch,
        e: &EstablishAllError,
    ) {
        let plans = &self.sessions[ended.range.clone()];
        let text = establishment_failure(e, plans, ended.range.start);
        out::line(&format!("capacity: {text}"));
        tl.record(
            now,
            pfcp(
                Procedure::Establishment,
                Outcome::Refused,
                Some(e.established as u64),
                Some(text.clone()),
            ),
        );
        let refusal = Refusal::of(e, text);
        *self.times.establish_busy.get_or_insert_default() += now - ended.began;
        // With the UPF's own TEIDs, only whole batches are known (the partial batch's TEIDs
        // are not returned): traffic stays on those.
        let established = if ended.want_upf_teids {
            0
        } else {
            e.established - refusal.accepted_after
        };
        self.batch_end = Some(BatchEnd {
            range: ended.range.clone(),
            established,
            wall: now - ended.began,
            refusal: Some(refusal),
        });
        machine.handle(now, Event::Established);
    }

    /// The deletion's outcome, when it came.
    fn poll_deletion(&mut self, now: Instant, machine: &mut Lifecycle, tl: &mut Timeline) {
        let Some((b, _)) = &mut self.deletion else {
            return;
        };
        let Some(r) = b.try_result() else {
            return;
        };
        self.deletion = None;
        self.times.delete_ended = Some(now);
        match r {
            Ok(n) => {
                out::line(&format!("PFCP: {n} sessions deleted"));
                tl.record(
                    now,
                    pfcp(Procedure::Deletion, Outcome::Done, Some(n as u64), None),
                );
                machine.handle(now, Event::Deleted);
            }
            Err(e) => {
                let failure = deletion_failure(&e, self.sessions);
                tl.record(
                    now,
                    pfcp(
                        Procedure::Deletion,
                        Outcome::Failed,
                        None,
                        Some(failure.clone()),
                    ),
                );
                machine.handle(now, Event::Failed(failure));
            }
        }
    }

    /// The release's outcome, when it came (answered or not, it ends the run's N4 part).
    fn poll_release(
        &mut self,
        now: Instant,
        machine: &mut Lifecycle,
        tl: &mut Timeline,
    ) -> Result<()> {
        let Some(r) = take(&mut self.release)? else {
            return Ok(());
        };
        let (outcome, release, said) = match r {
            Ok(Release::Answered) => (Outcome::Done, ReleaseEnd::Answered, "answered".to_owned()),
            Ok(Release::Unanswered) => (
                Outcome::Unanswered,
                ReleaseEnd::NotAnswered,
                "not answered (Open5GS, eUPF and UPG-VPP never answer it)".to_owned(),
            ),
            Err(e) => (Outcome::Failed, ReleaseEnd::Failed, format!("failed: {e}")),
        };
        tl.record(now, pfcp(Procedure::Release, outcome, None, Some(said)));
        self.times.release = Some(release);
        machine.handle(now, Event::Released);
        Ok(())
    }
}

/// An establishment batch that ended: its sessions, whether it was a climb's, when it began,
/// and whether the UPF chose the uplink TEIDs.
struct EndedBatch {
    range: Range<usize>,
    climb: bool,
    began: Instant,
    want_upf_teids: bool,
}

/// Watches a batch in flight: prints its progress line when its meter says so (and calls
/// `ask_stats`, for the node's figures on the next line), and cancels it once it has made no
/// progress for `give_up` (`procedure`, with its name for the message).
fn watch_batch<T, E>(
    (procedure, name): (Procedure, &str),
    (b, meter): &mut (Batch<T, E>, BatchMeter),
    now: Instant,
    give_up: Duration,
    last_stats: Option<&Stats>,
    tl: &mut Timeline,
    ask_stats: impl FnOnce(),
) {
    if let Some(line) = meter.line(now, b.progress(), last_stats) {
        out::progress(&line);
        ask_stats();
    }
    if meter.stalled(now, b.progress(), give_up) {
        out::line(&stalled_message(name, give_up));
        tl.record(now, pfcp(procedure, Outcome::Stalled, None, None));
        b.cancel();
    }
}
