//! `RemoteSteps`: the steps of a segment as a coordinator asks for them over the API
//! (docs/scale.md §3 "The agent"), one at a time on the [`StepBoard`]: each step's plan is the
//! one the API made when it armed it, its workers wait, launched, for the start time, and its
//! result goes back on the board, raw, for `GET /v1/steps/{n}/result`. After a step the program
//! waits for the next one, until the segment is unloaded or the agent interrupted.

use std::sync::Arc;
use std::time::Duration;

use upfbench_cli::signals::Interrupts;
use upfbench_run::lifecycle::Timing;
use upfbench_run::plan::Plan;

use super::result;
use super::steps::{StepAsked, StepBoard};
use crate::commands::generate::program::{Program, StartAt, StepWall, step_timing};
use crate::commands::generate::step::StepResult;
use crate::datapath::classify::RxRules;

/// See the module's documentation.
pub(crate) struct RemoteSteps<'r> {
    /// The receive rules of every step (one per pair): the segment's UEs and streams, whatever
    /// the load.
    rules: &'r [RxRules],
    board: Arc<StepBoard>,
    /// The step armed or running.
    current: StepAsked,
    /// How late its first phase was posted against its start time (ns).
    late_ns: i64,
    /// The agent's name and TSC frequency, in the results.
    agent: String,
    tsc_hz: f64,
    interrupts: Interrupts,
}

impl<'r> RemoteSteps<'r> {
    /// The steps of the segment on `board`, from `first`, the one armed.
    pub(crate) fn new(
        rules: &'r [RxRules],
        board: Arc<StepBoard>,
        first: StepAsked,
        (agent, tsc_hz): (String, f64),
        interrupts: Interrupts,
    ) -> RemoteSteps<'r> {
        RemoteSteps {
            rules,
            board,
            current: first,
            late_ns: 0,
            agent,
            tsc_hz,
            interrupts,
        }
    }

    fn number(&self) -> u32 {
        self.current.request.step
    }
}

impl<'r> Program<'r> for RemoteSteps<'r> {
    fn first_timing(&self) -> Timing {
        step_timing(&self.current.plan)
    }

    fn plan(&mut self, _step: usize) -> (&Plan, &'r [RxRules]) {
        (&self.current.plan, self.rules)
    }

    fn collected(
        &mut self,
        _step: usize,
        measured: &mut StepResult,
        _wall: &StepWall,
        stopping: bool,
    ) -> Option<Timing> {
        let n = self.number();
        let figures = result::step_result(
            &result::Of {
                agent: &self.agent,
                step: n,
                plan: &self.current.plan,
                start_late_ns: self.late_ns,
                tsc_hz: self.tsc_hz,
            },
            measured,
        )
        .map_err(|e| format!("its figures cannot be encoded: {e}"));
        self.board.collected(n, figures);
        if stopping {
            return None;
        }
        self.current = self.board.wait_asked(&self.interrupts)?;
        Some(step_timing(&self.current.plan))
    }

    fn prepared(&mut self, _step: usize, took: Duration) {
        self.board.armed(self.number(), took.as_millis() as u64);
    }

    fn start_at(&mut self, _step: usize) -> StartAt {
        if self.interrupts.any() {
            return StartAt::Cancel("the agent was interrupted".into());
        }
        self.board.start_at(self.number())
    }

    fn started(&mut self, _step: usize, late_ns: i64) {
        self.late_ns = late_ns;
    }

    fn stop_at(&mut self, _step: usize) -> Option<u64> {
        self.board.stop_at()
    }

    fn wants_pair_figures(&self) -> bool {
        true
    }
}
