//! The UPF's failures as the run sees them: the PFCP client's news of a restart or of a lost
//! heartbeat become the run's decision (stop, re-establish, go on), a line on the timeline,
//! an entry of the report's control section, and a split of the running step's loss at the
//! last moment the UPF was known to be well.
//!
//! The split is taken from the workers' counters, sampled by the run's loop (every 10 to
//! 50 ms): packets sent and received over all the step's phases, so that what the step lost
//! before the failure and what it lost from then on add up to all it lost.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use upfbench_pfcp::node::Event as PfcpEvent;
use upfbench_report::{FaultLoss, UpfAction, UpfFault, UpfFaultKind};

use super::n4::N4Work;
use crate::report::{RunEvent, Timeline, UpfChange};
use upfbench_cli::out;
use upfbench_config::{OnUpfLoss, OnUpfRestart, Pfcp};
use upfbench_n4::client_side::UpfNews;
use upfbench_run::lifecycle::{Event, Lifecycle};

/// How long the counter samples of a step are kept: longer than any heartbeat interval and
/// T1 × (N1 + 1) a system file allows.
const KEEP: Duration = Duration::from_secs(300);

/// The step's packets sent and received, as the workers last published them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Totals {
    pub(super) sent: u64,
    pub(super) received: u64,
}

/// A restart being recovered from: the fault it is, and the received count when the sessions
/// were back (the first packet beyond it is the traffic flowing again).
#[derive(Debug, Clone, Copy)]
struct Recovery {
    fault: usize,
    baseline: Option<u64>,
}

/// The run's view of the UPF's failures.
pub(super) struct UpfWatch {
    on_restart: OnUpfRestart,
    on_loss: OnUpfLoss,
    /// A request's whole retransmission time: a heartbeat given up was sent this long before.
    retransmission_span: Duration,
    /// Our heartbeats' interval: the one before a heartbeat given up was answered.
    heartbeat: Duration,
    /// The UPF's N4 address, to associate with again.
    peer: String,
    run_started: Instant,
    faults: Vec<UpfFault>,
    recovery: Option<Recovery>,
    /// The heartbeat-loss fault of the current silence, whose losses are counted.
    silence: Option<usize>,
    samples: VecDeque<(Instant, Totals)>,
    step_started: Option<Instant>,
    /// Where the running step's loss is split: the failure, and the counters then.
    splits: Vec<(UpfFaultKind, Instant, Totals)>,
}

fn secs(from: Instant, to: Instant) -> f64 {
    to.saturating_duration_since(from).as_secs_f64()
}

impl UpfWatch {
    pub(super) fn new(pfcp: Option<&Pfcp>, run_started: Instant) -> UpfWatch {
        UpfWatch {
            on_restart: pfcp.map_or(OnUpfRestart::Stop, |p| p.on_upf_restart),
            on_loss: pfcp.map_or(OnUpfLoss::Stop, |p| p.on_upf_loss),
            retransmission_span: pfcp.map_or(Duration::ZERO, |p| p.t1 * (p.n1 + 1)),
            heartbeat: pfcp.and_then(|p| p.heartbeat).unwrap_or_default(),
            peer: pfcp.map_or(String::new(), |p| p.peer.to_string()),
            run_started,
            faults: Vec::new(),
            recovery: None,
            silence: None,
            samples: VecDeque::new(),
            step_started: None,
            splits: Vec::new(),
        }
    }

    /// Whether the run waits for traffic to flow again (its loop then looks every 10 ms).
    pub(super) fn busy(&self) -> bool {
        self.recovery.is_some()
    }

    /// The failures seen so far, for the report's control section.
    pub(super) fn faults(&self) -> &[UpfFault] {
        &self.faults
    }

    /// A step's workers started now.
    pub(super) fn step_started(&mut self, now: Instant) {
        self.samples.clear();
        self.splits.clear();
        self.step_started = Some(now);
    }

    /// The running step's counters now.
    pub(super) fn sample(&mut self, now: Instant, totals: Totals) {
        self.samples.push_back((now, totals));
        while self
            .samples
            .front()
            .is_some_and(|(t, _)| now.saturating_duration_since(*t) > KEEP)
        {
            self.samples.pop_front();
        }
        if let Some(r) = &mut self.recovery
            && let Some(base) = r.baseline
            && totals.received > base
        {
            let fault = r.fault;
            self.recovery = None;
            let f = &mut self.faults[fault];
            f.traffic_again_at_s = Some(secs(self.run_started, now));
            f.outage_s = f
                .after_s
                .map(|a| f.traffic_again_at_s.unwrap_or_default() - a);
            out::line(&format!(
                "PFCP: traffic flows again {:.3} s after the UPF's restart was seen",
                f.traffic_again_at_s.unwrap_or_default() - f.at_s
            ));
        }
    }

    /// The counters at `at`: the last sample taken then or before (zero before the step).
    fn totals_at(&self, at: Instant) -> Totals {
        self.samples
            .iter()
            .rev()
            .find(|(t, _)| *t <= at)
            .map_or(Totals::default(), |(_, c)| *c)
    }

    /// The running step's loss split at each failure seen during it, from its counters at its
    /// end.
    pub(super) fn step_collected(&mut self, end: Totals) -> Vec<FaultLoss> {
        let started = self.step_started.take();
        self.splits
            .drain(..)
            .map(|(kind, at, before)| {
                let lost = end.sent.saturating_sub(end.received);
                // Those in flight at the split were not lost if the step lost nothing.
                let lost_before = before.sent.saturating_sub(before.received).min(lost);
                FaultLoss {
                    kind,
                    split_s: started.map_or(0.0, |s| secs(s, at)),
                    sent_before: before.sent,
                    lost_before,
                    sent_after: end.sent.saturating_sub(before.sent),
                    lost_after: lost.saturating_sub(lost_before),
                }
            })
            .collect()
    }

    /// Takes the client's news and the end of a re-establishment; tells `machine` what the run
    /// is to do. `step`: the step running, if one is; `totals` its counters now.
    pub(super) fn poll(
        &mut self,
        news: Vec<UpfNews>,
        machine: &mut Lifecycle,
        n4: &mut N4Work<'_>,
        step: Option<usize>,
        totals: Option<Totals>,
        tl: &mut Timeline,
    ) {
        for (at, e) in news {
            self.news(at, e, machine, n4, step, tl);
        }
        if let Some((n, at)) = n4.take_reestablished()
            && let Some(r) = &mut self.recovery
        {
            let f = &mut self.faults[r.fault];
            f.reestablished = Some(n as u64);
            f.reestablished_at_s = Some(secs(self.run_started, at));
            if n as u64 == f.sessions_lost && machine.failure().is_none() {
                f.action = UpfAction::Reestablished;
                r.baseline = Some(totals.map_or(0, |t| t.received));
                tl.record(
                    at,
                    RunEvent::Upf {
                        what: UpfChange::Reestablished,
                        sessions: Some(n as u64),
                        detail: format!(
                            "{:.3} s after the restart was seen",
                            secs(self.run_started, at) - f.at_s
                        ),
                    },
                );
            } else {
                f.action = UpfAction::ReestablishmentFailed;
                self.recovery = None;
            }
        }
    }

    fn news(
        &mut self,
        at: Instant,
        e: PfcpEvent,
        machine: &mut Lifecycle,
        n4: &mut N4Work<'_>,
        step: Option<usize>,
        tl: &mut Timeline,
    ) {
        match e {
            PfcpEvent::PeerRestarted {
                previous,
                current,
                previous_seen,
                sessions_lost,
                ..
            } => {
                let detail = format!(
                    "Recovery Time Stamp {} -> {} (NTP seconds)",
                    previous.0, current.0
                );
                self.restart(
                    at,
                    previous_seen,
                    step,
                    sessions_lost as u64,
                    detail,
                    machine,
                    tl,
                );
            }
            PfcpEvent::PeerReleased { sessions_lost, .. } => {
                let detail = "the UPF released the association".to_owned();
                self.restart(at, at, step, sessions_lost as u64, detail, machine, tl);
            }
            PfcpEvent::HeartbeatLost { seq, .. } => {
                self.heartbeat_lost(at, seq.get(), step, machine, n4, tl)
            }
            other => tracing::warn!("PFCP: {other:?}"),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn restart(
        &mut self,
        at: Instant,
        previous_seen: Instant,
        step: Option<usize>,
        sessions_lost: u64,
        detail: String,
        machine: &mut Lifecycle,
        tl: &mut Timeline,
    ) {
        let t = secs(self.run_started, at);
        // The UPF answers again: a later silence is a fault of its own.
        self.silence = None;
        let message = format!(
            "the UPF restarted ({detail}), seen at {t:.3} s: the {sessions_lost} sessions it held \
             are lost"
        );
        out::line(&format!("PFCP: {message}"));
        if step.is_some() {
            self.splits.push((
                UpfFaultKind::Restart,
                previous_seen,
                self.totals_at(previous_seen),
            ));
        }
        let reestablish = self.on_restart == OnUpfRestart::Reestablish;
        machine.handle(
            at,
            Event::UpfRestarted {
                reestablish,
                message: message.clone(),
            },
        );
        let recovering = reestablish && !machine.stopped_early();
        let action = if recovering {
            UpfAction::Reestablishing
        } else {
            UpfAction::Stopped
        };
        self.faults.push(UpfFault {
            kind: UpfFaultKind::Restart,
            at_s: t,
            after_s: Some(secs(self.run_started, previous_seen)),
            step,
            sessions_lost,
            detail: detail.clone(),
            action,
            reestablished: None,
            reestablished_at_s: None,
            traffic_again_at_s: None,
            outage_s: None,
            heartbeats_lost: None,
        });
        if recovering {
            self.recovery = Some(Recovery {
                fault: self.faults.len() - 1,
                baseline: None,
            });
        }
        tl.record(
            at,
            RunEvent::Upf {
                what: UpfChange::Restart,
                sessions: Some(sessions_lost),
                detail: format!("{detail}; {action}"),
            },
        );
    }

    fn heartbeat_lost(
        &mut self,
        at: Instant,
        seq: u32,
        step: Option<usize>,
        machine: &mut Lifecycle,
        n4: &mut N4Work<'_>,
        tl: &mut Timeline,
    ) {
        if let Some(i) = self.silence {
            let n = self.faults[i].heartbeats_lost.get_or_insert(1);
            *n += 1;
            return;
        }
        let t = secs(self.run_started, at);
        // The heartbeat before the one given up was answered: the UPF was well when it was sent.
        let sent = at
            .checked_sub(self.retransmission_span + self.heartbeat)
            .unwrap_or(at);
        let detail = format!(
            "Heartbeat Request {seq} unanswered, given up {:.3} s after it was first sent",
            self.retransmission_span.as_secs_f64()
        );
        let stop = self.on_loss == OnUpfLoss::Stop;
        let reassociate = self.on_loss == OnUpfLoss::Reassociate;
        out::line(&format!(
            "PFCP: the UPF stopped answering: {detail} (seen at {t:.3} s); {}",
            match self.on_loss {
                OnUpfLoss::Stop => "the run stops",
                OnUpfLoss::Continue => "the run goes on",
                OnUpfLoss::Reassociate => "setting up the association again",
            }
        ));
        if step.is_some() {
            self.splits
                .push((UpfFaultKind::HeartbeatLost, sent, self.totals_at(sent)));
        }
        self.faults.push(UpfFault {
            kind: UpfFaultKind::HeartbeatLost,
            at_s: t,
            after_s: Some(secs(self.run_started, sent)),
            step,
            sessions_lost: 0,
            detail: detail.clone(),
            action: match self.on_loss {
                OnUpfLoss::Stop => UpfAction::Stopped,
                OnUpfLoss::Continue => UpfAction::Continued,
                OnUpfLoss::Reassociate => UpfAction::Reassociated,
            },
            reestablished: None,
            reestablished_at_s: None,
            traffic_again_at_s: None,
            outage_s: None,
            heartbeats_lost: Some(1),
        });
        self.silence = Some(self.faults.len() - 1);
        tl.record(
            at,
            RunEvent::Upf {
                what: UpfChange::HeartbeatLost,
                sessions: None,
                detail: detail.clone(),
            },
        );
        if reassociate && !machine.stopped_early() {
            // A UPF that restarted may answer nothing but an Association Setup (Open5GS drops
            // a heartbeat of a CP it has no association with): its response tells a restart
            // (a new Recovery Time Stamp) from a UPF that was only out of reach. One that does
            // not answer that either stops the run (the association's failure).
            n4.associate(&self.peer, at, tl);
        }
        if stop {
            machine.handle(
                at,
                Event::UpfLost(format!(
                    "the UPF stopped answering at {t:.3} s: {detail}; its sessions were not \
                     deleted"
                )),
            );
        }
    }
}
