//! The kernel interface under one of the tester's ports, over one step.
//!
//! `net_af_packet` and `net_af_xdp` ride on a kernel interface. The PMD counts a frame sent once
//! the kernel's ring took it; the kernel may still refuse it after that (a qdisc shaper on the
//! tester's own veth with `qdisc_bypass=0`), and the port's counters then say "sent, no error"
//! for a frame that never reached the UPF. The other way, the interface may receive a frame
//! that the PMD's ring has no room for. Either is the tester's loss; without the interface's
//! own counters it reads as the UPF's. The kernel also sends and receives frames of its own on
//! the interface (IPv6 neighbour discovery, ...), so its counts may exceed the PMD's: only a
//! shortfall is a loss.

use serde::{Deserialize, Serialize};

use super::model::{PortReport, StepReport};
use upfbench_stats::PortName;
use upfbench_stats::direction::Direction;

/// What the kernel interface under a port counted over a step, beside the PMD's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelInterface {
    /// The interface's name in the tester's network namespace ("n3").
    pub name: String,
    /// Frames the interface received (the kernel's own included).
    pub rx_packets: u64,
    /// Frames the interface sent (the kernel's own included).
    pub tx_packets: u64,
    /// The tester's loss on sending: frames the PMD counted sent that the interface did not
    /// send (`opackets - tx_packets` when positive).
    pub tx_lost: u64,
    /// The tester's loss on receiving: frames the interface received that the PMD did not
    /// deliver (`rx_packets - ipackets` when positive).
    pub rx_lost: u64,
}

impl KernelInterface {
    /// The counts of interface `name` over a step (`rx_packets`, `tx_packets`), beside the
    /// port's own over the same step (`port`'s `ipackets` and `opackets`).
    pub fn beside(
        name: impl Into<String>,
        rx_packets: u64,
        tx_packets: u64,
        port: &PortReport,
    ) -> KernelInterface {
        KernelInterface {
            name: name.into(),
            rx_packets,
            tx_packets,
            tx_lost: port.opackets.saturating_sub(tx_packets),
            rx_lost: rx_packets.saturating_sub(port.ipackets),
        }
    }

    /// The report's warning for port `port` (named, e.g. "N3"), when the tester lost frames on
    /// this interface; `None` when it lost none.
    pub fn warning(&self, port: &PortReport) -> Option<String> {
        let mut parts = Vec::new();
        if self.tx_lost > 0 {
            parts.push(format!(
                "{} frames the PMD sent never left interface {} (PMD {}, {} {}: a qdisc or \
                 shaper on it? af_packet goes through the qdisc only with qdisc_bypass=0)",
                self.tx_lost, self.name, port.opackets, self.name, self.tx_packets
            ));
        }
        if self.rx_lost > 0 {
            parts.push(format!(
                "{} frames interface {} received never reached the PMD ({} {}, PMD {}: its \
                 ring was full?)",
                self.rx_lost, self.name, self.name, self.rx_packets, port.ipackets
            ));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "{}: the tester's own loss, not the UPF's: {}",
                port.name,
                parts.join("; ")
            )
        })
    }
}

impl StepReport {
    /// Frames the tester's kernel interfaces lost on `direction`'s ports over the step: sending
    /// on the port it leaves by, receiving on the port it comes back on (uplink: N3's TX and
    /// N6's RX). Warm-up and service frames on those ports are included, so it can exceed the
    /// measured loss. `None` when neither port has a kernel interface.
    pub fn tester_lost(&self, direction: Direction) -> Option<u64> {
        let port = |name: PortName| {
            self.ports
                .iter()
                .find(|p| p.name == name)
                .and_then(|p| p.interface.as_ref())
        };
        let tx = port(direction.sent_on()).map(|i| i.tx_lost);
        let rx = port(direction.received_on()).map(|i| i.rx_lost);
        match (tx, rx) {
            (None, None) => None,
            (a, b) => Some(a.unwrap_or(0) + b.unwrap_or(0)),
        }
    }

    /// Sets each direction's [`tester_lost`](super::DirectionReport::tester_lost) from the
    /// step's ports.
    pub fn attribute_tester_losses(&mut self) {
        let lost: Vec<Option<u64>> = self
            .directions
            .iter()
            .map(|d| self.tester_lost(d.direction))
            .collect();
        for (d, l) in self.directions.iter_mut().zip(lost) {
            d.tester_lost = l;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DirectionReport, LossReport, ThroughputReport};

    fn step(directions: &[Direction]) -> StepReport {
        let none = ThroughputReport {
            packets: 0,
            bytes_l2: 0,
            bytes_l1: 0,
            gbps_l2: 0.0,
            gbps_l1: 0.0,
            kpps: 0.0,
        };
        StepReport {
            label: "run".into(),
            payload_bytes: None,
            duration_s: 1.0,
            tsc_hz: None,
            directions: directions
                .iter()
                .map(|&direction| DirectionReport {
                    direction,
                    streams: 1,
                    tx: none.clone(),
                    rx: none.clone(),
                    loss: LossReport {
                        sent: 0,
                        unique: 0,
                        lost: 0,
                        loss_pct: 0.0,
                        duplicates: 0,
                        reordered: 0,
                        late: 0,
                    },
                    latency: None,
                    tx_slip: None,
                    tester_lost: None,
                })
                .collect(),
            rx_untagged: 0,
            rx_unknown_stream: 0,
            warnings: Vec::new(),
            ports: Vec::new(),
            rx_rejected: Default::default(),
            streams: Vec::new(),
            frames: Vec::new(),
            seconds: Vec::new(),
            rx_queues: Vec::new(),
            upf_faults: Vec::new(),
            handover: None,
            churn: None,
        }
    }

    fn port(name: PortName, ipackets: u64, opackets: u64) -> PortReport {
        PortReport {
            ipackets,
            opackets,
            ..PortReport::zero(name)
        }
    }

    #[test]
    fn only_a_shortfall_of_the_interface_is_a_loss() {
        let p = port(PortName::N3, 100_000, 100_000);
        // The run: 100,000 sent by the PMD, 99,684 left the interface.
        let i = KernelInterface::beside("n3", 100_000, 99_684, &p);
        assert_eq!((i.tx_lost, i.rx_lost), (316, 0));
        // Kernel frames of its own sent (IPv6 ND): the interface sends more, nothing lost;
        // frames it received that the PMD did not get are the tester's.
        let i = KernelInterface::beside("n3", 100_003, 100_002, &p);
        assert_eq!((i.tx_lost, i.rx_lost), (0, 3));
        let i = KernelInterface::beside("n3", 99_000, 100_002, &p);
        assert_eq!((i.tx_lost, i.rx_lost), (0, 0));
    }

    #[test]
    fn the_warning_names_the_port_the_interface_and_both_counts() {
        let p = port(PortName::N3, 100_000, 100_000);
        assert_eq!(
            KernelInterface::beside("n3", 100_000, 99_684, &p).warning(&p),
            Some(
                "N3: the tester's own loss, not the UPF's: 316 frames the PMD sent never left \
                 interface n3 (PMD 100000, n3 99684: a qdisc or shaper on it? af_packet goes \
                 through the qdisc only with qdisc_bypass=0)"
                    .to_owned()
            )
        );
        let both = KernelInterface::beside("n3", 100_012, 99_999, &p)
            .warning(&p)
            .expect("lost both ways");
        assert!(
            both.ends_with(
                "1 frames the PMD sent never left interface n3 (PMD 100000, n3 99999: a qdisc \
                 or shaper on it? af_packet goes through the qdisc only with qdisc_bypass=0); \
                 12 frames interface n3 received never reached the PMD (n3 100012, PMD 100000: \
                 its ring was full?)"
            ),
            "{both}"
        );
        assert_eq!(
            KernelInterface::beside("n3", 100_000, 100_000, &p).warning(&p),
            None
        );
    }

    #[test]
    fn a_directions_tester_loss_is_its_sending_ports_tx_and_receiving_ports_rx() {
        let mut step = step(&Direction::ALL);
        assert_eq!(step.tester_lost(Direction::Uplink), None);
        step.attribute_tester_losses();
        assert_eq!(
            step.directions[0].tester_lost, None,
            "no interface: unknown"
        );
        let mut n3 = port(PortName::N3, 50_000, 100_000);
        n3.interface = Some(KernelInterface::beside("n3", 50_007, 99_684, &n3));
        let mut n6 = port(PortName::N6, 99_000, 50_000);
        n6.interface = Some(KernelInterface::beside("n6", 99_020, 50_000, &n6));
        step.ports = vec![n3, n6];
        // Uplink leaves by N3 (316 never sent) and comes back on N6 (20 never delivered).
        assert_eq!(step.tester_lost(Direction::Uplink), Some(316 + 20));
        // Downlink leaves by N6 (all sent) and comes back on N3 (7 never delivered).
        assert_eq!(step.tester_lost(Direction::Downlink), Some(7));
        step.attribute_tester_losses();
        let lost: Vec<_> = step.directions.iter().map(|d| d.tester_lost).collect();
        assert_eq!(lost, [Some(336), Some(7)]);
        // One port without an interface (memif on N6): the other's part still counts.
        step.ports[1].interface = None;
        assert_eq!(step.tester_lost(Direction::Uplink), Some(316));
    }
}
