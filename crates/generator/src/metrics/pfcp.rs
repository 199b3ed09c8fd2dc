//! The PFCP client's counters in the metrics: asked of the control thread once a second while
//! the run goes on (answers that come later, never waited for), and once more at the end with
//! the report's.

use std::time::{Duration, Instant};

use upfbench_pfcp::node::{Figures, Stats};

use upfbench_metrics::families as f;
use upfbench_metrics::{Exposition, Value};

use super::GeneratorMetrics;
use upfbench_n4::client_side::{ClientThread, Pending};

/// How often the node's counters are asked for.
const EVERY: Duration = Duration::from_secs(1);

/// The PFCP client's figures as last heard (none without a PFCP client).
#[derive(Debug, Clone, Default)]
pub(crate) struct PfcpFigures {
    stats: Option<Stats>,
    /// Responses by Cause, named as the report names them.
    causes: Vec<(String, u64)>,
    lost_sessions: u64,
}

impl PfcpFigures {
    pub(super) fn expose(&self, e: &mut Exposition) {
        let Some(s) = self.stats else { return };
        let counters = [
            (&f::PFCP_REQUESTS, s.requests_sent),
            (&f::PFCP_RETRANSMISSIONS, s.retransmissions),
            (&f::PFCP_TIMEOUTS, s.timeouts),
            (&f::PFCP_ESTABLISHED, s.sessions_established),
            (&f::PFCP_DELETED, s.sessions_deleted),
            (&f::PFCP_LOST_SESSIONS, self.lost_sessions),
            (&f::PFCP_HEARTBEATS, s.heartbeats_answered),
        ];
        for (family, v) in counters {
            e.add(family, &[], Value::Counter(v));
        }
        let sessions = s.sessions_established.saturating_sub(s.sessions_deleted);
        e.add(&f::PFCP_SESSIONS, &[], Value::Gauge(sessions as f64));
        e.add(&f::PFCP_WINDOW, &[], Value::Gauge(s.window as f64));
        for (cause, n) in &self.causes {
            e.add(&f::PFCP_RESPONSES, &[cause], Value::Counter(*n));
        }
    }
}

/// What the PFCP client tells the generator's endpoint.
pub(crate) trait PfcpMetrics {
    /// The PFCP node's counters.
    fn pfcp_stats(&self, stats: Stats);
    /// The PFCP client's figures (Causes, sessions lost behind the run's back).
    fn pfcp_figures(&self, figures: &Figures);
}

impl PfcpMetrics for GeneratorMetrics {
    fn pfcp_stats(&self, stats: Stats) {
        self.update(|g| g.pfcp.stats = Some(stats));
    }

    fn pfcp_figures(&self, figures: &Figures) {
        let causes = figures
            .named_causes()
            .into_iter()
            .map(|(_, name, n)| (name, n))
            .collect();
        self.update(|g| {
            g.pfcp.causes = causes;
            g.pfcp.lost_sessions = figures.lost_sessions;
        });
    }
}

/// Asks the control thread for the node's counters and figures once a second, and hands them
/// to the metrics when they come.
#[derive(Debug, Default)]
pub(crate) struct PfcpSampler {
    stats: Option<Pending<Option<Stats>>>,
    figures: Option<Pending<Option<Figures>>>,
    asked: Option<Instant>,
}

impl PfcpSampler {
    /// Takes the answers that came; asks again when a second has passed since the last ask
    /// and both were answered.
    pub(crate) fn poll(&mut self, now: Instant, client: &ClientThread, metrics: &GeneratorMetrics) {
        if let Some(p) = &mut self.stats {
            match p.try_take() {
                Ok(None) => {}
                Ok(Some(answer)) => {
                    self.stats = None;
                    if let Some(s) = answer {
                        metrics.pfcp_stats(s);
                    }
                }
                // The control thread is gone: nothing more will come.
                Err(_) => self.stats = None,
            }
        }
        if let Some(p) = &mut self.figures {
            match p.try_take() {
                Ok(None) => {}
                Ok(Some(answer)) => {
                    self.figures = None;
                    if let Some(f) = answer {
                        metrics.pfcp_figures(&f);
                    }
                }
                Err(_) => self.figures = None,
            }
        }
        let due = self.asked.is_none_or(|t| now.duration_since(t) >= EVERY);
        if due && self.stats.is_none() && self.figures.is_none() {
            self.asked = Some(now);
            self.stats = Some(client.stats());
            self.figures = Some(client.figures());
        }
    }
}
