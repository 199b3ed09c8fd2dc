//! The TX schedule's slips in a step's report: per stream and per direction, and a warning when
//! they cost more than the pacing target allows.
//!
//! A share's slip is how much later its last packet was due than planned. The shares of a
//! stream (one per worker) and the streams of a direction send side by side, so their slips
//! are merged as the longest, and their counts added.

use upfbench_report::{StepReport, TxSlip};
use upfbench_stats::Direction;

use crate::datapath::worker::ShareSlip;
use upfbench_run::plan::StreamPlan;

/// Slipped time, as a fraction of the sending time, beyond which the achieved rate misses the
/// requested one by more than the pacing target (0.5 %).
const WARN_FRACTION: f64 = 0.005;

/// The slips merged per stream (indexed like `streams`) and per direction.
pub fn merge_slips(
    streams: &[StreamPlan],
    slips: &[ShareSlip],
) -> (Vec<Option<TxSlip>>, [Option<TxSlip>; 2]) {
    let mut per_stream = vec![None; streams.len()];
    let mut per_direction = [None; 2];
    for s in slips {
        let Some(stream) = streams.get(usize::from(s.stream)) else {
            continue;
        };
        let one = TxSlip {
            count: s.count,
            slipped_us: s.slipped_ns as f64 / 1e3,
            max_late_us: s.max_late_ns as f64 / 1e3,
        };
        let i = usize::from(s.stream);
        per_stream[i] = Some(TxSlip::merge(per_stream[i], one));
        let d = stream.direction.index();
        per_direction[d] = Some(TxSlip::merge(per_direction[d], one));
    }
    (per_stream, per_direction)
}

/// The warning for `direction`'s `slip` over a sending time of `duration_s`, when the slip
/// lowers the rate by more than the pacing target.
pub fn slip_warning(direction: Direction, slip: TxSlip, duration_s: f64) -> Option<String> {
    let fraction = slip.slipped_us / 1e6 / duration_s;
    (fraction > WARN_FRACTION).then(|| {
        format!(
            "{} TX {slip} ({:.2}% of the {duration_s:.3} s it sent): it could not keep to the \
             requested rate (a stalled or shared core, a full queue, or more than the workers \
             can send); its rate is what it achieved over the actual sending time",
            direction.name(),
            100.0 * fraction
        )
    })
}

/// Puts the slips of a step's shares into its report (`report.streams` in the order of
/// `streams`), with a warning per direction that missed the rate because of them.
pub fn add_slips(report: &mut StepReport, streams: &[StreamPlan], slips: &[ShareSlip]) {
    let (per_stream, per_direction) = merge_slips(streams, slips);
    for (summary, slip) in report.streams.iter_mut().zip(per_stream) {
        summary.tx_slip = slip;
    }
    for d in &mut report.directions {
        d.tx_slip = per_direction[d.direction.index()];
        if let Some(w) = d
            .tx_slip
            .and_then(|s| slip_warning(d.direction, s, report.duration_s))
        {
            report.warnings.push(w);
        }
    }
}

#[cfg(test)]
mod tests {
    use upfbench_stats::Direction;

    use super::*;
    use upfbench_run::plan::{Schedule, Spread};

    fn stream(id: u16, direction: Direction) -> StreamPlan {
        StreamPlan {
            id,
            name: format!("s{id}"),
            direction,
            payload_len: 10,
            pdu_session_container: false,
            source_port: 1,
            destination_port: 2,
            ues: 0..2,
            flow_base: 0,
            rate_pps: 1000.0,
            schedule: Schedule::Continuous { packets: 10 },
            spread: Spread::RoundRobin,
            shape: Default::default(),
            qfi: None,
            qer: None,
        }
    }

    fn slip(stream: u16, count: u64, slipped_ns: u64) -> ShareSlip {
        ShareSlip {
            stream,
            count,
            slipped_ns,
            max_late_ns: 2 * slipped_ns,
        }
    }

    #[test]
    fn side_by_side_slips_add_their_counts_and_keep_the_longest() {
        let streams = [
            stream(0, Direction::Uplink),
            stream(1, Direction::Uplink),
            stream(2, Direction::Downlink),
        ];
        // Stream 0 on two workers, stream 1 on one; the downlink never slipped.
        let slips = [slip(0, 2, 5_000), slip(1, 1, 9_000), slip(0, 3, 7_000)];
        let (per_stream, per_direction) = merge_slips(&streams, &slips);
        let t = |count, slipped_us: f64| {
            Some(TxSlip {
                count,
                slipped_us,
                max_late_us: 2.0 * slipped_us,
            })
        };
        assert_eq!(per_stream, [t(5, 7.0), t(1, 9.0), None]);
        assert_eq!(per_direction, [t(6, 9.0), None]);
        // A slip of a stream the plan does not have is left out.
        assert_eq!(merge_slips(&streams, &[slip(7, 1, 1)]).1, [None, None]);
    }

    #[test]
    fn a_slip_warns_when_it_costs_more_than_half_a_percent() {
        let s = |us| TxSlip {
            count: 3,
            slipped_us: us,
            max_late_us: 30_000.0,
        };
        // 5 s sent: 25 ms is the limit.
        assert_eq!(slip_warning(Direction::Uplink, s(25_000.0), 5.0), None);
        let w = slip_warning(Direction::Downlink, s(25_001.0), 5.0).expect("a warning");
        assert!(
            w.starts_with(
                "downlink TX fell behind its schedule 3 times (at most 30000.0 us late), 25001.0 us late at the end (0.50% of the 5.000 s it sent)"
            ),
            "{w}"
        );
    }
}
