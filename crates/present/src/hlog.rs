//! The step's latency interval log (`latency*.hlog`, one tagged histogram per direction and
//! second) read back and summed per direction: the step's whole distribution at the
//! histogram's precision, which the report's handful of percentiles only sample.

use std::collections::BTreeMap;

use base64::Engine as _;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::Deserializer;
use hdrhistogram::serialization::interval_log::{IntervalLogIterator, LogEntry};
use upfbench_stats::Direction;

use crate::error::ReadError;

/// Each direction's intervals of `log` added into one histogram (values in ns). Intervals
/// without a tag or with another tag than a direction's name are left out.
pub(crate) fn direction_histograms(
    log: &[u8],
) -> Result<BTreeMap<Direction, Histogram<u64>>, ReadError> {
    let mut sums: BTreeMap<Direction, Histogram<u64>> = BTreeMap::new();
    let mut deserializer = Deserializer::new();
    for entry in IntervalLogIterator::new(log) {
        let entry = entry.map_err(|e| ReadError::IntervalLog(format!("{e:?}")))?;
        let LogEntry::Interval(interval) = entry else {
            continue;
        };
        let tag = interval.tag().map(|t| t.as_str());
        let Some(direction) = Direction::ALL.into_iter().find(|d| Some(d.name()) == tag) else {
            continue;
        };
        let raw = base64::engine::general_purpose::STANDARD
            .decode(interval.encoded_histogram())
            .map_err(|e| ReadError::IntervalLog(format!("an interval's base64: {e}")))?;
        let h: Histogram<u64> = deserializer
            .deserialize(&mut raw.as_slice())
            .map_err(|e| ReadError::IntervalLog(format!("an interval's histogram: {e:?}")))?;
        match sums.get_mut(&direction) {
            Some(sum) => sum
                .add(&h)
                .map_err(|e| ReadError::IntervalLog(format!("adding intervals: {e:?}")))?,
            None => {
                let mut first = h;
                // Later intervals may hold larger values than the first one's range.
                first.auto(true);
                sums.insert(direction, first);
            }
        }
    }
    Ok(sums)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use upfbench_stats::{IntervalLog, LatencyConfig, LatencyRecorder};

    use super::*;

    fn recorder(samples: impl IntoIterator<Item = i64>) -> LatencyRecorder {
        let mut r = LatencyRecorder::new(&LatencyConfig::default()).unwrap();
        for s in samples {
            r.record(s);
        }
        r
    }

    #[test]
    fn a_directions_intervals_add_up_to_one_histogram() {
        let mut log = IntervalLog::new(SystemTime::UNIX_EPOCH, "test");
        let second = Duration::from_secs(1);
        log.add(
            Direction::Uplink,
            Duration::ZERO,
            second,
            &recorder(1_000..2_000),
        )
        .unwrap();
        log.add(
            Direction::Downlink,
            Duration::ZERO,
            second,
            &recorder([50_000]),
        )
        .unwrap();
        log.add(Direction::Uplink, second, second, &recorder(2_000..3_000))
            .unwrap();
        // A second without samples is in the log too, and adds nothing.
        log.add(Direction::Uplink, second * 2, second, &recorder([]))
            .unwrap();
        let sums = direction_histograms(&log.to_bytes()).unwrap();
        let ul = &sums[&Direction::Uplink];
        assert_eq!(ul.len(), 2_000);
        let median = ul.value_at_quantile(0.5);
        assert!((1_995..=2_005).contains(&median), "{median}");
        assert_eq!(sums[&Direction::Downlink].len(), 1);
    }

    #[test]
    fn a_damaged_log_is_an_error_not_a_panic() {
        let mut log = IntervalLog::new(SystemTime::UNIX_EPOCH, "test");
        log.add(
            Direction::Uplink,
            Duration::ZERO,
            Duration::from_secs(1),
            &recorder([1_000]),
        )
        .unwrap();
        let mut bytes = log.to_bytes();
        // Cut into the last interval's base64.
        bytes.truncate(bytes.len() - 10);
        bytes.extend_from_slice(b"!!!\n");
        assert!(direction_histograms(&bytes).is_err());
        assert!(direction_histograms(b"not a log at all\n").is_err());
    }
}
