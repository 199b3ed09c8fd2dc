//! The kernel interfaces under the run's ports, read at each step's edges beside the PMD's
//! counters, so that frames the kernel refused after the PMD counted them sent (or received
//! and never handed to the PMD) are reported as the tester's loss, not the UPF's. Only ports
//! whose PMD rides on an interface of this network namespace have one (af_packet, af_xdp).

use upfbench_report::KernelInterface;
use upfbench_report::StepReport;

use upfbench_config::System;
use upfbench_datapath::net_dev::{NetDevCounters, counters, kernel_interface};

/// The file of this process's network namespace, the one its PMDs opened their sockets in.
const NET_DEV: &str = "/proc/self/net/dev";

/// The kernel interface of each port (N3, N6), where it has one.
#[derive(Debug, Clone, Default)]
pub(crate) struct KernelCounters {
    names: [Option<String>; 2],
}

/// One reading at a step's edge: per port, its interface's counters or why they could not be
/// read; nothing for a port without one.
#[derive(Debug, Clone, Default)]
pub(crate) struct KernelReading([Option<Result<NetDevCounters, String>>; 2]);

impl KernelCounters {
    /// The interfaces of `system`'s ports; none with several port pairs (the step's ports are
    /// then the pairs' totals, which no one interface counts).
    pub(crate) fn new(system: &System) -> KernelCounters {
        if system.pairs().len() > 1 {
            return KernelCounters::default();
        }
        let name =
            |p: &upfbench_config::Port| kernel_interface(p.device.name(), p.devargs.as_deref());
        KernelCounters {
            names: [name(&system.pair(0).n3), name(&system.pair(0).n6)],
        }
    }

    /// The interfaces' counters now (reads the file only when a port has an interface).
    pub(crate) fn read(&self) -> KernelReading {
        if self.names.iter().all(Option::is_none) {
            return KernelReading::default();
        }
        let text = std::fs::read_to_string(NET_DEV).map_err(|e| format!("reading {NET_DEV}: {e}"));
        KernelReading(self.names.each_ref().map(|name| {
            let name = name.as_ref()?;
            Some(
                text.as_ref()
                    .map_err(Clone::clone)
                    .and_then(|t| counters(t, name).map_err(|e| e.to_string())),
            )
        }))
    }

    /// Gives each of `step`'s ports (N3 first, as the run pushes them) what its interface
    /// counted between `before` and `after`, adds the warnings (the tester's losses, or
    /// counters that could not be read) and each direction's share of the tester's loss.
    pub(crate) fn add_to_step(
        &self,
        step: &mut StepReport,
        before: &KernelReading,
        after: &KernelReading,
    ) {
        for (i, port) in step.ports.iter_mut().enumerate().take(2) {
            let (Some(name), Some(b), Some(a)) = (&self.names[i], &before.0[i], &after.0[i]) else {
                continue;
            };
            match (b, a) {
                (Ok(b), Ok(a)) => {
                    let d = a.since(b);
                    let interface = KernelInterface::beside(name, d.rx_packets, d.tx_packets, port);
                    if let Some(w) = interface.warning(port) {
                        step.warnings.push(w);
                    }
                    port.interface = Some(interface);
                }
                (Err(e), _) | (_, Err(e)) => step.warnings.push(format!(
                    "{}: the counters of its interface {name} could not be read ({e}): what the \
                     tester lost between the PMD and the kernel is not known",
                    port.name
                )),
            }
        }
        step.attribute_tester_losses();
    }
}

#[cfg(test)]
mod tests {
    use upfbench_report::PortReport;
    use upfbench_stats::PortName;

    use super::*;

    fn port(name: PortName, ipackets: u64, opackets: u64) -> PortReport {
        PortReport {
            ipackets,
            opackets,
            ..PortReport::zero(name)
        }
    }

    fn step(ports: Vec<PortReport>) -> StepReport {
        let mut s: StepReport = serde_json::from_str(
            r#"{"label": "run", "payload_bytes": null, "duration_s": 1.0, "directions": [],
                "rx_untagged": 0, "rx_unknown_stream": 0, "warnings": []}"#,
        )
        .expect("a step");
        s.ports = ports;
        s
    }

    fn at(rx_packets: u64, tx_packets: u64) -> Option<Result<NetDevCounters, String>> {
        Some(Ok(NetDevCounters {
            rx_packets,
            tx_packets,
            ..NetDevCounters::default()
        }))
    }

    #[test]
    fn a_port_on_an_interface_gets_what_it_counted_over_the_step() {
        let kernel = KernelCounters {
            names: [Some("n3".into()), None],
        };
        let mut s = step(vec![
            port(PortName::N3, 500, 100_000),
            port(PortName::N6, 100_000, 500),
        ]);
        let before = KernelReading([at(1_000, 2_000), None]);
        let after = KernelReading([at(1_500, 101_684), None]);
        kernel.add_to_step(&mut s, &before, &after);
        let i = s.ports[0].interface.as_ref().expect("N3's interface");
        assert_eq!(
            (
                i.name.as_str(),
                i.rx_packets,
                i.tx_packets,
                i.tx_lost,
                i.rx_lost
            ),
            ("n3", 500, 99_684, 316, 0)
        );
        assert_eq!(s.ports[1].interface, None, "N6 has no interface");
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        assert!(s.warnings[0].starts_with("N3: the tester's own loss, not the UPF's: 316 "));
    }

    #[test]
    fn counters_that_could_not_be_read_are_a_warning_not_a_figure() {
        let kernel = KernelCounters {
            names: [Some("n3".into()), Some("n6".into())],
        };
        let mut s = step(vec![port(PortName::N3, 0, 10), port(PortName::N6, 10, 0)]);
        let before = KernelReading([at(0, 0), at(0, 0)]);
        let after = KernelReading([
            Some(Err(
                "interface n3 is not in this network namespace's /proc/net/dev".into(),
            )),
            at(10, 0),
        ]);
        kernel.add_to_step(&mut s, &before, &after);
        assert_eq!(s.ports[0].interface, None);
        assert_eq!(s.ports[1].interface.as_ref().map(|i| i.rx_lost), Some(0));
        assert_eq!(
            s.warnings,
            [
                "N3: the counters of its interface n3 could not be read (interface n3 is not in \
              this network namespace's /proc/net/dev): what the tester lost between the PMD \
              and the kernel is not known"
            ]
        );
    }

    #[test]
    fn only_ports_on_an_interface_are_read() {
        assert_eq!(KernelCounters::default().read().0, [None, None]);
    }
}
