//! What a run over agents adds to its report (docs/scale.md §3): each agent's section, as it
//! measured itself ([`agent_sections`]), what an incomplete run leaves out ([`incomplete`]),
//! and events.jsonl's `cluster:agent_lost` ([`lost_event`]).

use upfbench_api::v1::StepResult;
use upfbench_cluster::coordinator::Lost;
use upfbench_cluster::merge::merge;
use upfbench_report::events::Event;
use upfbench_report::{
    AgentEnd, AgentSection, AgentStep, Incomplete, LostAgent, StepCount, StepFigures,
};
use upfbench_stats::LatencyConfig;

use crate::drive::Driven;
use crate::step_report::step_report;

/// events.jsonl's line for an agent lost.
pub fn lost_event(lost: &Lost) -> Event {
    Event::AgentLost {
        agent: lost.agent.clone(),
        step: lost.step,
        t_s: lost.t_s,
        reason: lost.reason.clone(),
    }
}

/// Per direction that carried traffic, over the result's pairs: packets sent, received once,
/// lost (the sequence counters).
pub fn figures(result: &StepResult) -> Vec<upfbench_report::events::StepFigures> {
    let mut out: Vec<upfbench_report::events::StepFigures> = Vec::new();
    for d in result.pairs.iter().flat_map(|p| &p.directions) {
        let i = match out.iter().position(|f| f.direction == d.direction) {
            Some(i) => i,
            None => {
                out.push(upfbench_report::events::StepFigures {
                    direction: d.direction,
                    sent: 0,
                    received: 0,
                    lost: 0,
                });
                out.len() - 1
            }
        };
        out[i].sent += d.seq.sent;
        out[i].received += d.seq.unique;
        out[i].lost += d.seq.lost;
    }
    out.retain(|f| f.sent > 0 || f.received > 0);
    out
}

/// Agent `result`'s step as it measured it: its counts, and every figure of its own result
/// made into a step as the merged ones are (none when it does not merge on its own: another
/// latency configuration, which the totals refused too).
fn agent_step(result: &StepResult, counted: bool, latency: &LatencyConfig) -> AgentStep {
    let measured = merge(result.step, latency, &[result])
        .ok()
        .map(|m| StepFigures::of(step_report(String::new(), None, &m)));
    AgentStep {
        step: result.step,
        counted,
        start_late_us: result.start_late_ns as f64 / 1e3,
        figures: figures(result),
        measured,
    }
}

/// Each agent's section: `agents[i]` is (name, URL) of agent `i`, in the cluster file's order;
/// its results' histograms are of `latency`.
pub fn agent_sections(
    driven: &Driven,
    agents: &[(String, String)],
    latency: &LatencyConfig,
) -> Vec<AgentSection> {
    agents
        .iter()
        .enumerate()
        .map(|(i, (name, url))| {
            let clock = driven.finished.clocks.get(i).copied().flatten();
            let mut steps: Vec<AgentStep> = driven
                .steps
                .iter()
                .flat_map(|o| o.results.iter().filter(|r| &r.agent == name))
                .map(|r| agent_step(r, true, latency))
                .collect();
            steps.extend(
                driven
                    .late
                    .iter()
                    .filter(|(a, _)| *a == i)
                    .map(|(_, r)| agent_step(r, false, latency)),
            );
            let lost = driven.finished.lost.iter().any(|l| &l.agent == name);
            AgentSection {
                name: name.clone(),
                url: url.clone(),
                clock_offset_us: clock.map(|c| c.offset_ns as f64 / 1e3),
                rtt_us: clock.map(|c| c.rtt_ns as f64 / 1e3),
                state: if lost {
                    AgentEnd::Lost
                } else {
                    AgentEnd::Counted
                },
                steps,
            }
        })
        .collect()
}

/// What the run leaves out, when it lost an agent.
pub fn incomplete(driven: &Driven) -> Option<Incomplete> {
    if !driven.finished.incomplete() {
        return None;
    }
    Some(Incomplete {
        lost: driven
            .finished
            .lost
            .iter()
            .map(|l| LostAgent {
                agent: l.agent.clone(),
                step: l.step,
                t_s: l.t_s,
                reason: l.reason.clone(),
            })
            .collect(),
        steps: driven
            .steps
            .iter()
            .filter(|o| o.counted.0 < o.counted.1)
            .map(|o| StepCount {
                step: o.step,
                agents_counted: format!("{} of {}", o.counted.0, o.counted.1),
            })
            .collect(),
    })
}
