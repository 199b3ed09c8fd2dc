//! What a run over agents adds to its report (docs/scale.md §3): each agent's section, as it
//! measured itself ([`agent_sections`]), what an incomplete run leaves out ([`incomplete`]),
//! and events.jsonl's `cluster:agent_lost` ([`lost_event`]).

use upfbench_api::v1::StepResult;
use upfbench_cluster::coordinator::Lost;
use upfbench_report::events::{Event, StepFigures};
use upfbench_report::{AgentEnd, AgentSection, AgentStep, Incomplete, LostAgent, StepCount};

use crate::drive::Driven;

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
pub fn figures(result: &StepResult) -> Vec<StepFigures> {
    let mut out: Vec<StepFigures> = Vec::new();
    for d in result.pairs.iter().flat_map(|p| &p.directions) {
        let i = match out.iter().position(|f| f.direction == d.direction) {
            Some(i) => i,
            None => {
                out.push(StepFigures {
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

fn agent_step(result: &StepResult, counted: bool) -> AgentStep {
    AgentStep {
        step: result.step,
        counted,
        start_late_us: result.start_late_ns as f64 / 1e3,
        figures: figures(result),
    }
}

/// Each agent's section: `agents[i]` is (name, URL) of agent `i`, in the cluster file's order.
pub fn agent_sections(driven: &Driven, agents: &[(String, String)]) -> Vec<AgentSection> {
    agents
        .iter()
        .enumerate()
        .map(|(i, (name, url))| {
            let clock = driven.finished.clocks.get(i).copied().flatten();
            let mut steps: Vec<AgentStep> = driven
                .steps
                .iter()
                .flat_map(|o| o.results.iter().filter(|r| &r.agent == name))
                .map(|r| agent_step(r, true))
                .collect();
            steps.extend(
                driven
                    .late
                    .iter()
                    .filter(|(a, _)| *a == i)
                    .map(|(_, r)| agent_step(r, false)),
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
