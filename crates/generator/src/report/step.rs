//! A step's section of the report, from what its workers measured and its ports counted.

use std::time::Duration;

use anyhow::Result;
use upfbench_dpdk::PortStats;
use upfbench_dpdk::QUEUE_STATS;
use upfbench_net::IpFamily;
use upfbench_report::{Family, FrameSize, RxQueues, StepReport, StreamSummary};
use upfbench_stats::{RunResult, RxCoreResult, StreamSpec, TxCoreResult};

use super::counters::{both_ports_frames, counter_notes, port_frames, port_report, rejected};
use super::qos::qos_report;
use super::step_label;
use super::tx_slip::add_slips;
use crate::datapath::clock::Clock;
use crate::datapath::worker::WorkerCounters;
use upfbench_datapath::calibration::ppm;
use upfbench_datapath::queues::Side;
use upfbench_run::plan::Plan;

/// How far the TSC's frequency may move between a step's start and end before the report
/// says so: far above what the calibration itself can tell apart.
const TSC_DRIFT_PPM: f64 = 10.0;

/// What a step's workers and ports measured.
#[derive(Debug)]
pub struct StepMeasurements<'a> {
    /// The step's plan.
    pub plan: &'a Plan,
    /// The flows, as the statistics were made for them.
    pub specs: &'a [StreamSpec],
    /// Each worker's transmit figures.
    pub tx: &'a [TxCoreResult],
    /// Each worker's receive figures.
    pub rx: &'a [RxCoreResult],
    /// The workers' other counters, added up.
    pub counters: &'a WorkerCounters,
    /// The clock the step ran on: the TSC frequency measured when it started.
    pub(crate) start_clock: Clock,
    /// The frequency measured at the step's end, which its duration (and so its rates) are
    /// converted with.
    pub end_clock: Clock,
    /// The N3 and N6 ports' counters at the step's start and end.
    pub ports: [(PortStats, PortStats); 2],
    /// The frames each worker received on N3 and N6 (its queue of each).
    pub(crate) rx_by_worker: &'a [[u64; 2]],
    /// How each port spreads its frames over the queues.
    pub rx_spread: [&'a str; 2],
    /// N3 and N6 on one device (one-port mode): both `ports` are its counters, of both ports'
    /// frames.
    pub one_port: bool,
}

/// The step's report: traffic per direction and stream, the sending time, the ports, and the
/// warnings of what the tester itself did wrong.
pub fn step_report(m: &StepMeasurements<'_>) -> Result<StepReport> {
    let plan = m.plan;
    let counters = m.counters;
    let merged = RunResult::merge(m.specs, m.tx, m.rx, &plan.latency)?;
    // The sending time: from when the first packet was due to the last burst, stretched by one
    // packet's share of it (n packets span n - 1 gaps).
    let sent: u64 = merged.directions.iter().map(|d| d.tx.packets).sum();
    let duration = match counters.tx_span {
        Some((first, last)) if last > first && sent > 1 => {
            let span = m.end_clock.ticks_to_ns(last - first) as f64;
            Duration::from_nanos((span * sent as f64 / (sent - 1) as f64) as u64)
        }
        _ => plan.expected,
    };
    let mut report = StepReport::from_run(
        step_label(plan),
        plan.payload.map(u32::from),
        duration.as_nanos() as u64,
        &merged,
    );
    report.tsc_hz = Some(m.start_clock.hz() as f64);
    let drift = ppm(m.end_clock.hz() as f64, m.start_clock.hz() as f64);
    if drift.abs() > TSC_DRIFT_PPM {
        report.warnings.push(format!(
            "the TSC's frequency measured at the step's end is {drift:+.1} ppm from the one at \
             its start ({} Hz): this host's TSC does not keep a steady rate, and the step's \
             latencies are off by as much",
            m.start_clock.hz()
        ));
    }
    report.warnings.extend(counter_notes(counters));
    report.rx_rejected = rejected(counters);
    report.streams = stream_summaries(plan, &merged);
    add_slips(&mut report, &plan.streams, &counters.tx_slips);
    if let Some(q) = &counters.qos {
        let slips: Vec<_> = report.streams.iter().map(|s| s.tx_slip).collect();
        let (qos, warnings) = qos_report(plan, q, &merged, &slips, duration);
        report.qos = Some(qos);
        report.warnings.extend(warnings);
    }
    for (side, (before, after)) in Side::BOTH.iter().zip(&m.ports) {
        let name = *side;
        let port = port_report(name, before, after);
        if port.own_drops() > 0 {
            report.warnings.push(format!(
                "{name}: the tester's own port dropped packets: imissed {}, ierrors {}, rx_nombuf {}, oerrors {}",
                port.imissed, port.ierrors, port.rx_nombuf, port.oerrors
            ));
        }
        let frames = port_frames(*side, counters);
        // One device counts both ports' frames: checked once, against both.
        let check = match (m.one_port, side) {
            (false, _) => Some(frames.clone()),
            (true, Side::N3) => Some(both_ports_frames(counters)),
            (true, Side::N6) => None,
        };
        if let Some(m) = check.and_then(|f| f.mismatch(&port)) {
            report.warnings.push(format!(
                "frames by kind do not add up to the port's counters: {m}"
            ));
        }
        if m.rx_by_worker.len() >= 2 {
            let queues = rx_queues(*side, m, before, after);
            report.warnings.extend(queues.lopsided());
            report.rx_queues.push(queues);
        }
        report.ports.push(port);
        report.frames.push(frames);
    }
    Ok(report)
}

/// Each stream's figures, with its family and the size of its frames.
fn stream_summaries(plan: &Plan, merged: &RunResult) -> Vec<StreamSummary> {
    plan.streams
        .iter()
        .map(|st| {
            let flows = st.flow_base as usize..(st.flow_base + st.ue_count()) as usize;
            let mut s = StreamSummary::from_flows(
                st.name.clone(),
                st.direction,
                u32::from(st.payload_len),
                merged.streams.get(flows).unwrap_or_default(),
            );
            s.family = match st.family() {
                IpFamily::Ipv4 => Family::Ipv4,
                IpFamily::Ipv6 => Family::Ipv6,
            };
            s.frame = Some(FrameSize::of_built(u32::from(st.tx_frame_len())));
            s
        })
        .collect()
}

/// How `side`'s port received over its queues: each worker's frames, and the port's own
/// per-queue counts where its driver keeps them (none counted while packets came: it does not).
fn rx_queues(
    side: Side,
    m: &StepMeasurements<'_>,
    before: &PortStats,
    after: &PortStats,
) -> RxQueues {
    let i = side.index();
    let frames: Vec<u64> = m.rx_by_worker.iter().map(|w| w[i]).collect();
    let counted = frames.len().min(QUEUE_STATS);
    let packets: Vec<u64> = (0..counted)
        .map(|q| after.rx_queues[q].saturating_sub(before.rx_queues[q]))
        .collect();
    let driver_counts =
        packets.iter().any(|&n| n > 0) || after.ipackets.saturating_sub(before.ipackets) == 0;
    RxQueues {
        port: side,
        spread: m.rx_spread[i].to_owned(),
        frames,
        packets: if driver_counts { packets } else { Vec::new() },
    }
}
