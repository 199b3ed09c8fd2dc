//! Carries out what the run's state machine asks for, and tells it what happened: one method
//! per [`Action`], and a loop that waits for the next thing to happen (the UPF's answers, the
//! workers, an interruption, the machine's timers) between them.

mod resolve;
mod start;

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow};
use upfbench_dpdk::{Eal, LcoreScope, Mempool, Port};
use upfbench_net::{MacAddr, Qfi, Teid};
use upfbench_report::Report;

use super::bed::WorkerQueues;
use super::marks::{DrainEnd, PhaseMarks};
use super::n4::{Established, N4Work};
use super::program::Program;
use super::step::{self, Running, StepResult, step_clock};
use super::upf_watch::UpfWatch;
use super::{Setup, run_hook};
use crate::commands::step_hook::StepEdge;
use crate::datapath::assembly::{Idle, PairWiring, StepWiring};
use crate::datapath::frames::{Endpoints, Endpoints6};
use crate::metrics::{PfcpSampler, StepMetrics};
use crate::report::{self, ControlTimes, RunEvent, StepFigures, Timeline};
use upfbench_cli::out;
use upfbench_cli::signals::Interrupts;
use upfbench_datapath::calibration::TscCalibration;
use upfbench_datapath::service::Interface;
use upfbench_datapath::vlan::PortVlans;
use upfbench_run::lifecycle::{Action, Event, Lifecycle, State};
use upfbench_run::phase::{Phase, PhaseBoard};

/// Lead time given to the workers before a sending phase's first packet is due.
const EPOCH_LEAD: Duration = Duration::from_millis(1);

/// How often the loop looks at the workers from the measured phase's planned end to the step's
/// collection: the end of sending and of the drain are seen this soon.
const STEP_END_TICK: Duration = Duration::from_millis(1);

/// What the run keeps beyond the workers' scope: the report and what goes into it.
pub(super) struct Record {
    pub(super) report: Report,
    /// What happened and when (`events.jsonl`).
    pub(super) timeline: Timeline,
    pub(super) steps: Vec<StepResult>,
    /// Where the report was written (before the teardown), once it was.
    pub(super) folder: Option<PathBuf>,
    pub(super) run_started: Instant,
    pub(super) calibration: TscCalibration,
}

/// One port pair of the testbed, as the steps use it.
pub(super) struct TestPair<'a> {
    /// Its name (`p0`, or the file's).
    pub(super) name: &'a str,
    /// Its part of the system file.
    pub(super) config: &'a upfbench_config::Pair,
    pub(super) ports: [&'a Port<'a>; 2],
    /// How each port spreads its frames over the workers' queues.
    pub(super) rx_spread: [String; 2],
    pub(super) interfaces: [Interface; 2],
    /// The ports' VLAN tags, as their devices handle them (by the NIC or in software).
    pub(super) vlans: PortVlans,
    /// The UPF's addresses on N3 and N6, of each port's family.
    pub(super) peers: [IpAddr; 2],
}

/// The parts of the testbed that the steps use, brought up before the run's phases.
pub(super) struct Testbed<'a, 'p> {
    pub(super) setup: &'a Setup<'a>,
    pub(super) eal: &'p Eal,
    /// Each port pair, in the system file's order.
    pub(super) pairs: Vec<TestPair<'a>>,
    pub(super) service_pool: Mempool<'p>,
    pub(super) control: &'p PhaseBoard,
    pub(super) interrupts: &'a Interrupts,
    /// TSC ticks when the run's clock started, and EAL's estimate of the TSC's frequency.
    pub(super) clock_start: u64,
    pub(super) dpdk_hz: u64,
}

/// The run while its phases go on.
pub(super) struct Interpreter<'a, 's, 'p> {
    bed: &'a Testbed<'a, 'p>,
    scope: &'s LcoreScope<'s, 'p>,
    machine: &'a mut Lifecycle,
    record: &'a mut Record,
    program: &'a mut dyn Program<'p>,
    n4: N4Work<'a>,
    /// The queues and pools between steps.
    idle: Idle<'p>,
    running: Option<Running<'s, 'p>>,
    /// Each pair's next hops' MACs on N3 and N6.
    next_hop: Vec<[MacAddr; 2]>,
    uplink_teids: Vec<Teid>,
    upf_chooses_teids: bool,
    qfi: Option<Qfi>,
    /// A step hook's failures, by step, until the step's report exists.
    hook_warnings: Vec<(usize, String)>,
    seen_interrupts: u32,
    last_live: Instant,
    /// The machine's state when the timeline last looked.
    last_state: State,
    /// When the running step began: the previous one handed over to the program (the first:
    /// its preparation).
    step_began: Option<Instant>,
    /// When the running step was prepared.
    step_prepared: Instant,
    /// When the running step's phases began and its drain ended.
    marks: PhaseMarks,
    /// When the measured phase should end at its planned rates.
    sending_ends: Option<Instant>,
    /// Asks the PFCP client's counters for the metrics, if any.
    pfcp_sampler: PfcpSampler,
    /// The UPF's failures.
    watch: UpfWatch,
    /// The step prepared, its workers idle until the program says when it begins.
    held: Option<usize>,
    /// The epoch (TSC tick) of the next phase set, when a start time gave it.
    epoch: Option<u64>,
    /// The running step was asked to stop.
    stop_asked: bool,
    /// When the stop the program asked for is due, on this clock (the loop wakes for it).
    stop_due: Option<Instant>,
}

impl<'a, 's, 'p> Interpreter<'a, 's, 'p> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        bed: &'a Testbed<'a, 'p>,
        scope: &'s LcoreScope<'s, 'p>,
        machine: &'a mut Lifecycle,
        record: &'a mut Record,
        program: &'a mut dyn Program<'p>,
        n4: N4Work<'a>,
        idle_queues: WorkerQueues<'p>,
        uplink_teids: Vec<Teid>,
        upf_chooses_teids: bool,
    ) -> Self {
        let system = bed.setup.system;
        let next_hop = bed
            .pairs
            .iter()
            .map(|p| {
                [&p.config.n3, &p.config.n6].map(|port| port.peer_mac.unwrap_or(MacAddr([0; 6])))
            })
            .collect();
        let qfi = program.qfi();
        let watch = UpfWatch::new(system.pfcp.as_ref(), record.run_started);
        Interpreter {
            watch,
            qfi,
            bed,
            scope,
            machine,
            record,
            program,
            n4,
            idle: Idle {
                queues: idle_queues.queues,
                first: idle_queues.first,
                ..Idle::default()
            },
            running: None,
            next_hop,
            uplink_teids,
            upf_chooses_teids,
            hook_warnings: Vec::new(),
            seen_interrupts: 0,
            last_live: Instant::now(),
            last_state: State::Start,
            step_began: None,
            step_prepared: Instant::now(),
            marks: PhaseMarks::default(),
            sending_ends: None,
            pfcp_sampler: PfcpSampler::default(),
            held: None,
            epoch: None,
            stop_asked: false,
            stop_due: None,
        }
    }

    /// Runs the machine to its end; returns the control plane's wall times.
    pub(super) fn run(mut self) -> Result<ControlTimes> {
        self.machine.start(Instant::now());
        self.note_state();
        loop {
            while let Some(action) = self.machine.poll_action() {
                self.perform(action, Instant::now())?;
                self.note_state();
            }
            if self.machine.is_done() {
                self.n4.times.upf_faults = self.watch.faults().to_vec();
                return Ok(self.n4.times);
            }
            self.wait();
            let now = Instant::now();
            let n = self.bed.interrupts.count();
            if n > self.seen_interrupts {
                self.seen_interrupts = n;
                self.note(now, RunEvent::Interrupt {});
                self.machine.handle(now, Event::Interrupt);
                self.note_state();
            }
            let learnt = self.n4.poll(
                now,
                self.machine,
                self.upf_chooses_teids,
                &mut self.record.timeline,
            )?;
            if let Established::UplinkTeids { start, teids } = learnt {
                if start == 0
                    && self.running.is_some()
                    && !self.uplink_teids.is_empty()
                    && teids != self.uplink_teids
                {
                    // The running step's frames keep the old TEIDs; the next steps take these.
                    self.hook_warnings.push((
                        self.machine.step(),
                        "the UPF chose new uplink TEIDs when the sessions were established \
                         again: this step's uplink kept the old ones to its end"
                            .into(),
                    ));
                }
                self.uplink_teids.truncate(start);
                self.uplink_teids.extend(teids);
            }
            if let Some(end) = self.n4.batch_end.take() {
                self.program.batch_ended(end);
            }
            self.note_state();
            self.watch_upf(now);
            self.note_state();
            self.poll_workers(now);
            self.poll_start();
            self.poll_stop(now);
            self.note_state();
            if let Some(m) = self.bed.setup.metrics
                && self.bed.setup.pfcp
            {
                self.pfcp_sampler.poll(now, self.n4.client(), m);
            }
            self.machine.handle_timeout(Instant::now());
            self.note_state();
        }
    }

    /// The UPF's failures: the client's news, a re-establishment's end, the traffic flowing
    /// again.
    fn watch_upf(&mut self, now: Instant) {
        let totals = self.running.as_ref().map(step::totals);
        if let Some(t) = totals {
            self.watch.sample(now, t);
        }
        if !self.bed.setup.pfcp {
            return;
        }
        let news = self.n4.client().news();
        let step = self.running.is_some().then(|| self.machine.step());
        self.watch.poll(
            news,
            self.machine,
            &mut self.n4,
            step,
            totals,
            &mut self.record.timeline,
        );
    }

    /// From when the loop looks at the workers every [`STEP_END_TICK`]: the measured phase's
    /// planned end, or now in the wait after the drain (a fixed drain ends at its deadline).
    fn step_end_from(&self) -> Option<Instant> {
        self.running.as_ref()?;
        match self.machine.state() {
            State::Measure => self.sending_ends,
            State::Quiet => Some(Instant::now()),
            _ => None,
        }
    }

    fn note(&mut self, at: Instant, event: RunEvent) {
        self.record.timeline.record(at, event);
    }

    /// Puts the machine's state on the timeline when it changed since the last look.
    fn note_state(&mut self) {
        let state = self.machine.state();
        if state != self.last_state {
            self.last_state = state;
            if let Some(m) = self.bed.setup.metrics {
                m.set_phase(crate::metrics::phase_of(state), self.machine.failure());
            }
            self.note(
                Instant::now(),
                RunEvent::State {
                    state: report::run_state(state),
                },
            );
        }
    }

    /// Waits for the next thing to happen: at most 10 ms while the UPF answers (its rates are
    /// measured by this loop), [`STEP_END_TICK`] from a step's planned end of sending to its
    /// collection, 50 ms otherwise.
    fn wait(&self) {
        let now = Instant::now();
        let busy = self.n4.busy() || self.watch.busy();
        let tick = Duration::from_millis(if busy { 10 } else { 50 });
        let mut until = now + tick;
        if let Some(from) = self.step_end_from() {
            until = until.min(from.max(now + STEP_END_TICK));
        }
        let until = self.machine.poll_timeout().map_or(until, |d| d.min(until));
        let until = self.stop_due.map_or(until, |d| d.min(until));
        if until > now {
            std::thread::sleep(until - now);
        }
    }

    fn perform(&mut self, action: Action, now: Instant) -> Result<()> {
        match action {
            Action::Associate => {
                let peer = self.bed.setup.system.pfcp.as_ref();
                let peer = peer.map_or(String::new(), |p| p.peer.to_string());
                self.n4.associate(&peer, now, &mut self.record.timeline);
            }
            Action::Establish => {
                let batch = self.program.next_batch();
                let climb = self.program.climbs();
                self.n4
                    .establish(now, &mut self.record.timeline, batch, climb);
            }
            Action::CancelEstablishment => {
                self.n4.cancel_establishment(now, &mut self.record.timeline);
            }
            Action::Resolve => self.resolve(),
            Action::Prepare { step } => self.prepare(step),
            Action::SetPhase(phase) => self.set_phase(phase, now),
            Action::AwaitQuiet => self.marks.awaits_quiet = true,
            Action::Collect { step } => self.collect(step)?,
            Action::Report => self.report()?,
            Action::Delete => {
                if !self.n4.delete(now, &mut self.record.timeline) {
                    self.machine.handle(now, Event::Deleted);
                }
            }
            Action::Release => self.n4.release(now, &mut self.record.timeline),
            Action::Reestablish => {
                let peer = self.bed.setup.system.pfcp.as_ref();
                let peer = peer.map_or(String::new(), |p| p.peer.to_string());
                self.n4.reestablish(&peer, now, &mut self.record.timeline);
            }
        }
        Ok(())
    }

    fn prepare(&mut self, step: usize) {
        let bed = self.bed;
        self.step_prepared = Instant::now();
        self.step_began.get_or_insert(self.step_prepared);
        self.marks = PhaseMarks::default();
        self.sending_ends = None;
        let steps = self.program.steps();
        let show = self.program.show_steps();
        let (plan, rules) = self.program.plan(step);
        if let Some(w) = run_hook(bed.setup, StepEdge::Start, step, steps, plan) {
            self.hook_warnings.push((step, w));
        }
        let pairs: Vec<PairWiring<'p>> = bed
            .pairs
            .iter()
            .zip(&self.next_hop)
            .zip(rules)
            .map(|((p, &next_hop_mac), rules)| PairWiring {
                rules,
                endpoints: Endpoints {
                    local: p.interfaces,
                    upf_n3: match p.peers[0] {
                        IpAddr::V4(a) => a,
                        IpAddr::V6(_) => Ipv4Addr::UNSPECIFIED,
                    },
                    next_hop_mac,
                    v6: Endpoints6::of_ports(
                        (p.config.n3.address.addr, p.peers[0]),
                        p.config.n6.address.addr,
                    ),
                    tags: p.vlans.tags,
                },
                peers: p.peers,
            })
            .collect();
        let wiring = StepWiring {
            eal: bed.eal,
            plan,
            pairs: &pairs,
            qfi: self.qfi,
            uplink_teids: &self.uplink_teids,
            service_pool: bed.service_pool,
            clock: step_clock(&mut self.record.calibration, bed.clock_start, bed.dpdk_hz),
            control: bed.control,
        };
        let label = report::step_label(plan);
        let payload = plan.payload;
        let ports: Vec<_> = bed.pairs.iter().map(|p| p.ports).collect();
        match step::start(
            self.scope,
            &wiring,
            &mut self.idle,
            &ports,
            &bed.setup.kernel,
        ) {
            Ok(r) => {
                if let Some(m) = bed.setup.metrics {
                    m.step_started(step, label.clone(), &r.workers.rx, &r.workers.tx);
                }
                if let Some(p) = payload
                    && show
                {
                    out::line(&format!("step {}: payload {p} B", step + 1));
                }
                self.note(Instant::now(), RunEvent::StepStarted { step, label });
                self.running = Some(r);
                self.watch.step_started(Instant::now());
                self.stop_asked = false;
                self.stop_due = None;
                self.program.prepared(step, self.step_prepared.elapsed());
                self.held = Some(step);
                self.poll_start();
            }
            Err(e) => self
                .machine
                .handle(Instant::now(), Event::Failed(format!("{e:#}"))),
        }
    }

    fn set_phase(&mut self, phase: Phase, now: Instant) {
        let (epoch, at) = self.next_epoch();
        self.bed.control.set(phase, epoch);
        self.marks.phase(phase, now);
        if phase == Phase::Measure
            && let Some(r) = &mut self.running
        {
            // The measured phase starts at `epoch` on the workers' TSC and at `at` on the PFCP
            // thread's clock (read together): each handover's modification goes at its time
            // after `at`, its uplink switches at the same time after `epoch`.
            let step = self.machine.step();
            let plan = self.program.plan(step).0;
            self.sending_ends = Some(at + plan.expected);
            if let Some(h) = &plan.handovers {
                r.handovers = Some(self.n4.handovers(at, h));
            }
            if let Some(c) = plan.churn.as_ref().filter(|c| c.on) {
                r.churn = Some(self.n4.churn(at, &c.plan));
            }
            if let Some(g) = &plan.qos_gate {
                r.gate = Some(self.n4.close_gates(at, g));
            }
        }
        let step = self.running.is_some().then(|| self.machine.step());
        self.note(
            now,
            RunEvent::Phase {
                step,
                phase: report::worker_phase(phase),
                epoch_lead_us: EPOCH_LEAD.as_micros() as u64,
            },
        );
        if let Some(r) = &mut self.running {
            match phase {
                Phase::Measure => r.measure_started = Some(at),
                Phase::Drain if r.measure_started.is_some() && r.measure_ended.is_none() => {
                    r.measure_ended = Some(now);
                }
                _ => {}
            }
        }
    }

    fn collect(&mut self, step: usize) -> Result<()> {
        let bed = self.bed;
        let collecting = Instant::now();
        let mut result = self.finish_step(step)?;
        let steps = self.program.steps();
        let (plan, _) = self.program.plan(step);
        let hook_end = run_hook(bed.setup, StepEdge::End, step, steps, plan);
        if self.program.show_steps() {
            out::line(&result.report.summary());
        }
        // The next step begins as this one is handed over: choosing it is its set-up.
        let handed = Instant::now();
        let began = self
            .step_began
            .replace(handed)
            .unwrap_or(self.step_prepared);
        let wall = self
            .marks
            .wall(began, self.step_prepared, collecting, handed);
        let next = self
            .program
            .collected(step, &mut result, &wall, self.machine.stopped_early());
        if let Some(m) = bed.setup.metrics {
            m.step_collected(step, &result.report, &result.latency);
        }
        let now = Instant::now();
        self.note_collected(step, &result, now);
        self.keep_step(step, result, hook_end, now);
        if let Some(timing) = next {
            self.machine.set_timing(timing);
            if self.program.grows() {
                self.machine.grow_before_next_step();
            }
        }
        self.machine.handle(
            Instant::now(),
            Event::Collected {
                more: next.is_some(),
            },
        );
        Ok(())
    }

    /// Joins the step's workers and makes its result: its figures, the UPF's failures in it,
    /// and a warning when its packets were still arriving.
    fn finish_step(&mut self, step: usize) -> Result<StepResult> {
        let bed = self.bed;
        let r = self
            .running
            .take()
            .ok_or_else(|| anyhow!("no workers to collect"))?;
        let pair_figures = self.program.wants_pair_figures();
        let (plan, _) = self.program.plan(step);
        let end = step::totals(&r);
        let mut result = step::finish(
            r,
            step_clock(&mut self.record.calibration, bed.clock_start, bed.dpdk_hz),
            bed.control,
            &mut self.idle,
            plan,
            &bed.pairs,
            &bed.setup.kernel,
            pair_figures,
        )?;
        result.report.upf_faults = self.watch.step_collected(end);
        if self.machine.state() == State::Collecting && self.marks.quiet_limited() {
            // The quiet wait ran to its limit: the trial's packets kept coming.
            result.report.warnings.push(
                "packets were still arriving when the step was collected: those still to come \
                 count as lost (the next step receives them, but does not measure them)"
                    .into(),
            );
        }
        Ok(result)
    }

    /// The timeline's note of the collected step, with its figures per direction.
    fn note_collected(&mut self, step: usize, result: &StepResult, now: Instant) {
        let figures = result
            .report
            .directions
            .iter()
            .map(|d| StepFigures {
                direction: d.direction,
                sent: d.loss.sent,
                received: d.loss.unique,
                lost: d.loss.lost,
            })
            .collect();
        self.note(
            now,
            RunEvent::StepCollected {
                step,
                label: result.report.label.clone(),
                figures,
            },
        );
    }

    /// Keeps the step's result in the record, with the step hooks' warnings that wait for
    /// their step (`hook_end` this one's end hook's), and its warnings on the timeline.
    fn keep_step(
        &mut self,
        step: usize,
        result: StepResult,
        hook_end: Option<String>,
        now: Instant,
    ) {
        let steps = &mut self.record.steps;
        steps.push(result);
        if let Some(w) = hook_end {
            self.hook_warnings.push((step, w));
        }
        for (s, w) in self.hook_warnings.drain(..) {
            if let Some(r) = steps.get_mut(s) {
                r.report.warnings.push(w);
            }
        }
        if let Some(r) = steps.get(step) {
            for w in &r.report.warnings {
                self.record.timeline.record(
                    now,
                    RunEvent::Warning {
                        step: Some(step),
                        message: w.clone(),
                    },
                );
            }
        }
    }

    fn report(&mut self) -> Result<()> {
        let setup = self.bed.setup;
        let record = &mut *self.record;
        let report = &mut record.report;
        report.duration_s = record.run_started.elapsed().as_secs_f64();
        report.clock = report::clock_report(&record.calibration, self.bed.dpdk_hz);
        report.steps = record.steps.iter().map(|s| s.report.clone()).collect();
        self.program.finish(report);
        if let Some(f) = self.machine.failure() {
            report.warnings.push(format!("the run failed: {f}"));
        } else if self.machine.stopped_early() && record.steps.is_empty() {
            report
                .warnings
                .push("the run was interrupted: nothing was measured".into());
        } else if self.machine.stopped_early() {
            report
                .warnings
                .push("the run was interrupted: steps not collected are missing".into());
        }
        let now = Instant::now();
        for w in &report.warnings {
            record.timeline.record(
                now,
                RunEvent::Warning {
                    step: None,
                    message: w.clone(),
                },
            );
        }
        // Written now, before the teardown, so that a teardown that hangs or dies leaves the
        // measurement behind; written again at the end with the deletion's figures.
        let hlogs: Vec<_> = record.steps.iter().map(|s| (&s.report, &s.hlog)).collect();
        record.folder = Some(report::write_report(
            report,
            &hlogs,
            &record.timeline,
            &setup.reports,
            &setup.profile.name,
            setup.command(),
        )?);
        self.machine.handle(Instant::now(), Event::Reported);
        Ok(())
    }

    /// The workers' side: the end of the measured phase, the end of the wait after a step's
    /// drain (every packet accounted for, or nothing arriving any more), and the live line
    /// each second.
    fn poll_workers(&mut self, now: Instant) {
        let control = self.bed.control;
        if let Some(r) = &mut self.running {
            let state = self.machine.state();
            if matches!(state, State::Drain | State::Quiet) {
                let last = self.marks.arrivals(step::received(r), now);
                let end = if state != State::Quiet {
                    None
                } else if step::accounted(r, control) {
                    Some(DrainEnd::Accounted)
                } else {
                    (now.duration_since(last) >= self.program.quiet_window())
                        .then_some(DrainEnd::Silence)
                };
                if let Some(why) = end {
                    self.marks.end(why, now);
                    self.machine.handle(now, Event::Quiet);
                }
            }
            if self.machine.state() == State::Measure
                && control.workers_done() as usize == r.workers.handles.len()
            {
                r.measure_ended = Some(now);
                self.machine.handle(now, Event::AllSent);
            }
            // A search says a line per trial; its steps' live lines only on a terminal. The
            // metrics take each line's latency, shown or not.
            let shown = self.program.show_steps() || out::is_terminal();
            let metrics = self.bed.setup.metrics;
            let board = self
                .bed
                .setup
                .live
                .map(|b| (b, self.record.steps.len() as u32 + 1));
            if (shown || metrics.is_some() || board.is_some())
                && self.last_live.elapsed() >= Duration::from_secs(1)
            {
                self.last_live = Instant::now();
                let line = step::live_line(r, control, metrics, board, shown);
                if shown {
                    out::progress(&line);
                }
            }
        }
    }
}
