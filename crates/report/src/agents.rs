//! A run over agents (docs/scale.md §3 "The exact merge", "Failures"): each agent's section
//! ([`AgentSection`]: where it is, its clock, how late it started, what it measured itself) and,
//! when an agent was lost, what the totals leave out ([`Incomplete`]).

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use super::events::StepFigures;
use super::rows::{Cell, Column, Table};

impl crate::Report {
    /// The run's steps as agent `name` measured them, each under its merged step's label
    /// (step n is the report's n-th); a step it has no figures of is left out.
    pub fn of_agent(&self, name: &str) -> Vec<crate::StepReport> {
        let Some(agent) = self.agents.iter().find(|a| a.name == name) else {
            return Vec::new();
        };
        agent
            .steps
            .iter()
            .filter_map(|s| {
                let f = s.measured.as_ref()?;
                let merged = self.steps.get((s.step as usize).checked_sub(1)?);
                let label = merged.map_or_else(|| format!("step {}", s.step), |m| m.label.clone());
                let label = if s.counted {
                    label
                } else {
                    format!("{label} (late: not in the totals)")
                };
                let payload = merged.and_then(|m| m.payload_bytes);
                Some(crate::StepReport::from_figures(label, payload, f))
            })
            .collect()
    }
}

/// How an agent ended the run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentEnd {
    /// It answered to the end: its results are in the totals.
    Counted,
    /// It was lost ([`Incomplete::lost`]).
    Lost,
}

/// One agent of a run over agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentSection {
    /// Its name (the cluster file's).
    pub name: String,
    /// Its API's URL.
    pub url: String,
    /// Its wall clock − the coordinator's, in µs (Cristian's method over 8 calls), when
    /// measured.
    pub clock_offset_us: Option<f64>,
    /// The least round trip of those calls, in µs: the start is common to within half of it.
    pub rtt_us: Option<f64>,
    /// How it ended the run.
    pub state: AgentEnd,
    /// Its steps as it measured them.
    pub steps: Vec<AgentStep>,
}

/// One step of one agent, as it measured it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentStep {
    /// The step (from 1).
    pub step: u32,
    /// Whether the step's totals hold it (a result that came after its agent was lost is kept
    /// here, not in the totals).
    pub counted: bool,
    /// How late its first packet was due against the common start, in µs (negative: early).
    pub start_late_us: f64,
    /// Per direction that carried traffic, over its pairs: packets sent, received and lost.
    pub figures: Vec<StepFigures>,
    /// Every figure of the step as this agent measured it, its pairs together (directions with
    /// their latency, streams, ports, frames): what the single box's step has, for this agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<crate::pairs::StepFigures>,
}

/// An agent lost during the run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LostAgent {
    /// Its name.
    pub agent: String,
    /// The step under way (from 1), if any.
    pub step: Option<u32>,
    /// When, in seconds since the run started.
    pub t_s: f64,
    /// Why: "no answer for 3 s", "connection refused", "answered 503: ...".
    pub reason: String,
}

/// A step whose totals hold fewer agents than the run's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepCount {
    /// The step (from 1).
    pub step: u32,
    /// "2 of 3": agents whose results its totals hold, of all agents.
    pub agents_counted: String,
}

/// What an incomplete run leaves out: the run ended after the step an agent was lost in, and
/// that step's totals are over the agents that answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Incomplete {
    /// Every agent lost, in order.
    pub lost: Vec<LostAgent>,
    /// The steps counted over fewer agents than the run's.
    pub steps: Vec<StepCount>,
}

impl Incomplete {
    /// The report's warning: "incomplete: gnb-b lost in step 2 at 3.4 s (no answer for 3 s);
    /// step 2 counts 2 of 3 agents".
    pub fn warning(&self) -> String {
        let lost: Vec<String> = self
            .lost
            .iter()
            .map(|l| {
                let when = l
                    .step
                    .map_or_else(|| "before any step".to_owned(), |s| format!("in step {s}"));
                format!("{} lost {when} at {:.1} s ({})", l.agent, l.t_s, l.reason)
            })
            .collect();
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|s| format!("step {} counts {} agents", s.step, s.agents_counted))
            .collect();
        let mut text = format!("incomplete: {}", lost.join("; "));
        if !steps.is_empty() {
            text.push_str("; ");
            text.push_str(&steps.join("; "));
        }
        text
    }
}

/// report.txt's section of the agents ([`agents_table`] under its title).
pub(crate) fn agents_section(out: &mut String, agents: &[AgentSection]) {
    let Some(t) = agents_table(agents) else {
        return;
    };
    let _ = writeln!(out, "Agents: each as it measured itself\n");
    out.push_str(&t.to_markdown());
    out.push('\n');
}

/// The table of a run's agents (none for a single box's): a line per agent and step, with its
/// clock, how late it started, and what it sent, received and lost (all directions); the text
/// report and the page show it.
pub fn agents_table(agents: &[AgentSection]) -> Option<Table> {
    if agents.is_empty() {
        return None;
    }
    let mut t = Table::new(vec![
        Column::left("agent"),
        Column::left("url"),
        Column::left("state"),
        Column::right("offset us"),
        Column::right("rtt us"),
        Column::right("step"),
        Column::left("counted"),
        Column::right("start late us"),
        Column::right("sent"),
        Column::right("received"),
        Column::right("lost"),
    ]);
    for a in agents {
        let state = match a.state {
            AgentEnd::Counted => "counted",
            AgentEnd::Lost => "lost",
        };
        let head = || {
            vec![
                Cell::text(&a.name),
                Cell::text(&a.url),
                Cell::text(state),
                a.clock_offset_us
                    .map_or_else(Cell::missing, |v| Cell::number(v, 1)),
                a.rtt_us.map_or_else(Cell::missing, |v| Cell::number(v, 1)),
            ]
        };
        if a.steps.is_empty() {
            let mut row = head();
            row.extend((0..6).map(|_| Cell::missing()));
            t.push(row);
        }
        for s in &a.steps {
            let sum = |f: fn(&StepFigures) -> u64| s.figures.iter().map(f).sum::<u64>();
            let mut row = head();
            row.extend([
                Cell::text(s.step.to_string()),
                Cell::text(if s.counted { "yes" } else { "no (late)" }),
                Cell::number(s.start_late_us, 1),
                Cell::text(sum(|f| f.sent).to_string()),
                Cell::text(sum(|f| f.received).to_string()),
                Cell::text(sum(|f| f.lost).to_string()),
            ]);
            t.push(row);
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_warning_names_the_lost_and_the_counts() {
        let i = Incomplete {
            lost: vec![
                LostAgent {
                    agent: "gnb-b".to_owned(),
                    step: Some(2),
                    t_s: 3.42,
                    reason: "no answer for 3 s".to_owned(),
                },
                LostAgent {
                    agent: "gnb-c".to_owned(),
                    step: None,
                    t_s: 0.1,
                    reason: "connection refused".to_owned(),
                },
            ],
            steps: vec![StepCount {
                step: 2,
                agents_counted: "2 of 3".to_owned(),
            }],
        };
        assert_eq!(
            i.warning(),
            "incomplete: gnb-b lost in step 2 at 3.4 s (no answer for 3 s); gnb-c lost before \
             any step at 0.1 s (connection refused); step 2 counts 2 of 3 agents"
        );
        let json = serde_json::to_value(&i).unwrap();
        assert_eq!(json["lost"][0]["agent"], "gnb-b");
        assert_eq!(json["lost"][1]["step"], serde_json::Value::Null);
        assert_eq!(json["steps"][0]["agents_counted"], "2 of 3");
        assert_eq!(serde_json::from_value::<Incomplete>(json).unwrap(), i);
    }

    /// gnb-a counted with one step, gnb-b lost in step 1, and another warning.
    fn two_agents_one_lost() -> crate::Report {
        use crate::Report;
        use upfbench_stats::Direction;
        let fig = |sent, lost| StepFigures {
            direction: Direction::Uplink,
            sent,
            received: sent - lost,
            lost,
        };
        let mut r = Report::new("0.1.0", 0);
        r.warnings.push("another warning".to_owned());
        r.agents = vec![
            AgentSection {
                name: "gnb-a".to_owned(),
                url: "http://127.0.0.1:9801".to_owned(),
                clock_offset_us: Some(-12.5),
                rtt_us: Some(80.0),
                state: AgentEnd::Counted,
                steps: vec![AgentStep {
                    step: 1,
                    counted: true,
                    start_late_us: 1.5,
                    figures: vec![fig(10_000, 1)],
                    measured: None,
                }],
            },
            AgentSection {
                name: "gnb-b".to_owned(),
                url: "http://127.0.0.1:9802".to_owned(),
                clock_offset_us: None,
                rtt_us: None,
                state: AgentEnd::Lost,
                steps: vec![],
            },
        ];
        r.incomplete = Some(Incomplete {
            lost: vec![LostAgent {
                agent: "gnb-b".to_owned(),
                step: Some(1),
                t_s: 0.9,
                reason: "connection refused".to_owned(),
            }],
            steps: vec![StepCount {
                step: 1,
                agents_counted: "1 of 2".to_owned(),
            }],
        });
        r
    }

    #[test]
    fn report_txt_lists_each_agent_s_steps_and_warns_first_of_the_loss() {
        use crate::render_table;
        let r = two_agents_one_lost();
        let text = render_table(&r);
        let line = |needle: &str| {
            text.lines()
                .find(|l| l.contains(needle))
                .unwrap_or_else(|| panic!("no {needle:?} in\n{text}"))
                .split('|')
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect::<Vec<_>>()
        };
        assert_eq!(
            line("gnb-a"),
            [
                "gnb-a",
                "http://127.0.0.1:9801",
                "counted",
                "-12.5",
                "80.0",
                "1",
                "yes",
                "1.5",
                "10000",
                "9999",
                "1"
            ]
        );
        assert_eq!(
            line("9802")[..3],
            ["gnb-b", "http://127.0.0.1:9802", "lost"]
        );
        let warnings: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("warning: "))
            .collect();
        assert_eq!(
            warnings,
            [
                "warning: incomplete: gnb-b lost in step 1 at 0.9 s (connection refused); step 1 \
                 counts 1 of 2 agents",
                "warning: another warning"
            ]
        );
    }

    #[test]
    fn each_agent_s_own_figures_read_back_and_print_as_its_tables() {
        // The golden report's steps as gnb-a measured them, its first step's uplink changed,
        // and a late step 2 of gnb-b.
        let mut r = crate::Report::from_json(include_str!("../testdata/report.json")).unwrap();
        let mut mine = crate::StepFigures::of(r.steps[0].clone());
        mine.directions[0].tx.kpps = 4321.5;
        let step = |n: u32, counted, measured| AgentStep {
            step: n,
            counted,
            start_late_us: 0.0,
            figures: vec![],
            measured: Some(measured),
        };
        let late = crate::StepFigures::of(r.steps[1].clone());
        r.agents = vec![
            AgentSection {
                name: "gnb-a".into(),
                url: "http://a:9800".into(),
                clock_offset_us: None,
                rtt_us: None,
                state: AgentEnd::Counted,
                steps: vec![step(1, true, mine)],
            },
            AgentSection {
                name: "gnb-b".into(),
                url: "http://b:9800".into(),
                clock_offset_us: None,
                rtt_us: None,
                state: AgentEnd::Lost,
                steps: vec![step(2, false, late)],
            },
        ];
        let back = crate::Report::from_json(&r.to_json()).unwrap();
        assert_eq!(back, r);
        let a = back.of_agent("gnb-a");
        assert_eq!(a.len(), 1);
        assert_eq!(
            (a[0].label.as_str(), a[0].directions[0].tx.kpps),
            (r.steps[0].label.as_str(), 4321.5)
        );
        let b = back.of_agent("gnb-b");
        assert_eq!(
            b[0].label,
            format!("{} (late: not in the totals)", r.steps[1].label)
        );
        assert!(back.of_agent("gnb-c").is_empty());
        let text = r.to_table();
        let (_, agents) = text
            .split_once("Agent gnb-a: what it measured itself")
            .expect("gnb-a's tables");
        let (a, b) = agents
            .split_once("Agent gnb-b: what it measured itself")
            .expect("gnb-b's after gnb-a's");
        assert!(a.contains("4321.5"), "{a}");
        assert!(b.contains("(late: not in the totals)"), "{b}");
    }
}
