//! The exact merge (docs/scale.md §3 "The exact merge"): agents' raw step results
//! ([`StepResult`], `GET /v1/steps/{n}/result`) added up to what one box would have measured.
//! Counts add; latency histograms are decoded ([`LatencyHistogram::to_recorder`]) and add
//! bucket by bucket ([`LatencyRecorder::merge`]); minima and maxima take the extreme, sums add;
//! second k of every part adds to second k (the seconds count from the step's common start);
//! jitter is the flow-weighted mean of the parts' means, the one figure defined rather than
//! exact. A result of another latency configuration, or whose streams are not the same
//! streams, is refused ([`MergeError`]), never merged approximately.

mod figures;

use std::collections::BTreeMap;

use thiserror::Error;
use upfbench_api::v1::{
    DirectionFigures, HistogramError, LatencyHistogram, LatencySettings, PairResult, QfiFigures,
    SecondFigures, StepResult, StreamFigures,
};
use upfbench_report::{KernelInterface, PortFrames, PortReport, StepPhase, TxSlip};
use upfbench_stats::{Direction, LatencyConfig, LatencyConfigError, LatencyRecorder, PortName};

pub use figures::{
    MergedDirection, MergedQfi, MergedSecond, MergedSecondDirection, MergedStep, MergedStream,
};

/// A result that cannot be merged with the others.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum MergeError {
    /// Nothing to merge.
    #[error("no result to merge")]
    Empty,
    /// The result of another step.
    #[error("{agent}: a result of step {got} where step {want}'s was asked for")]
    Step {
        /// The agent.
        agent: String,
        /// Its step.
        got: u32,
        /// The step merged.
        want: u32,
    },
    /// Histograms of another latency configuration: they cannot add bucket by bucket.
    #[error(
        "{agent}: latency histograms of 1..={} ns at {} digits, the run's are of 1..={} ns at {} \
         digits: not merged",
        theirs.max_ns, theirs.significant_digits, want.max_ns, want.significant_digits
    )]
    LatencyConfig {
        /// The agent.
        agent: String,
        /// Its configuration.
        theirs: LatencySettings,
        /// The run's.
        want: LatencySettings,
    },
    /// A histogram that does not decode, or disagrees with itself.
    #[error("{agent}: {field}: {source}")]
    Histogram {
        /// The agent.
        agent: String,
        /// Which histogram (`pairs[0].streams[1].latency`).
        field: String,
        /// Why.
        source: HistogramError,
    },
    /// The run's latency configuration itself is unusable.
    #[error(transparent)]
    Config(#[from] LatencyConfigError),
    /// A stream (by index) that is another stream than the other parts' of that index.
    #[error("{agent}: {field}: {message}")]
    Mismatch {
        /// The agent.
        agent: String,
        /// Where.
        field: String,
        /// What differs.
        message: String,
    },
}

/// The run's latency configuration as the wire gives it.
pub fn settings(config: &LatencyConfig) -> LatencySettings {
    LatencySettings {
        max_ns: config.max_ns,
        significant_digits: config.significant_digits,
    }
}

/// Merges the results of step `step` (every pair of every result) into one set of figures,
/// exactly. `config` is the profile's latency configuration: every result must have been
/// recorded with it.
pub fn merge(
    step: u32,
    config: &LatencyConfig,
    results: &[&StepResult],
) -> Result<MergedStep, MergeError> {
    let first = results.first().ok_or(MergeError::Empty)?;
    let empty = LatencyRecorder::new(config)?;
    let mut m = Merger::new(step, *config, first.start_late_ns, empty);
    for r in results {
        m.result(r)?;
    }
    m.finish()
}

/// The merge under way.
struct Merger {
    out: MergedStep,
    /// An empty recorder of the run's configuration.
    empty: LatencyRecorder,
    directions: BTreeMap<Direction, MergedDirection>,
    streams: BTreeMap<u32, MergedStream>,
    qfis: BTreeMap<(u8, Direction), MergedQfi>,
    ports: BTreeMap<PortName, PortReport>,
    frames: BTreeMap<PortName, PortFrames>,
    seconds: BTreeMap<u32, (MergedSecond, BTreeMap<Direction, MergedSecondDirection>)>,
    /// Σ jitter mean × flows per stream, for the weighted mean.
    jitter: BTreeMap<u32, f64>,
}

/// Where the histogram being decoded is, for an error.
struct Place<'a> {
    agent: &'a str,
    config: &'a LatencyConfig,
    empty: &'a LatencyRecorder,
}

impl Place<'_> {
    fn decode(&self, h: &LatencyHistogram, field: String) -> Result<LatencyRecorder, MergeError> {
        h.to_recorder(self.config)
            .map_err(|source| MergeError::Histogram {
                agent: self.agent.to_owned(),
                field,
                source,
            })
    }

    fn empty(&self) -> LatencyRecorder {
        self.empty.clone()
    }
}

impl Merger {
    fn new(step: u32, config: LatencyConfig, start_late_ns: i64, empty: LatencyRecorder) -> Merger {
        Merger {
            empty,
            out: MergedStep {
                step,
                agents: Vec::new(),
                latency: config,
                start_late_min_ns: start_late_ns,
                start_late_max_ns: start_late_ns,
                duration_ns: 0,
                warnings: Vec::new(),
                directions: Vec::new(),
                streams: Vec::new(),
                qfis: Vec::new(),
                ports: Vec::new(),
                frames: Vec::new(),
                rx_rejected: BTreeMap::new(),
                rx_untagged: 0,
                rx_unknown_stream: 0,
                seconds: Vec::new(),
            },
            directions: BTreeMap::new(),
            streams: BTreeMap::new(),
            qfis: BTreeMap::new(),
            ports: BTreeMap::new(),
            frames: BTreeMap::new(),
            seconds: BTreeMap::new(),
            jitter: BTreeMap::new(),
        }
    }

    fn result(&mut self, r: &StepResult) -> Result<(), MergeError> {
        let agent = r.agent.as_str();
        if r.step != self.out.step {
            return Err(MergeError::Step {
                agent: agent.to_owned(),
                got: r.step,
                want: self.out.step,
            });
        }
        let want = settings(&self.out.latency);
        if r.latency != want {
            return Err(MergeError::LatencyConfig {
                agent: agent.to_owned(),
                theirs: r.latency,
                want,
            });
        }
        let config = self.out.latency;
        let empty = self.empty.clone();
        let at = Place {
            agent,
            config: &config,
            empty: &empty,
        };
        let out = &mut self.out;
        out.agents.push(agent.to_owned());
        out.start_late_min_ns = out.start_late_min_ns.min(r.start_late_ns);
        out.start_late_max_ns = out.start_late_max_ns.max(r.start_late_ns);
        out.duration_ns = out.duration_ns.max(r.duration_ns);
        out.warnings
            .extend(r.warnings.iter().map(|w| format!("{agent}: {w}")));
        for (p, pair) in r.pairs.iter().enumerate() {
            self.pair(&at, p, pair)?;
        }
        Ok(())
    }

    fn pair(&mut self, at: &Place<'_>, p: usize, pair: &PairResult) -> Result<(), MergeError> {
        let field = |rest: String| format!("pairs[{p}].{rest}");
        for (i, d) in pair.directions.iter().enumerate() {
            self.direction(at, d, field(format!("directions[{i}].latency")))?;
        }
        for (i, s) in pair.streams.iter().enumerate() {
            self.stream(at, s, field(format!("streams[{i}]")))?;
        }
        for (i, q) in pair.qfis.iter().enumerate() {
            self.qfi(at, q, field(format!("qfis[{i}].latency")))?;
        }
        for port in &pair.ports {
            add_port(
                self.ports
                    .entry(port.name)
                    .or_insert_with(|| PortReport::zero(port.name)),
                port,
            );
        }
        for f in &pair.frames {
            self.frames
                .entry(f.name)
                .or_insert_with(|| PortFrames::zero(f.name))
                .add(f);
        }
        for (kind, n) in &pair.rx_rejected {
            *self.out.rx_rejected.entry(kind.clone()).or_default() += n;
        }
        self.out.rx_untagged += pair.rx_untagged;
        self.out.rx_unknown_stream += pair.rx_unknown_stream;
        for (i, s) in pair.seconds.iter().enumerate() {
            self.second(at, s, &field(format!("seconds[{i}]")))?;
        }
        Ok(())
    }

    fn direction(
        &mut self,
        at: &Place<'_>,
        d: &DirectionFigures,
        field: String,
    ) -> Result<(), MergeError> {
        let latency = at.decode(&d.latency, field)?;
        let m = self
            .directions
            .entry(d.direction)
            .or_insert_with(|| MergedDirection {
                direction: d.direction,
                tx: Default::default(),
                rx: Default::default(),
                seq: Default::default(),
                latency: at.empty(),
            });
        m.tx.merge(&d.tx);
        m.rx.merge(&d.rx);
        m.seq.merge(&d.seq);
        m.latency.merge(&latency);
        Ok(())
    }

    fn stream(
        &mut self,
        at: &Place<'_>,
        s: &StreamFigures,
        field: String,
    ) -> Result<(), MergeError> {
        let latency = at.decode(&s.latency, format!("{field}.latency"))?;
        let m = self
            .streams
            .entry(s.stream)
            .or_insert_with(|| MergedStream {
                stream: s.stream,
                name: s.name.clone(),
                direction: s.direction,
                flows: 0,
                seq: Default::default(),
                jitter_mean_ns: None,
                jitter_flows: 0,
                latency: at.empty(),
                tx_slip: None,
            });
        if (m.name.as_str(), m.direction) != (s.name.as_str(), s.direction) {
            return Err(MergeError::Mismatch {
                agent: at.agent.to_owned(),
                field,
                message: format!(
                    "stream {} is {:?} ({:?}) here and {:?} ({:?}) in the results before",
                    s.stream, s.name, s.direction, m.name, m.direction
                ),
            });
        }
        m.flows += s.flows;
        m.seq.merge(&s.seq);
        m.latency.merge(&latency);
        if let Some(slip) = s.tx_slip {
            m.tx_slip = Some(TxSlip::merge(m.tx_slip, slip));
        }
        if let Some(mean) = s.jitter_mean_ns
            && s.jitter_flows > 0
        {
            *self.jitter.entry(s.stream).or_default() += mean * f64::from(s.jitter_flows);
            m.jitter_flows += s.jitter_flows;
        }
        Ok(())
    }

    fn qfi(&mut self, at: &Place<'_>, q: &QfiFigures, field: String) -> Result<(), MergeError> {
        let latency = at.decode(&q.latency, field)?;
        let m = self
            .qfis
            .entry((q.qfi, q.direction))
            .or_insert_with(|| MergedQfi {
                qfi: q.qfi,
                direction: q.direction,
                seq: Default::default(),
                latency: at.empty(),
            });
        m.seq.merge(&q.seq);
        m.latency.merge(&latency);
        Ok(())
    }

    fn second(&mut self, at: &Place<'_>, s: &SecondFigures, field: &str) -> Result<(), MergeError> {
        let (m, directions) = self.seconds.entry(s.index).or_insert_with(|| {
            let second = MergedSecond {
                index: s.index,
                duration_ns: 0,
                phase: s.phase,
                directions: Vec::new(),
            };
            (second, BTreeMap::new())
        });
        m.duration_ns = m.duration_ns.max(s.duration_ns);
        if rank(s.phase) > rank(m.phase) {
            m.phase = s.phase;
        }
        for (i, d) in s.directions.iter().enumerate() {
            let latency = at.decode(&d.latency, format!("{field}.directions[{i}].latency"))?;
            let md = directions
                .entry(d.direction)
                .or_insert_with(|| MergedSecondDirection {
                    direction: d.direction,
                    tx: Default::default(),
                    rx: Default::default(),
                    lost: 0,
                    latency: at.empty(),
                });
            md.tx.merge(&d.tx);
            md.rx.merge(&d.rx);
            md.lost += d.lost;
            md.latency.merge(&latency);
        }
        Ok(())
    }

    fn finish(mut self) -> Result<MergedStep, MergeError> {
        for (id, s) in &mut self.streams {
            s.jitter_mean_ns = self
                .jitter
                .get(id)
                .filter(|_| s.jitter_flows > 0)
                .map(|sum| sum / f64::from(s.jitter_flows));
        }
        let out = &mut self.out;
        out.directions = self.directions.into_values().collect();
        out.streams = self.streams.into_values().collect();
        out.qfis = self.qfis.into_values().collect();
        out.ports = self.ports.into_values().collect();
        out.frames = self.frames.into_values().collect();
        out.seconds = self
            .seconds
            .into_values()
            .map(|(mut s, d)| {
                s.directions = d.into_values().collect();
                s
            })
            .collect();
        Ok(self.out)
    }
}

/// How far along a step a phase is: the merged second takes the furthest of its parts'.
fn rank(p: StepPhase) -> u8 {
    match p {
        StepPhase::Idle => 0,
        StepPhase::Warmup => 1,
        StepPhase::Settle => 2,
        StepPhase::Measure => 3,
        StepPhase::Drain => 4,
        StepPhase::Stop => 5,
        StepPhase::End => 6,
    }
}

fn add_port(m: &mut PortReport, p: &PortReport) {
    m.ipackets += p.ipackets;
    m.opackets += p.opackets;
    m.ibytes += p.ibytes;
    m.obytes += p.obytes;
    m.imissed += p.imissed;
    m.ierrors += p.ierrors;
    m.rx_nombuf += p.rx_nombuf;
    m.oerrors += p.oerrors;
    if let Some(i) = &p.interface {
        let m = m.interface.get_or_insert_with(|| KernelInterface {
            name: String::new(),
            rx_packets: 0,
            tx_packets: 0,
            tx_lost: 0,
            rx_lost: 0,
        });
        if !m.name.split('+').any(|n| n == i.name) {
            if !m.name.is_empty() {
                m.name.push('+');
            }
            m.name.push_str(&i.name);
        }
        m.rx_packets += i.rx_packets;
        m.tx_packets += i.tx_packets;
        m.tx_lost += i.tx_lost;
        m.rx_lost += i.rx_lost;
    }
}

#[cfg(test)]
mod tests;
