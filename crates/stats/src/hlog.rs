//! The HdrHistogram interval log (`.hlog`): one tagged histogram per direction and interval
//! (a second), in the format HdrHistogram's own tools read (`HistogramLogProcessor`,
//! HdrHistogram's plotter, `hdr-plot`). Values are one-way latencies in nanoseconds.
//!
//! Intervals are compressed (V2 + deflate) as they are added, so a long run keeps a few hundred
//! bytes a second, not a histogram a second.

use std::time::{Duration, SystemTime};

use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use thiserror::Error;

use crate::direction::Direction;
use crate::latency::LatencyRecorder;

/// An interval that could not be written.
#[derive(Debug, Error)]
#[error("writing a latency interval to the interval log: {0}")]
pub struct IntervalLogError(String);

/// An interval log being built in memory.
#[derive(Debug)]
pub struct IntervalLog {
    header: Vec<u8>,
    body: Vec<u8>,
    intervals: usize,
    serializer: V2DeflateSerializerBox,
}

// `V2DeflateSerializer` implements neither `Debug` nor anything else worth showing.
struct V2DeflateSerializerBox(V2DeflateSerializer);

impl std::fmt::Debug for V2DeflateSerializerBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("V2DeflateSerializer")
    }
}

impl IntervalLog {
    /// An empty log whose intervals count from `start`, with `comment` (free text, may hold
    /// several lines) at its head.
    pub fn new(start: SystemTime, comment: &str) -> IntervalLog {
        let mut header = Vec::new();
        let mut serializer = V2DeflateSerializer::new();
        let mut builder = IntervalLogWriterBuilder::new();
        builder
            .add_comment(comment)
            .add_comment("values: one-way latency in nanoseconds; tags: uplink, downlink")
            .with_start_time(start)
            .with_base_time(start);
        // Writing the header into a Vec cannot fail.
        let _ = builder.begin_log_with(&mut header, &mut serializer);
        IntervalLog {
            header,
            body: Vec::new(),
            intervals: 0,
            serializer: V2DeflateSerializerBox(serializer),
        }
    }

    /// Adds `latency` as the interval of `direction` that started `start` after the log's start
    /// and lasted `duration`. An empty histogram is written too: a second without samples is a
    /// finding, not a gap.
    pub fn add(
        &mut self,
        direction: Direction,
        start: Duration,
        duration: Duration,
        latency: &LatencyRecorder,
    ) -> Result<(), IntervalLogError> {
        let mut writer = IntervalLogWriterBuilder::new()
            .begin_log_with(&mut self.body, &mut self.serializer.0)
            .map_err(|e| IntervalLogError(e.to_string()))?;
        writer
            .write_histogram(
                latency.histogram(),
                start,
                duration,
                Tag::new(direction.name()),
            )
            .map_err(|e| IntervalLogError(e.to_string()))?;
        self.intervals += 1;
        Ok(())
    }

    /// Intervals added.
    pub fn intervals(&self) -> usize {
        self.intervals
    }

    /// The whole log.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = self.header.clone();
        out.extend_from_slice(&self.body);
        out
    }
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;
    use hdrhistogram::Histogram;
    use hdrhistogram::serialization::Deserializer;
    use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};

    use super::*;
    use crate::latency::LatencyConfig;

    fn recorder(samples: &[i64]) -> LatencyRecorder {
        let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
        for &s in samples {
            r.record(s);
        }
        r
    }

    #[test]
    fn intervals_read_back_with_their_tags_times_and_samples() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_000_000);
        let mut log = IntervalLog::new(start, "upfbench test");
        let ul = recorder(&[10_000, 20_000, 30_000]);
        let dl = recorder(&[5_000]);
        log.add(
            Direction::Uplink,
            Duration::ZERO,
            Duration::from_secs(1),
            &ul,
        )
        .unwrap();
        log.add(
            Direction::Downlink,
            Duration::ZERO,
            Duration::from_secs(1),
            &dl,
        )
        .unwrap();
        log.add(
            Direction::Uplink,
            Duration::from_secs(1),
            Duration::from_millis(500),
            &recorder(&[]),
        )
        .unwrap();
        assert_eq!(log.intervals(), 3);
        let bytes = log.to_bytes();
        let text = String::from_utf8(bytes.clone()).unwrap();
        assert!(text.starts_with("#upfbench test\n"), "{text}");
        assert!(text.contains("#[StartTime: 1795000000.000"), "{text}");

        let mut seen = Vec::new();
        let mut start_time = None;
        for entry in IntervalLogIterator::new(&bytes) {
            match entry.unwrap() {
                LogEntry::StartTime(t) => start_time = Some(t),
                LogEntry::BaseTime(_) => {}
                LogEntry::Interval(iv) => {
                    let raw = base64::engine::general_purpose::STANDARD
                        .decode(iv.encoded_histogram())
                        .unwrap();
                    let h: Histogram<u64> = Deserializer::new()
                        .deserialize(&mut raw.as_slice())
                        .unwrap();
                    seen.push((
                        iv.tag().map(|t| t.as_str().to_owned()),
                        iv.start_timestamp(),
                        iv.duration(),
                        h.len(),
                        h.max(),
                    ));
                }
            }
        }
        assert_eq!(start_time, Some(Duration::from_secs(1_795_000_000)));
        assert_eq!(seen.len(), 3);
        assert_eq!(seen[0].0.as_deref(), Some("uplink"));
        assert_eq!(seen[0].3, 3);
        assert!((29_900..=30_100).contains(&seen[0].4), "{}", seen[0].4);
        assert_eq!(seen[1].0.as_deref(), Some("downlink"));
        assert_eq!(seen[1].3, 1);
        assert_eq!(seen[2].1, Duration::from_secs(1));
        assert_eq!(seen[2].2, Duration::from_millis(500));
        assert_eq!(seen[2].3, 0);
    }
}
