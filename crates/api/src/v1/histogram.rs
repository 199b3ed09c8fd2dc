//! A latency histogram that travels: the HDR histogram in the V2 + deflate encoding that the
//! `.hlog` interval logs carry (`stats/src/hlog.rs`), base64 as there, and the exact figures
//! kept beside it ([`LatencyExact`]). Lossless: an agent's recorder comes back bucket for
//! bucket, so that a coordinator's merge is what one box would have measured (docs/scale.md
//! §3 "The exact merge").

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use hdrhistogram::Histogram;
use hdrhistogram::serialization::{Deserializer, Serializer, V2DeflateSerializer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use thiserror::Error;
use upfbench_stats::{LatencyConfig, LatencyConfigError, LatencyExact, LatencyRecorder};

/// A histogram that cannot be encoded, or an encoding that is not a histogram of the
/// configuration expected.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum HistogramError {
    /// The V2 + deflate serializer failed.
    #[error("encoding a latency histogram: {0}")]
    Encode(String),
    /// `hdr` is not base64.
    #[error("hdr is not base64: {0}")]
    Base64(String),
    /// `hdr` is not a V2 (deflate) histogram.
    #[error("hdr is not an HDR histogram (V2, deflate): {0}")]
    Decode(String),
    /// Of another precision or range than the profile's latency configuration.
    #[error(
        "hdr is a histogram of 1..={high} ns at {digits} digits, the profile's latency is \
         1..={want_high} ns at {want_digits} digits"
    )]
    Configuration {
        /// Its highest trackable value.
        high: u64,
        /// Its significant digits.
        digits: u8,
        /// The configuration's.
        want_high: u64,
        /// The configuration's.
        want_digits: u8,
    },
    /// Its samples are not as many as `count` says.
    #[error("hdr holds {histogram} samples, count says {count}")]
    Count {
        /// The histogram's.
        histogram: u64,
        /// `count`.
        count: u64,
    },
    /// The configuration itself is unusable.
    #[error(transparent)]
    Latency(#[from] LatencyConfigError),
}

/// One-way latencies (ns) of a direction, a stream or a QFI over a step or a second.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LatencyHistogram {
    /// Base64 (standard alphabet, padded) of the HDR histogram's V2 + deflate encoding, as in
    /// an `.hlog` interval line: the buckets, lossless.
    pub hdr: String,
    /// Samples recorded (negative ones excluded): the histogram's total count.
    pub count: u64,
    /// The exact smallest sample, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_ns: Option<u64>,
    /// The exact largest sample, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_ns: Option<u64>,
    /// The exact sum of the recorded samples (ns; clamped ones at the bound): `sum_ns /
    /// count` is the mean.
    pub sum_ns: u128,
    /// Samples with a negative transit time (clocks that disagree): not in the histogram.
    pub negative: u64,
    /// Samples above the histogram's bound, recorded as the bound.
    pub over_range: u64,
}

impl LatencyHistogram {
    /// The histogram of `recorder`, encoded.
    pub fn of(recorder: &LatencyRecorder) -> Result<LatencyHistogram, HistogramError> {
        let mut bytes = Vec::new();
        V2DeflateSerializer::new()
            .serialize(recorder.histogram(), &mut bytes)
            .map_err(|e| HistogramError::Encode(format!("{e:?}")))?;
        let exact = recorder.exact();
        Ok(LatencyHistogram {
            hdr: STANDARD.encode(bytes),
            count: exact.count,
            min_ns: exact.min_ns,
            max_ns: exact.max_ns,
            sum_ns: exact.sum_ns,
            negative: exact.negative,
            over_range: exact.over_range,
        })
    }

    /// The recorder it was made of, checked against `config` (the profile's latency: every
    /// agent's must be the same, or the merge would not be exact) and against its own count.
    pub fn to_recorder(&self, config: &LatencyConfig) -> Result<LatencyRecorder, HistogramError> {
        let bytes = STANDARD
            .decode(&self.hdr)
            .map_err(|e| HistogramError::Base64(e.to_string()))?;
        let histogram: Histogram<u64> = Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .map_err(|e| HistogramError::Decode(format!("{e:?}")))?;
        let empty = LatencyRecorder::new(config)?;
        let want = empty.histogram();
        if (histogram.high(), histogram.sigfig()) != (want.high(), want.sigfig()) {
            return Err(HistogramError::Configuration {
                high: histogram.high(),
                digits: histogram.sigfig(),
                want_high: want.high(),
                want_digits: want.sigfig(),
            });
        }
        if histogram.len() != self.count {
            return Err(HistogramError::Count {
                histogram: histogram.len(),
                count: self.count,
            });
        }
        let exact = LatencyExact {
            count: self.count,
            min_ns: self.min_ns,
            max_ns: self.max_ns,
            sum_ns: self.sum_ns,
            negative: self.negative,
            over_range: self.over_range,
        };
        Ok(LatencyRecorder::from_parts(config, &histogram, exact)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorder(config: &LatencyConfig, samples: &[i64]) -> LatencyRecorder {
        let mut r = LatencyRecorder::new(config).unwrap();
        for &s in samples {
            r.record(s);
        }
        r
    }

    #[test]
    fn a_recorder_comes_back_bucket_for_bucket_with_its_exact_figures() {
        let config = LatencyConfig::default();
        let r = recorder(
            &config,
            &[-5, 1, 2_345, 2_345, 9_000, 77_777_777, 20_000_000_000],
        );
        let h = LatencyHistogram::of(&r).unwrap();
        assert_eq!(h.count, 6);
        assert_eq!((h.min_ns, h.max_ns), (Some(1), Some(20_000_000_000)));
        assert_eq!((h.negative, h.over_range), (1, 1));
        let json = serde_json::to_string(&h).unwrap();
        let back: LatencyHistogram = serde_json::from_str(&json).unwrap();
        assert_eq!(back.to_recorder(&config).unwrap(), r);
        // An empty one too (no min or max).
        let empty = recorder(&config, &[]);
        let h = LatencyHistogram::of(&empty).unwrap();
        assert_eq!((h.count, h.min_ns, h.max_ns), (0, None, None));
        assert_eq!(h.to_recorder(&config).unwrap(), empty);
    }

    #[test]
    fn merging_the_decoded_histograms_is_merging_the_recorders() {
        let config = LatencyConfig::default();
        let a = recorder(&config, &[10, 20, 30_000, 5_000_000]);
        let b = recorder(&config, &[11, 40_000, 40_001]);
        let mut direct = a.clone();
        direct.merge(&b);
        let mut travelled = LatencyHistogram::of(&a)
            .unwrap()
            .to_recorder(&config)
            .unwrap();
        travelled.merge(
            &LatencyHistogram::of(&b)
                .unwrap()
                .to_recorder(&config)
                .unwrap(),
        );
        assert_eq!(travelled, direct);
        assert_eq!(travelled.quantile_ns(0.5), direct.quantile_ns(0.5));
    }

    #[test]
    fn another_configuration_a_wrong_count_and_garbage_are_refused() {
        let config = LatencyConfig::default();
        let h = LatencyHistogram::of(&recorder(&config, &[1_000, 2_000])).unwrap();
        let finer = LatencyConfig {
            significant_digits: 4,
            ..config
        };
        assert!(matches!(
            h.to_recorder(&finer),
            Err(HistogramError::Configuration {
                digits: 3,
                want_digits: 4,
                ..
            })
        ));
        let wrong = LatencyHistogram {
            count: 3,
            ..h.clone()
        };
        assert_eq!(
            wrong.to_recorder(&config),
            Err(HistogramError::Count {
                histogram: 2,
                count: 3
            })
        );
        let garbage = LatencyHistogram {
            hdr: "not base64!".to_owned(),
            ..h.clone()
        };
        assert!(matches!(
            garbage.to_recorder(&config),
            Err(HistogramError::Base64(_))
        ));
        let not_hdr = LatencyHistogram {
            hdr: STANDARD.encode(b"0123456789abcdef"),
            ..h
        };
        assert!(matches!(
            not_hdr.to_recorder(&config),
            Err(HistogramError::Decode(_))
        ));
    }
}
