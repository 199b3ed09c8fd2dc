//! Every frame on one of the tester's ports over one step, by kind: what the workers counted,
//! beside what the port counted ([`PortReport`]). The two must agree; where they do, a
//! comparison with counters outside the tester (a veth's, a UPF's) can subtract the frames that
//! are not measured traffic exactly instead of guessing them.

use serde::{Deserialize, Serialize};

use upfbench_stats::PortName;

use super::port::PortReport;

/// What the workers sent and received on one port over one step, by kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
pub struct PortFrames {
    /// Which port.
    pub name: PortName,
    /// Measured packets the port took for sending (the report's sent packets of the direction
    /// that leaves here: uplink on N3, downlink on N6).
    pub tx_measured: u64,
    /// Packets of the streams sent outside the measured phase: the warm-up.
    pub tx_warmup: u64,
    /// Frames of the service plane: ARP requests and replies, ICMP echo replies, GTP-U echo
    /// responses, Error Indications.
    pub tx_service: u64,
    /// Measured packets received (duplicates and late ones included).
    pub rx_measured: u64,
    /// Packets of the run's flows not measured: received outside the measured phases, or sent
    /// before the measured phase began (the warm-up's, or an earlier step's, however late).
    pub rx_unmeasured: u64,
    /// Frames handed to the service plane (ARP, ICMP, GTP-U signalling, ...).
    pub rx_service: u64,
    /// Frames counted and dropped as not ours (the report's `rx_rejected`).
    pub rx_rejected: u64,
    /// Probes of churn sessions sent (downlink, on N6).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub tx_probes: u64,
    /// Probes of churn sessions received.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub rx_probes: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// The churn probes among the kinds, when there were some.
fn probes(n: u64) -> String {
    if n == 0 {
        String::new()
    } else {
        format!(", {n} churn probes")
    }
}

impl PortFrames {
    /// A port that saw no frame.
    pub fn zero(name: PortName) -> PortFrames {
        PortFrames {
            name,
            tx_measured: 0,
            tx_warmup: 0,
            tx_service: 0,
            rx_measured: 0,
            rx_unmeasured: 0,
            rx_service: 0,
            rx_rejected: 0,
            tx_probes: 0,
            rx_probes: 0,
        }
    }

    /// Adds `o`'s counts to these (the name stays): one device's two sides in one-port mode,
    /// or one port's counts over several agents.
    pub fn add(&mut self, o: &PortFrames) {
        self.tx_measured += o.tx_measured;
        self.tx_warmup += o.tx_warmup;
        self.tx_service += o.tx_service;
        self.rx_measured += o.rx_measured;
        self.rx_unmeasured += o.rx_unmeasured;
        self.rx_service += o.rx_service;
        self.rx_rejected += o.rx_rejected;
        self.tx_probes += o.tx_probes;
        self.rx_probes += o.rx_probes;
    }

    /// Frames handed to the port for sending.
    pub(crate) fn tx_total(&self) -> u64 {
        self.tx_measured + self.tx_warmup + self.tx_service + self.tx_probes
    }

    /// Frames received from the port.
    pub(crate) fn rx_total(&self) -> u64 {
        self.rx_measured + self.rx_unmeasured + self.rx_service + self.rx_rejected + self.rx_probes
    }

    /// A sentence naming what does not add up when the kinds' sums differ from the port's own
    /// counters (sent: `opackets + oerrors`, since a PMD may take a frame and fail it;
    /// received: `ipackets`); `None` when both agree.
    pub fn mismatch(&self, port: &PortReport) -> Option<String> {
        let port_tx = port.opackets + port.oerrors;
        let mut parts = Vec::new();
        if self.tx_total() != port_tx {
            parts.push(format!(
                "the workers handed it {} frames to send ({} measured, {} warm-up, {} service{}), \
                 the port counted {port_tx} (opackets {} + oerrors {})",
                self.tx_total(),
                self.tx_measured,
                self.tx_warmup,
                self.tx_service,
                probes(self.tx_probes),
                port.opackets,
                port.oerrors
            ));
        }
        if self.rx_total() != port.ipackets {
            parts.push(format!(
                "the workers counted {} frames received ({} measured, {} unmeasured, {} service, \
                 {} rejected{}), the port {}",
                self.rx_total(),
                self.rx_measured,
                self.rx_unmeasured,
                self.rx_service,
                self.rx_rejected,
                probes(self.rx_probes),
                port.ipackets
            ));
        }
        (!parts.is_empty()).then(|| format!("{}: {}", self.name, parts.join("; ")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn port(ipackets: u64, opackets: u64, oerrors: u64) -> PortReport {
        PortReport {
            ipackets,
            opackets,
            oerrors,
            ..PortReport::zero(PortName::N3)
        }
    }

    fn frames() -> PortFrames {
        PortFrames {
            tx_measured: 100_000,
            tx_warmup: 19_943,
            tx_service: 1,
            rx_measured: 99_990,
            rx_unmeasured: 19_944,
            rx_service: 2,
            rx_rejected: 3,
            ..PortFrames::zero(PortName::N3)
        }
    }

    #[test]
    fn kinds_that_add_up_to_the_port_counters_are_no_mismatch() {
        let f = frames();
        assert_eq!(f.tx_total(), 119_944);
        assert_eq!(f.rx_total(), 119_939);
        assert_eq!(f.mismatch(&port(119_939, 119_944, 0)), None);
        // A frame the PMD took and failed was handed to it all the same.
        assert_eq!(f.mismatch(&port(119_939, 119_943, 1)), None);
    }

    #[test]
    fn a_difference_names_the_side_every_kind_and_the_port_counts() {
        let f = frames();
        let tx = f.mismatch(&port(119_939, 119_945, 0)).expect("tx differs");
        assert_eq!(
            tx,
            "N3: the workers handed it 119944 frames to send (100000 measured, 19943 warm-up, \
             1 service), the port counted 119945 (opackets 119945 + oerrors 0)"
        );
        let rx = f.mismatch(&port(119_940, 119_944, 0)).expect("rx differs");
        assert_eq!(
            rx,
            "N3: the workers counted 119939 frames received (99990 measured, 19944 unmeasured, \
             2 service, 3 rejected), the port 119940"
        );
        // A churn's probes are among the frames, and named.
        let with_probes = PortFrames {
            tx_probes: 5,
            rx_probes: 4,
            ..frames()
        };
        assert_eq!(with_probes.mismatch(&port(119_943, 119_949, 0)), None);
        let rx = with_probes
            .mismatch(&port(119_939, 119_949, 0))
            .expect("rx differs");
        assert!(
            rx.contains("3 rejected, 4 churn probes), the port 119939"),
            "{rx}"
        );
        let both = f.mismatch(&port(0, 0, 0)).expect("both differ");
        assert!(
            both.contains("send") && both.contains("; the workers counted"),
            "{both}"
        );
    }
}
