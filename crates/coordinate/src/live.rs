//! The live line of a run over agents (docs/scale.md §3 "Failures": the status read each second
//! "also feeds the live line, summed"): each agent's last second as its `GET /v1/status` gave
//! it, and once every agent still counted has given one since the last line, a line of their
//! sums: rates and losses add; a percentile does not, so the line gives the worst agent's p99
//! and max, named as such.

use upfbench_api::v1::{LiveDirection, LiveFigures, Status};
use upfbench_cluster::coordinator::Lost;
use upfbench_report::events::EventLine;
use upfbench_stats::Direction;

use crate::drive::Watch;
use crate::run::{lost_event_line, lost_line};

/// What a run over agents says as it goes: each agent lost (a line, and events.jsonl's), and
/// the agents' summed seconds.
pub struct Watcher<'a> {
    live: LiveSum,
    /// The agents' names, in the cluster file's order.
    names: Vec<String>,
    started_unix_ms: u64,
    /// events.jsonl's lines so far.
    pub events: Vec<EventLine>,
    say: &'a (dyn Fn(&str) + Sync),
}

impl<'a> Watcher<'a> {
    /// For the agents `names` of a run begun at `started_unix_ms`, saying lines with `say`.
    pub fn new(
        names: Vec<String>,
        started_unix_ms: u64,
        say: &'a (dyn Fn(&str) + Sync),
    ) -> Watcher<'a> {
        Watcher {
            live: LiveSum::new(names.len()),
            names,
            started_unix_ms,
            events: Vec::new(),
            say,
        }
    }
}

impl Watch for &mut Watcher<'_> {
    fn lost(&mut self, lost: &Lost) {
        (self.say)(&lost_line(lost));
        self.events
            .push(lost_event_line(lost, self.started_unix_ms));
        if let Some(i) = self.names.iter().position(|n| *n == lost.agent) {
            self.live.lose(i);
        }
    }

    fn status(&mut self, agent: usize, status: &Status) {
        if let Some(line) = self.live.status(agent, status) {
            (self.say)(&line);
        }
    }
}

/// The agents' last seconds, and when a line of them is due.
#[derive(Debug)]
pub struct LiveSum {
    /// Each agent's figures since the last line.
    latest: Vec<Option<LiveFigures>>,
    /// Agents no longer counted (lost): not waited for.
    gone: Vec<bool>,
    /// Each agent's last figures' time: a status read again within the same second (from a
    /// step's planned end the status is read every 50 ms) brings nothing new.
    seen: Vec<Option<u64>>,
}

impl LiveSum {
    /// For `agents` agents.
    pub fn new(agents: usize) -> LiveSum {
        LiveSum {
            latest: vec![None; agents],
            gone: vec![false; agents],
            seen: vec![None; agents],
        }
    }

    /// Agent `agent` is lost: lines go on without it.
    pub fn lose(&mut self, agent: usize) {
        if let Some(g) = self.gone.get_mut(agent) {
            *g = true;
        }
    }

    /// Agent `agent`'s status; the line of every agent's last second when each counted one
    /// has given one since the last line.
    pub fn status(&mut self, agent: usize, status: &Status) -> Option<String> {
        let live = status.live.as_ref()?;
        let seen = self.seen.get_mut(agent)?;
        if *seen == Some(live.elapsed_ns) {
            return None;
        }
        *seen = Some(live.elapsed_ns);
        *self.latest.get_mut(agent)? = Some(live.clone());
        let waiting = self
            .latest
            .iter()
            .zip(&self.gone)
            .any(|(l, gone)| l.is_none() && !gone);
        if waiting {
            return None;
        }
        let figures: Vec<LiveFigures> = self.latest.iter_mut().filter_map(Option::take).collect();
        Some(line(&figures))
    }
}

/// The line of `figures`, one per agent: `3.0s 2 agents: UL tx 0.012 Gbps 12.0 kpps rx ...`.
pub fn line(figures: &[LiveFigures]) -> String {
    let elapsed = figures.iter().map(|f| f.elapsed_ns).max().unwrap_or(0);
    let mut text = format!("{:7.1}s {} agents:", elapsed as f64 / 1e9, figures.len());
    let mut first = true;
    for dir in [Direction::Uplink, Direction::Downlink] {
        let parts: Vec<&LiveDirection> = figures
            .iter()
            .flat_map(|f| &f.total)
            .filter(|d| d.direction == dir)
            .collect();
        if parts.is_empty() {
            continue;
        }
        let sum = |f: fn(&LiveDirection) -> f64| parts.iter().map(|d| f(d)).sum::<f64>();
        let worst = |f: fn(&LiveDirection) -> Option<u64>| parts.iter().filter_map(|d| f(d)).max();
        if !first {
            text.push_str(" |");
        }
        first = false;
        text.push_str(&format!(
            " {} tx {:.3} Gbps {:.1} kpps rx {:.3} Gbps {:.1} kpps lost {}",
            dir.short(),
            sum(|d| d.tx_gbps_l1),
            sum(|d| d.tx_kpps),
            sum(|d| d.rx_gbps_l1),
            sum(|d| d.rx_kpps),
            parts.iter().map(|d| d.lost_total).sum::<u64>(),
        ));
        match (worst(|d| d.lat_p99_ns), worst(|d| d.lat_max_ns)) {
            (Some(p), Some(m)) => text.push_str(&format!(
                " lat worst agent's p99/max {:.1}/{:.1} us",
                p as f64 / 1e3,
                m as f64 / 1e3
            )),
            _ => text.push_str(" lat -"),
        }
    }
    if first {
        text.push_str(" no traffic");
    }
    text
}

#[cfg(test)]
mod tests;
