//! The steps a run measures: known in advance (a run, a sweep: [`FixedSteps`]), or chosen one
//! at a time from the results so far (a search's trials: `app::search`). The interpreter asks
//! the program for each step's plan when the lifecycle prepares it, and tells it each step's
//! results; the program says whether another step follows.

use std::ops::Range;
use std::time::Duration;

use upfbench_report::{Baseline, Report};

use super::n4::BatchEnd;
use super::step::StepResult;
use crate::datapath::classify::RxRules;
use upfbench_run::lifecycle::Timing;
use upfbench_run::plan::Plan;

/// Where a step's wall time went, on the control thread's clock, as the program is told when
/// the step is collected. The phases are the lifecycle's; what is left of `total` is set-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct StepWall {
    /// From the step's beginning (the previous step handed over to the program, or the first
    /// step's preparation) to its collection.
    pub(crate) total: Duration,
    /// From its preparation to its collection (a search trial's effective duration).
    pub(crate) since_prepared: Duration,
    /// The warm-up.
    pub(crate) warmup: Duration,
    /// The silence before the measured phase.
    pub(crate) settle: Duration,
    /// The measured phase: sending.
    pub(crate) traffic: Duration,
    /// From the end of sending until every packet was accounted for, or until the last one
    /// arrived when some never were.
    pub(crate) drain: Duration,
    /// Then the wait for silence, or to the quiet limit.
    pub(crate) quiet: Duration,
}

impl StepWall {
    /// What is not a phase: preparing the step (plan, templates, workers), collecting it
    /// (joining the workers, its report) and, in a search, choosing it.
    pub(crate) fn setup(&self) -> Duration {
        self.total
            .saturating_sub(self.warmup + self.settle + self.traffic + self.drain + self.quiet)
    }
}

/// The phases of a step of `plan`: its warm-up, the settle that lets the warm-up's packets
/// drain, its measured phase (with room to spare before it counts as stuck) and its drain.
pub(crate) fn step_timing(plan: &Plan) -> Timing {
    Timing {
        warmup: plan.warmup,
        // The warm-up's packets drain before the measured ones go.
        settle: if plan.warmup.is_zero() {
            Duration::ZERO
        } else {
            plan.drain.max(Duration::from_millis(100))
        },
        measure_limit: plan.expected + plan.expected / 2 + Duration::from_secs(2),
        drain: plan.drain,
        quiet_limit: None,
    }
}

/// When a prepared step's first phase begins.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StartAt {
    /// As soon as it is prepared (a run on one box).
    Now,
    /// Not known yet: the step's workers wait, launched and idle.
    Wait,
    /// At this wall-clock time (Unix ns): its first phase's epoch is posted at the TSC tick of
    /// it (a coordinator's common start, docs/scale.md §3).
    At(u64),
    /// Never: the step is given up, and the run ends (for this reason).
    Cancel(String),
}

/// What the run measures, step by step.
pub(crate) trait Program<'p> {
    /// The timing of the first step.
    fn first_timing(&self) -> Timing;

    /// Step `step`'s plan and receive rules, one per port pair (their VLAN tags differ).
    fn plan(&mut self, step: usize) -> (&Plan, &'p [RxRules]);

    /// Step `step` was collected, its wall time spent as `wall` says (cut short when
    /// `stopping`: the run was interrupted or failed); the program may take its interval log.
    /// Returns the timing of the next step, `None` when no step follows.
    fn collected(
        &mut self,
        step: usize,
        result: &mut StepResult,
        wall: &StepWall,
        stopping: bool,
    ) -> Option<Timing>;

    /// How many steps there are, 0 when they are not known in advance (the step hook's
    /// `UPFBENCH_STEPS`).
    fn steps(&self) -> usize {
        0
    }

    /// Whether each step's summary line is shown as it is collected.
    fn show_steps(&self) -> bool {
        true
    }

    /// How long nothing must arrive before a step waiting for quiet is collected.
    fn quiet_window(&self) -> Duration {
        Duration::from_millis(50)
    }

    /// The QFI the steps mark their G-PDUs with (the same for every step).
    fn qfi(&mut self) -> Option<upfbench_net::Qfi> {
        self.plan(0).0.qfi
    }

    /// Adds the program's own findings to the report, before it is written.
    fn finish(&mut self, _report: &mut Report) {}

    /// The sessions (indices into the run's session plans) the next establishment asks for;
    /// `None`: every one.
    fn next_batch(&mut self) -> Option<Range<usize>> {
        None
    }

    /// Whether the UPF's refusal of a session ends a climb ([`Self::batch_ended`]) rather
    /// than failing the run.
    fn climbs(&self) -> bool {
        false
    }

    /// Step `step`'s workers are launched, `took` after its preparation began.
    fn prepared(&mut self, _step: usize, _took: Duration) {}

    /// When step `step`, prepared, begins (asked until it is known).
    fn start_at(&mut self, _step: usize) -> StartAt {
        StartAt::Now
    }

    /// Step `step`'s first phase was posted `late_ns` after the time [`Self::start_at`] gave
    /// (negative: before it).
    fn started(&mut self, _step: usize, _late_ns: i64) {}

    /// When the running step `step` is to stop sending (Unix ns), if it is asked to stop before
    /// its end; the run ends after it.
    fn stop_at(&mut self, _step: usize) -> Option<u64> {
        None
    }

    /// Whether each step's result keeps each pair's raw figures (its counters and latency
    /// recorders) for the program.
    fn wants_pair_figures(&self) -> bool {
        false
    }

    /// A batch of a climb ended, established in whole or up to the UPF's refusal.
    fn batch_ended(&mut self, _end: BatchEnd) {}

    /// Whether the next step comes after another batch (asked when a step was collected and
    /// another follows).
    fn grows(&self) -> bool {
        false
    }
}

/// The steps of a run or a sweep: one plan each, in order.
pub(crate) struct FixedSteps<'p> {
    pub(crate) plans: &'p [Plan],
    /// Each step's receive rules, one per port pair.
    pub(crate) rules: &'p [Vec<RxRules>],
    pub(crate) timing: Timing,
    /// The loss of the last step run without its churn, for the next.
    pub(crate) baseline: Option<Baseline>,
}

impl<'p> Program<'p> for FixedSteps<'p> {
    fn steps(&self) -> usize {
        self.plans.len()
    }

    fn first_timing(&self) -> Timing {
        self.timing
    }

    fn plan(&mut self, step: usize) -> (&Plan, &'p [RxRules]) {
        (&self.plans[step], &self.rules[step])
    }

    fn collected(
        &mut self,
        step: usize,
        result: &mut StepResult,
        _: &StepWall,
        _: bool,
    ) -> Option<Timing> {
        // A step with churn follows its baseline (the same step without it): its loss goes
        // beside the churn's.
        let report = &mut result.report;
        match report.churn.as_ref().map(|c| c.on) {
            Some(false) => {
                self.baseline = Some(Baseline {
                    label: report.label.clone(),
                    loss: crate::report::direction_loss(report),
                });
            }
            Some(true) => {
                if let Some(c) = &mut report.churn {
                    c.baseline = self.baseline.take();
                }
            }
            None => {}
        }
        (step + 1 < self.plans.len()).then_some(self.timing)
    }
}
