//! The profile's `search:` section: what `upfbench search` looks for (RFC 9971 goals) and
//! how it runs its trials.
//!
//! ```yaml
//! search:
//!   goals:                       # NDR and PDR as CSIT has them unless given
//!     - {name: NDR, loss_ratio: 0%}
//!     - {name: PDR, loss_ratio: 0.5%, latency: {percentile: 99, max: 1ms}}
//!   directions: [both]           # the streams as written
//!   max_load: 2Mpps              # absent: what the ports carry
//! ```

use std::time::Duration;

use serde::Deserialize;

use super::super::field::join_index;
use super::super::issues::Issues;
use super::super::units::serde_text;
use upfbench_search::{LatencyBound, Percentile, SearchGoal, Strategy};

/// `upfbench search`: the goals and the trials.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchSection {
    /// The search goals (RFC 9971 §4.6.2), searched together: NDR and PDR as CSIT has them unless
    /// given.
    #[serde(default = "default_goals")]
    pub goals: Vec<GoalSection>,
    /// The direction sets searched apart, each at every payload: `uplink` (the uplink streams
    /// alone), `downlink`, `both` (the streams as written).
    #[serde(default = "default_directions")]
    pub directions: Vec<DirectionSet>,
    /// Min Load, the directions together. Absent: `10kpps`, or Max Load if that is lower.
    #[serde(default, with = "serde_text::opt_pps")]
    pub min_load: Option<f64>,
    /// Max Load, the directions together. Absent: what the ports carry at the streams' mix; needed
    /// when the ports report no line rate.
    #[serde(default, with = "serde_text::opt_pps")]
    pub max_load: Option<f64>,
    /// Silence before each trial's traffic, after the one before ended: for a UPF that needs time
    /// between trials (its queues to empty after an overload, a policer to refill, its counters
    /// or flows to age); the tester needs none (a trial never counts another's packets, and the
    /// reflector's rate cap restarts at each trial's first packet).
    #[serde(default = "default_settle", with = "serde_text::duration")]
    pub settle: Duration,
    /// After sending, a trial ends once every packet it sent is accounted for (received, or lost
    /// beyond the reorder window); when some are lost near its end, once nothing arrived for
    /// this long (at most 5 s after sending).
    #[serde(default = "default_quiet", with = "serde_text::duration")]
    pub quiet: Duration,
    /// A trial the tester sent more than this below its intended load (its schedule slipped, or
    /// sending was cut short) is tester-limited; 0% to below 100%.
    #[serde(default = "default_tolerance", with = "serde_text::percent")]
    pub tx_tolerance: f64,
    /// A trial whose sender was ever this late on its schedule is tester-limited too, even if it
    /// caught up: the UPF got a burst the load did not ask for. `~`: none; `1ms` on a tester with
    /// isolated cores, where lateness is microseconds (a shared 2-vCPU VM stalls a sender for up to
    /// 15 ms about once a second).
    #[serde(default, with = "serde_text::opt_duration")]
    pub max_tx_late: Option<Duration>,
    /// Latency under load: trials at these per cents of `latency_goal`'s conditional throughput
    /// after the search, each above 0% and at most 100%; `[]`: none.
    #[serde(default = "default_latency_loads")]
    pub latency_loads: Vec<PercentText>,
    /// The goal those per cents are of, by name. Absent: `PDR`, or the last goal.
    #[serde(default)]
    pub latency_goal: Option<String>,
    /// How long each latency-under-load trial sends; not 0.
    #[serde(default = "default_latency_duration", with = "serde_text::duration")]
    pub latency_duration: Duration,
    /// The search of one case stops, incomplete, after this long; not 0.
    #[serde(default = "default_max_duration", with = "serde_text::duration")]
    pub max_duration: Duration,
    /// How loads are chosen: `mlrsearch` (RFC 9971) or `rfc2544` (a plain binary search, to compare
    /// the two).
    #[serde(default)]
    pub strategy: StrategyName,
}

/// `search.strategy`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum StrategyName {
    /// RFC 9971's MLRsearch.
    #[default]
    Mlrsearch,
    /// RFC 2544's binary search.
    Rfc2544,
}

impl StrategyName {
    /// The controller's strategy.
    pub fn strategy(self) -> Strategy {
        match self {
            StrategyName::Mlrsearch => Strategy::MlrSearch,
            StrategyName::Rfc2544 => Strategy::Bisection,
        }
    }

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            StrategyName::Mlrsearch => "mlrsearch",
            StrategyName::Rfc2544 => "rfc2544",
        }
    }
}

impl Default for SearchSection {
    fn default() -> Self {
        SearchSection {
            goals: default_goals(),
            directions: default_directions(),
            min_load: None,
            max_load: None,
            settle: default_settle(),
            quiet: default_quiet(),
            tx_tolerance: default_tolerance(),
            max_tx_late: None,
            latency_loads: default_latency_loads(),
            latency_goal: None,
            latency_duration: default_latency_duration(),
            max_duration: default_max_duration(),
            strategy: StrategyName::default(),
        }
    }
}

/// A per cent written with its sign: `50%`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, schemars::JsonSchema, serde::Serialize)]
#[serde(transparent)]
pub struct PercentText(#[serde(with = "serde_text::percent")] pub f64);

/// The directions a search loads together.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, schemars::JsonSchema, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum DirectionSet {
    /// The uplink streams alone (a `both` stream's uplink half).
    Uplink,
    /// The downlink streams alone.
    Downlink,
    /// Every stream as written.
    Both,
}

impl DirectionSet {
    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            DirectionSet::Uplink => "uplink",
            DirectionSet::Downlink => "downlink",
            DirectionSet::Both => "both",
        }
    }
}

/// One search goal (RFC 9971 §4.6.2).
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct GoalSection {
    /// Its name in the results, unique.
    pub name: String,
    /// Goal Loss Ratio: from 0% to below 100%.
    #[serde(default, with = "serde_text::percent")]
    pub loss_ratio: f64,
    /// Goal Exceed Ratio: from 0% to below 100%.
    #[serde(default = "default_exceed", with = "serde_text::percent")]
    pub exceed_ratio: f64,
    /// Goal Width, relative to the upper bound: above 0% and below 100%.
    #[serde(default = "default_width", with = "serde_text::percent")]
    pub width: f64,
    /// Goal Initial Trial Duration: above 0, at most `final_trial_duration`.
    #[serde(default = "default_trial", with = "serde_text::duration")]
    pub initial_trial_duration: Duration,
    /// Goal Final Trial Duration.
    #[serde(default = "default_trial", with = "serde_text::duration")]
    pub final_trial_duration: Duration,
    /// Goal Duration Sum: at least `final_trial_duration`.
    #[serde(default = "default_sum", with = "serde_text::duration")]
    pub duration_sum: Duration,
    /// A latency bound a low-loss trial must also meet. Absent: none.
    #[serde(default)]
    pub latency: Option<LatencyBoundSection>,
}

/// `latency: {percentile: 99, max: 1ms}`.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct LatencyBoundSection {
    /// The percentile the trials report: 50, 90, 99, 99.9, 99.99 or 100 (the largest).
    pub percentile: f64,
    /// The bound, above 0.
    #[serde(with = "serde_text::duration")]
    pub max: Duration,
}

impl GoalSection {
    fn named(name: &str, loss_percent: f64) -> GoalSection {
        GoalSection {
            name: name.into(),
            loss_ratio: loss_percent,
            exceed_ratio: default_exceed(),
            width: default_width(),
            initial_trial_duration: default_trial(),
            final_trial_duration: default_trial(),
            duration_sum: default_sum(),
            latency: None,
        }
    }

    /// The goal the search works with (ratios from per cents).
    pub fn goal(&self) -> SearchGoal {
        SearchGoal {
            loss_ratio: self.loss_ratio / 100.0,
            exceed_ratio: self.exceed_ratio / 100.0,
            relative_width: self.width / 100.0,
            initial_trial_duration_s: self.initial_trial_duration.as_secs_f64(),
            final_trial_duration_s: self.final_trial_duration.as_secs_f64(),
            duration_sum_s: self.duration_sum.as_secs_f64(),
            latency: self.latency.as_ref().and_then(|l| {
                Some(LatencyBound {
                    percentile: Percentile::from_value(l.percentile)?,
                    max_ns: l.max.as_nanos().min(u128::from(u64::MAX)) as u64,
                })
            }),
        }
    }
}

fn default_goals() -> Vec<GoalSection> {
    vec![
        GoalSection::named("NDR", 0.0),
        GoalSection::named("PDR", 0.5),
    ]
}
fn default_directions() -> Vec<DirectionSet> {
    vec![DirectionSet::Both]
}
fn default_settle() -> Duration {
    Duration::ZERO
}
fn default_quiet() -> Duration {
    Duration::from_millis(50)
}
fn default_tolerance() -> f64 {
    1.0
}
fn default_latency_loads() -> Vec<PercentText> {
    vec![PercentText(10.0), PercentText(50.0), PercentText(90.0)]
}
fn default_latency_duration() -> Duration {
    Duration::from_secs(5)
}
fn default_max_duration() -> Duration {
    Duration::from_secs(30 * 60)
}
fn default_exceed() -> f64 {
    50.0
}
fn default_width() -> f64 {
    0.5
}
fn default_trial() -> Duration {
    Duration::from_secs(1)
}
fn default_sum() -> Duration {
    Duration::from_secs(21)
}

impl SearchSection {
    /// The goal whose conditional throughput the latency-under-load trials are fractions of.
    pub fn latency_goal_index(&self) -> Option<usize> {
        match &self.latency_goal {
            Some(name) => self.goals.iter().position(|g| &g.name == name),
            None => self
                .goals
                .iter()
                .position(|g| g.name == "PDR")
                .or(self.goals.len().checked_sub(1)),
        }
    }

    /// Adds what is wrong with the section to `issues`, fields under `search.`.
    pub(crate) fn check(&self, issues: &mut Issues) {
        self.check_goals(issues);
        self.check_directions(issues);
        self.check_loads(issues);
        self.check_latency_loads(issues);
        if self.max_duration.is_zero() {
            issues.add("search.max_duration", "above 0");
        }
    }

    /// The goals: at least one, each named once, with its MLRsearch parameters and latency
    /// bound in range.
    fn check_goals(&self, issues: &mut Issues) {
        if self.goals.is_empty() {
            issues.add("search.goals", "give at least one goal");
        }
        for (i, g) in self.goals.iter().enumerate() {
            let field = join_index("search.goals", i);
            if g.name.is_empty() {
                issues.add(format!("{field}.name"), "give the goal a name");
            }
            if self.goals[..i].iter().any(|o| o.name == g.name) {
                issues.add(format!("{field}.name"), format!("{} is used twice", g.name));
            }
            if let Err(e) = g.goal().check() {
                let key = match e.field {
                    "relative_width" => "width",
                    f => f,
                };
                let why = match key {
                    "loss_ratio" | "exceed_ratio" => "from 0% to below 100%",
                    "width" => "above 0% and below 100%",
                    "initial_trial_duration" => "above 0 and at most final_trial_duration",
                    _ => "at least final_trial_duration",
                };
                issues.add(format!("{field}.{key}"), why);
            }
            if let Some(l) = &g.latency {
                if Percentile::from_value(l.percentile).is_none() {
                    issues.add(
                        format!("{field}.latency.percentile"),
                        format!(
                            "{} is not one the trials report: use 50, 90, 99, 99.9, 99.99 or 100",
                            l.percentile
                        ),
                    );
                }
                if l.max.is_zero() {
                    issues.add(format!("{field}.latency.max"), "above 0");
                }
            }
        }
    }

    /// The directions: at least one, each listed once.
    fn check_directions(&self, issues: &mut Issues) {
        if self.directions.is_empty() {
            issues.add(
                "search.directions",
                "give at least one of uplink, downlink, both",
            );
        }
        for (i, d) in self.directions.iter().enumerate() {
            if self.directions[..i].contains(d) {
                issues.add(
                    join_index("search.directions", i),
                    format!("{} is listed twice", d.name()),
                );
            }
        }
    }

    /// The load bounds and the transmit tolerance.
    fn check_loads(&self, issues: &mut Issues) {
        for (field, v) in [
            ("search.min_load", self.min_load),
            ("search.max_load", self.max_load),
        ] {
            if let Some(v) = v
                && !(1.0..=super::MAX_PPS).contains(&v)
            {
                issues.add(field, "from 1pps to 1Gpps");
            }
        }
        if let (Some(min), Some(max)) = (self.min_load, self.max_load)
            && min > max
        {
            issues.add("search.min_load", "at most max_load");
        }
        if !(0.0..100.0).contains(&self.tx_tolerance) {
            issues.add("search.tx_tolerance", "from 0% to below 100%");
        }
    }

    /// The latency-under-load trials: their loads, their goal and their duration.
    fn check_latency_loads(&self, issues: &mut Issues) {
        for (i, p) in self.latency_loads.iter().enumerate() {
            if !(p.0 > 0.0 && p.0 <= 100.0) {
                issues.add(
                    join_index("search.latency_loads", i),
                    "above 0% and at most 100%",
                );
            }
        }
        if !self.latency_loads.is_empty() && self.latency_goal_index().is_none() {
            issues.add(
                "search.latency_goal",
                format!(
                    "no goal is named {}",
                    self.latency_goal.as_deref().unwrap_or("")
                ),
            );
        }
        if self.latency_duration.is_zero() {
            issues.add("search.latency_duration", "above 0");
        }
    }
}
