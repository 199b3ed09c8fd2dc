//! One of the tester's ports over one step ([`PortReport`]), and the kernel interface under it
//! ([`KernelInterface`]).
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

use upfbench_stats::PortName;

/// The tester's own port over one step: what the NIC counted, so that the tester's losses are
/// never blamed on the UPF.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PortReport {
    /// Which port.
    pub name: PortName,
    /// Packets received.
    pub ipackets: u64,
    /// Packets sent.
    pub opackets: u64,
    /// Bytes received.
    pub ibytes: u64,
    /// Bytes sent.
    pub obytes: u64,
    /// Dropped by the port: no receive descriptor free (the tester did not keep up).
    pub imissed: u64,
    /// Receive errors.
    pub ierrors: u64,
    /// Receive failures for want of an mbuf.
    pub rx_nombuf: u64,
    /// Transmit errors.
    pub oerrors: u64,
    /// The kernel interface under the port over the same step, for PMDs that ride on one
    /// (af_packet, af_xdp): what the PMD's counters cannot see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interface: Option<KernelInterface>,
}

impl PortReport {
    /// A port that counted nothing.
    pub fn zero(name: PortName) -> PortReport {
        PortReport {
            name,
            ipackets: 0,
            opackets: 0,
            ibytes: 0,
            obytes: 0,
            imissed: 0,
            ierrors: 0,
            rx_nombuf: 0,
            oerrors: 0,
            interface: None,
        }
    }

    /// Packets the tester itself lost on this port.
    pub fn own_drops(&self) -> u64 {
        self.imissed + self.ierrors + self.rx_nombuf + self.oerrors
    }
}

/// What the kernel interface under a port counted over a step, beside the PMD's counts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
