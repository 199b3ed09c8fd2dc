//! The generator's metrics: its figures in a scrape ([`figures`]), the PFCP client's
//! ([`pfcp`]), and the phase `/health` shows for each state of the run's life cycle.

mod figures;
mod pfcp;

pub(crate) use figures::{GeneratorMetrics, StepMetrics};
pub(crate) use pfcp::{PfcpMetrics, PfcpSampler};

use upfbench_metrics::health::Phase;
use upfbench_run::lifecycle::State;

/// The phase of the run's life cycle in `state`.
pub(crate) fn phase_of(state: State) -> Phase {
    match state {
        State::Start => Phase::Starting,
        State::Associating => Phase::Associating,
        State::Establishing => Phase::Establishing,
        State::Resolving => Phase::Resolving,
        State::Preparing => Phase::Preparing,
        State::Warmup => Phase::WarmingUp,
        State::Settle => Phase::Settling,
        State::Measure => Phase::Measuring,
        State::Drain => Phase::Draining,
        State::Quiet => Phase::AwaitingQuiet,
        State::Collecting => Phase::Collecting,
        State::Reporting => Phase::Reporting,
        State::Deleting => Phase::Deleting,
        State::Releasing => Phase::Releasing,
        // `done` only once the final counts are in (`Metrics::finish`).
        State::Done => Phase::Finishing,
    }
}

#[cfg(test)]
mod tests {
    use upfbench_metrics::families::Role;

    use super::*;

    #[test]
    fn every_state_of_the_life_cycle_has_a_phase_of_the_generators() {
        use State::*;
        let states = [
            Start,
            Associating,
            Establishing,
            Resolving,
            Preparing,
            Warmup,
            Settle,
            Measure,
            Drain,
            Quiet,
            Collecting,
            Reporting,
            Deleting,
            Releasing,
            Done,
        ];
        let phases = Phase::of(Role::Generator);
        for s in states {
            assert!(phases.contains(&phase_of(s)), "{s:?}");
        }
        let names: std::collections::BTreeSet<_> = phases.iter().map(|p| p.name()).collect();
        assert_eq!(names.len(), phases.len(), "each once");
        assert_eq!(phase_of(Measure).name(), "measuring");
        assert_eq!(phase_of(Warmup).name(), "warming_up");
    }
}
