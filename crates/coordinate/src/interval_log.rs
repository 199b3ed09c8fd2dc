//! A merged step's interval log (`latency-<step>.hlog`, HdrHistogram's V2 deflate log, as one
//! box writes it): second k of the step from its common start holds every agent's second k,
//! added bucket by bucket (`cluster::merge`), so that HdrHistogram's own tools read the merged
//! latency of a run over agents as they read one box's.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use upfbench_cluster::merge::MergedStep;
use upfbench_stats::IntervalLog;

/// The interval log of `merged`, its intervals counted from `start_unix_ns` (the step's
/// common start), each second's every direction; `None` when it has no second or a second
/// cannot be written.
pub fn interval_log(merged: &MergedStep, start_unix_ns: u64, label: &str) -> Option<Vec<u8>> {
    if merged.seconds.is_empty() {
        return None;
    }
    let start = UNIX_EPOCH + Duration::from_nanos(start_unix_ns);
    let comment = format!(
        "upfbench: step {label}, merged over {} agents ({}): each interval every agent's same \
         second from the common start, added bucket by bucket",
        merged.agents.len(),
        merged.agents.join(", ")
    );
    let mut log = IntervalLog::new(start.max(SystemTime::UNIX_EPOCH), &comment);
    for s in &merged.seconds {
        let at = Duration::from_secs(u64::from(s.index));
        let duration = Duration::from_nanos(s.duration_ns);
        for d in &s.directions {
            log.add(d.direction, at, duration, &d.latency).ok()?;
        }
    }
    Some(log.to_bytes())
}
