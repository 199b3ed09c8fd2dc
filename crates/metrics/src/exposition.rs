//! A scrape's text: the samples of every family of the role, made from a copy of the shared
//! state (and the workers' snapshots it holds readers of), encoded by the official client
//! (`prometheus-client`) in Prometheus' text format 0.0.4.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, NoLabelSet, prometheus_text};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::Registry;

use super::families::{self, Family, Kind, Role};
use super::health::Phase;
use super::histogram::LatencyBuckets;
use super::{RoleFigures, State};

/// A sample's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A counter's.
    Counter(u64),
    /// A gauge's.
    Gauge(f64),
    /// A histogram's buckets, sum and count.
    Histogram(Box<LatencyBuckets>),
}

/// One series: its labels (in the family's order) and value.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Sample {
    pub(super) labels: Vec<(&'static str, String)>,
    pub(super) value: Value,
}

/// The samples of a scrape, family by family in the table's order (a family without samples
/// keeps its place and shows only its help and type).
#[derive(Debug, Default)]
pub struct Exposition {
    pub(super) families: Vec<(&'static Family, Vec<Sample>)>,
}

impl Exposition {
    /// Every family of `role`, empty.
    pub(super) fn new(role: Role) -> Exposition {
        Exposition {
            families: families::of(role)
                .iter()
                .map(|&f| (f, Vec::new()))
                .collect(),
        }
    }

    /// Adds a sample of `family` with these label values (in the family's label order).
    pub fn add(&mut self, family: &'static Family, values: &[&str], value: Value) {
        debug_assert_eq!(values.len(), family.labels.len(), "{}", family.name);
        debug_assert!(
            matches!(
                (family.kind, &value),
                (Kind::Counter, Value::Counter(_))
                    | (Kind::Gauge, Value::Gauge(_))
                    | (Kind::Histogram, Value::Histogram(_))
            ),
            "{}",
            family.name
        );
        let labels = family
            .labels
            .iter()
            .zip(values)
            .map(|(&k, &v)| (k, v.to_owned()))
            .collect();
        let sample = Sample { labels, value };
        match self.families.iter_mut().find(|(f, _)| *f == family) {
            Some((_, samples)) => samples.push(sample),
            None => self.families.push((family, vec![sample])),
        }
    }
}

/// The exposition of `state` for `role`.
pub(super) fn collect<F: RoleFigures>(state: &State<F>) -> Exposition {
    let role = F::ROLE;
    let mut e = Exposition::new(role);
    e.add(
        &families::BUILD_INFO,
        &[env!("CARGO_PKG_VERSION"), role.name()],
        Value::Gauge(1.0),
    );
    for &p in Phase::of(role) {
        let on = p == state.phase;
        e.add(
            &families::PHASE,
            &[p.name()],
            Value::Gauge(if on { 1.0 } else { 0.0 }),
        );
    }
    state.figures.expose(&mut e);
    e
}

/// The text of a scrape of `state` for `role`.
pub(super) fn render<F: RoleFigures>(state: &State<F>) -> String {
    encode(collect(state))
}

/// What the client's registry asks for at encoding time: the samples made for this scrape.
#[derive(Debug)]
struct Scraped(Exposition);

impl Collector for Scraped {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        for (family, samples) in &self.0.families {
            let kind = match family.kind {
                Kind::Counter => MetricType::Counter,
                Kind::Gauge => MetricType::Gauge,
                Kind::Histogram => MetricType::Histogram,
            };
            let mut metric = encoder.encode_descriptor(family.name, family.help, None, kind)?;
            for s in samples {
                let mut m = metric.encode_family(&s.labels)?;
                match &s.value {
                    Value::Counter(v) => m.encode_counter::<NoLabelSet, u64, u64>(v, None)?,
                    Value::Gauge(v) => m.encode_gauge(v)?,
                    Value::Histogram(b) => m.encode_histogram::<NoLabelSet>(
                        b.sum_seconds(),
                        b.count(),
                        &b.per_bound(),
                        None,
                    )?,
                }
            }
        }
        Ok(())
    }
}

/// Prometheus' text format of `e`.
pub(super) fn encode(e: Exposition) -> String {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Scraped(e)));
    let mut text = String::new();
    // Writing into a String fails only if an encoder does, which ours do not.
    if prometheus_text::encode(&mut text, &registry).is_err() {
        text.clear();
    }
    text
}
