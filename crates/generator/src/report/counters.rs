//! What the workers and the ports counted besides the measurement, as the report's lines and
//! tables.

use std::collections::BTreeMap;

use upfbench_dpdk::PortStats;
use upfbench_report::{PortFrames, PortReport, RejectKind, Rejected};

use crate::datapath::classify::Reject;
use crate::datapath::worker::WorkerCounters;
use upfbench_datapath::queues::Side;
use upfbench_datapath::service::Seen;

/// What the workers counted besides the measurement, as report lines.
pub fn counter_notes(c: &WorkerCounters) -> Vec<String> {
    let mut notes = Vec::new();
    if c.no_container > 0 {
        notes.push(format!(
            "N3: {} downlink G-PDUs came without a PDU Session Container (measured)",
            c.no_container
        ));
    }
    if c.tx_pool_empty > 0 {
        notes.push(format!(
            "TX: a template pool ran dry {} times (the NIC held every mbuf): packets were late",
            c.tx_pool_empty
        ));
    }
    if c.tx_rewound > 0 {
        notes.push(format!(
            "TX: {} packets were never taken by the NIC and are not counted as sent",
            c.tx_rewound
        ));
    }
    notes
}

/// Received frames that were not measured, by port and kind: what the classifier rejected, and
/// what the service plane got that is news from the UPF (Error Indications, End Markers, other
/// GTP-U signalling, ICMP other than echo requests to us, what it could not read); ARP and the
/// echo requests it answered are not.
pub fn rejected(c: &WorkerCounters) -> BTreeMap<Rejected, u64> {
    let mut out = BTreeMap::new();
    for (side, rejects) in Side::BOTH.into_iter().zip(&c.rejects) {
        for (&kind, &n) in REJECTS.iter().zip(rejects) {
            if n > 0 {
                out.insert(Rejected::new(side, kind), n);
            }
        }
    }
    for (side, seen) in Side::BOTH.into_iter().zip(&c.service_seen) {
        for (found, kind) in FINDINGS {
            let n = seen[found as usize];
            if n > 0 {
                out.insert(Rejected::new(side, kind), n);
            }
        }
    }
    out
}

/// The report's kind of each [`Reject`], by discriminant.
const REJECTS: [RejectKind; Reject::COUNT] = [
    RejectKind::NotIpv4,
    RejectKind::Malformed,
    RejectKind::NotGtpu,
    RejectKind::InnerNotIpv4Udp,
    RejectKind::Untagged,
    RejectKind::UnknownStream,
    RejectKind::WrongPort,
    RejectKind::WrongUdpPorts,
    RejectKind::UnknownUe,
    RejectKind::WrongTeid,
    RejectKind::WrongQfi,
    RejectKind::WrongFamily,
];

/// What the service plane got that is news from the UPF, and its kind in the report.
const FINDINGS: [(Seen, RejectKind); 6] = [
    (Seen::IcmpOther, RejectKind::IcmpOther),
    (Seen::GtpuEchoResponse, RejectKind::GtpuEchoResponse),
    (Seen::GtpuErrorIndication, RejectKind::GtpuErrorIndication),
    (Seen::GtpuEndMarker, RejectKind::GtpuEndMarker),
    (Seen::GtpuOther, RejectKind::GtpuOther),
    (Seen::Ignored, RejectKind::Ignored),
];

/// What the workers sent and received on `side`'s port, by kind.
pub fn port_frames(side: Side, c: &WorkerCounters) -> PortFrames {
    let i = side.index();
    PortFrames {
        name: side,
        tx_measured: c.tx_measured[i],
        tx_warmup: c.tx_warmup[i],
        tx_service: c.tx_service[i],
        rx_measured: c.rx_measured[i],
        rx_unmeasured: c.unmeasured[i],
        rx_service: c.rx_service[i],
        rx_rejected: c.rejects[i].iter().sum(),
        tx_probes: c.tx_probes[i],
        rx_probes: c.rx_probes[i],
    }
}

/// What the workers sent and received on both ports, as one device counts them in one-port
/// mode (named N3, the device's port).
pub(super) fn both_ports_frames(c: &WorkerCounters) -> PortFrames {
    let [mut a, b] = Side::BOTH.map(|side| port_frames(side, c));
    a.add(&b);
    a.name = Side::N3;
    a
}

/// What the port counted between `before` and `after`.
pub fn port_report(name: Side, before: &PortStats, after: &PortStats) -> PortReport {
    PortReport {
        name,
        ipackets: after.ipackets.saturating_sub(before.ipackets),
        opackets: after.opackets.saturating_sub(before.opackets),
        ibytes: after.ibytes.saturating_sub(before.ibytes),
        obytes: after.obytes.saturating_sub(before.obytes),
        imissed: after.imissed.saturating_sub(before.imissed),
        ierrors: after.ierrors.saturating_sub(before.ierrors),
        rx_nombuf: after.rx_nombuf.saturating_sub(before.rx_nombuf),
        oerrors: after.oerrors.saturating_sub(before.oerrors),
        interface: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reports_kinds_keep_the_counters_names() {
        for (k, kind) in REJECTS.iter().enumerate() {
            assert_eq!(kind.name(), Reject::NAMES[k]);
        }
        for (seen, kind) in FINDINGS {
            assert_eq!(kind.name(), Seen::NAMES[seen as usize]);
        }
    }
}
