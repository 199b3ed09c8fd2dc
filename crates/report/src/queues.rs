//! How a port's receive was spread over its queues (one per worker): what shows a user that a
//! NIC put a UPF's whole downlink on one queue.

use serde::{Deserialize, Serialize};

use upfbench_stats::PortName;

/// Above this share of a port's frames on one queue, with two queues or more, the report
/// warns: the other workers measured next to nothing.
pub const LOPSIDED_SHARE: f64 = 0.9;

/// Fewer frames than this on a port say nothing about how its queues share them.
const LOPSIDED_MIN_FRAMES: u64 = 1000;

/// One port's receive queues over a step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RxQueues {
    /// Which port.
    pub port: PortName,
    /// How the port spreads what it receives over its queues (RSS on the outer header, a
    /// TEID rule, its peer's queue pairs, ...).
    pub spread: String,
    /// Frames the worker polling each queue received (queue `i` is worker `i`'s).
    pub frames: Vec<u64>,
    /// Packets the port itself counted per queue; empty when its driver does not count them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub packets: Vec<u64>,
}

impl RxQueues {
    /// The queue with the most frames and its share of them all; `None` without frames.
    pub(crate) fn busiest(&self) -> Option<(usize, f64)> {
        let total: u64 = self.frames.iter().sum();
        let (i, &most) = self
            .frames
            .iter()
            .enumerate()
            .max_by_key(|&(i, &n)| (n, std::cmp::Reverse(i)))?;
        (total > 0).then(|| (i, most as f64 / total as f64))
    }

    /// A warning when one of two or more queues took more than [`LOPSIDED_SHARE`] of at least
    /// a thousand frames.
    pub fn lopsided(&self) -> Option<String> {
        let total: u64 = self.frames.iter().sum();
        let (queue, share) = self.busiest()?;
        (self.frames.len() >= 2 && total >= LOPSIDED_MIN_FRAMES && share > LOPSIDED_SHARE).then(
            || {
                format!(
                    "{}: queue {queue} of {} received {:.1} % of the port's {total} frames ({}): \
                     the other workers received next to nothing (see the receive-queue table)",
                    self.port,
                    self.frames.len(),
                    share * 100.0,
                    self.spread
                )
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn queues(frames: &[u64]) -> RxQueues {
        RxQueues {
            port: PortName::N3,
            spread: "RSS on the outer IP/UDP header".into(),
            frames: frames.to_vec(),
            packets: Vec::new(),
        }
    }

    #[test]
    fn the_busiest_queue_and_its_share() {
        assert_eq!(queues(&[]).busiest(), None);
        assert_eq!(queues(&[0, 0]).busiest(), None);
        assert_eq!(queues(&[10, 30]).busiest(), Some((1, 0.75)));
        // A tie goes to the first queue.
        assert_eq!(queues(&[5, 5]).busiest(), Some((0, 0.5)));
    }

    #[test]
    fn one_queue_of_several_with_nearly_everything_is_lopsided() {
        let w = queues(&[99_990, 10]).lopsided().expect("lopsided");
        assert_eq!(
            w,
            "N3: queue 0 of 2 received 100.0 % of the port's 100000 frames (RSS on the outer \
             IP/UDP header): the other workers received next to nothing (see the receive-queue \
             table)"
        );
        // Even, one queue, or too few frames to tell: nothing to say.
        assert_eq!(queues(&[50_000, 50_000]).lopsided(), None);
        assert_eq!(queues(&[100_000]).lopsided(), None);
        assert_eq!(queues(&[999, 0]).lopsided(), None);
        // Just above and at the threshold.
        assert!(queues(&[9_001, 999]).lopsided().is_some());
        assert_eq!(queues(&[9_000, 1_000]).lopsided(), None);
    }
}
