//! The climb as the generator's program of steps: batch `i` of sessions, then step `i` over
//! every session established so far; the UPF's first refusal (or the limit) ends it.

use std::cell::OnceCell;
use std::ops::Range;

use upfbench_net::Qfi;
use upfbench_report::{CapacityBatch, CapacityRefusal, CapacityReport, Report};

use crate::commands::generate::n4::BatchEnd;
use crate::commands::generate::program::{Program, StepWall};
use crate::commands::generate::step::StepResult;
use crate::datapath::classify::RxRules;
use upfbench_cli::memory::resident;
use upfbench_config::{Profile, System};
use upfbench_datapath::vlan::PortVlans;
use upfbench_run::lifecycle::Timing;
use upfbench_run::plan::{self, Plan};

/// See the module documentation.
pub(crate) struct CapacityProgram<'p> {
    system: &'p System,
    profile: Profile,
    /// Each pair's ports' line rates.
    links: Vec<[Option<f64>; 2]>,
    /// One per step (each pair's rules), filled as the step is prepared (a step's rules live as
    /// long as the run).
    rules: &'p [OnceCell<Vec<RxRules>>],
    timing: Timing,
    qfi: Option<Qfi>,
    limit: usize,
    batch: usize,
    /// Sessions asked for so far: the next batch starts here.
    asked: usize,
    /// Sessions established from the first on, without a gap: the traffic's.
    established: usize,
    /// The climb is over (refused, or at the limit).
    done: bool,
    /// The last batch's end, until its step is collected.
    pending: Option<BatchEnd>,
    /// The step whose plan this is: the interpreter asks for a step's plan more than once.
    plan: Option<(usize, Plan)>,
    batches: Vec<CapacityBatch>,
    refusal: Option<CapacityRefusal>,
    /// Each pair's ports' VLAN tags, as their devices handle them.
    vlans: Vec<PortVlans>,
}

impl<'p> CapacityProgram<'p> {
    /// A climb to `profile.sessions.count` in batches of its `capacity.batch`; `rules` has a
    /// cell for every step there may be ([`Self::steps_at_most`]).
    pub(crate) fn new(
        system: &'p System,
        profile: &Profile,
        links: Vec<[Option<f64>; 2]>,
        rules: &'p [OnceCell<Vec<RxRules>>],
        timing: Timing,
        qfi: Option<Qfi>,
    ) -> CapacityProgram<'p> {
        let limit = profile.sessions.count;
        let mut profile = profile.clone();
        profile.duration = profile.capacity.step();
        CapacityProgram {
            system,
            batch: profile.capacity.batch(limit) as usize,
            limit: limit as usize,
            profile,
            links,
            rules,
            timing,
            qfi,
            asked: 0,
            established: 0,
            done: false,
            pending: None,
            plan: None,
            batches: Vec::new(),
            refusal: None,
            vlans: system
                .pairs()
                .iter()
                .map(|p| PortVlans::of_ports(&p.n3, &p.n6))
                .collect(),
        }
    }

    /// The same, on ports whose tags are `vlans` (each pair's, with what their devices do with
    /// them).
    pub(crate) fn with_vlans(mut self, vlans: Vec<PortVlans>) -> Self {
        self.vlans = vlans;
        self
    }

    /// The most steps a climb of `profile` takes: one per batch.
    pub(crate) fn steps_at_most(profile: &Profile) -> usize {
        let limit = profile.sessions.count;
        limit.div_ceil(profile.capacity.batch(limit)) as usize
    }
}

impl<'p> Program<'p> for CapacityProgram<'p> {
    fn first_timing(&self) -> Timing {
        self.timing
    }

    // Asked before any session is established: the whole profile's (a plan of no UE is none).
    fn qfi(&mut self) -> Option<Qfi> {
        self.qfi
    }

    fn plan(&mut self, step: usize) -> (&Plan, &'p [RxRules]) {
        if self.plan.as_ref().is_none_or(|(s, _)| *s != step) {
            let mut profile = self.profile.clone();
            profile.sessions.count = self.established.max(1) as u32;
            // The same UEs, addresses and TEIDs as the first sessions of the whole profile,
            // which its checks passed: building fewer cannot fail where the whole did not.
            let plan = plan::build_pairs(self.system, &profile, None, &self.links)
                .expect("a prefix of a plan that was built");
            self.plan = Some((step, plan));
        }
        let (_, plan) = self.plan.as_ref().expect("made above");
        let vlans = &self.vlans;
        let rules = self.rules[step].get_or_init(|| {
            let rules = RxRules::new(plan.ues, plan.qfi, &plan.streams);
            vlans.iter().map(|&v| rules.clone().with_vlans(v)).collect()
        });
        (plan, rules)
    }

    fn collected(
        &mut self,
        _step: usize,
        result: &mut StepResult,
        _wall: &StepWall,
        stopping: bool,
    ) -> Option<Timing> {
        result.report.label = format!("{} sessions", self.established);
        if let Some(end) = self.pending.take() {
            let (now, _) = resident();
            self.batches.push(CapacityBatch {
                asked: end.range.len() as u64,
                established: end.established as u64,
                total: self.established as u64,
                rate_per_s: end.established as f64 / end.wall.as_secs_f64().max(1e-9),
                tester_rss_bytes: now,
            });
        }
        (!self.done && !stopping).then_some(self.timing)
    }

    fn next_batch(&mut self) -> Option<Range<usize>> {
        let range = self.asked..(self.asked + self.batch).min(self.limit);
        self.asked = range.end;
        Some(range)
    }

    fn climbs(&self) -> bool {
        true
    }

    fn batch_ended(&mut self, end: BatchEnd) {
        if end.range.start == self.established {
            self.established += end.established;
        }
        if let Some(r) = &end.refusal {
            self.done = true;
            self.refusal = Some(CapacityRefusal {
                at: self.established as u64,
                cause: r.cause.map(|c| c.0),
                cause_name: r.cause.map(|c| c.to_string()),
                offending_ie: r.offending_ie.map(|t| t.0),
                detail: r.text.clone(),
                accepted_after: r.accepted_after as u64,
            });
        }
        if end.range.end >= self.limit {
            self.done = true;
        }
        self.pending = Some(end);
    }

    fn grows(&self) -> bool {
        true
    }

    fn finish(&mut self, report: &mut Report) {
        let (_, peak) = resident();
        report.capacity = Some(CapacityReport {
            limit: self.limit as u64,
            batch: self.batch as u64,
            established: self.established as u64,
            refusal: self.refusal.clone(),
            batches: self.batches.clone(),
            tester_peak_rss_bytes: peak,
        });
    }
}
