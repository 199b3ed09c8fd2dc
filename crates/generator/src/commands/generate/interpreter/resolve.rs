//! The UPF's MACs on every pair's ports, resolved from the workers' idle queues before the
//! first step (those the system file does not give).

use std::time::Instant;

use upfbench_cli::out;
use upfbench_datapath::port_setup::{WaitError, resolve};
use upfbench_datapath::queues::{PortQueues, Side};
use upfbench_run::lifecycle::Event;

use super::super::resolution;
use super::Interpreter;
use crate::report::RunEvent;

impl<'p> Interpreter<'_, '_, 'p> {
    /// Resolves the UPF's MACs on every pair's ports (those not given in the system file),
    /// pair after pair, until interrupted.
    pub(super) fn resolve(&mut self) {
        let mut event = Event::Resolved;
        for k in 0..self.bed.pairs.len() {
            event = self.resolve_pair(k);
            if !matches!(event, Event::Resolved) {
                break;
            }
        }
        self.machine.handle(Instant::now(), event);
    }

    /// Resolves the UPF's MACs on pair `k`'s ports, from its workers' queues.
    fn resolve_pair(&mut self, k: usize) -> Event {
        let bed = self.bed;
        let pair = &bed.pairs[k];
        let system = bed.setup.system;
        let seen = self.seen_interrupts;
        let interrupted = || bed.interrupts.count() > seen;
        let first = self.idle.first.get(k).copied().unwrap_or(0);
        let end = self
            .idle
            .first
            .get(k + 1)
            .copied()
            .unwrap_or(self.idle.queues.len());
        let mut held: Vec<[PortQueues<'p>; 2]> = self.idle.queues[first..end]
            .iter_mut()
            .filter_map(Option::take)
            .collect();
        let mut service = resolution::resolving_service(bed, pair);
        let targets = Side::BOTH.map(|s| (s, pair.peers[s.index()]));
        let several = bed.pairs.len() > 1;
        resolution::announce_resolution(system, pair.config, several.then_some(pair.name));
        let result = resolve(
            &mut held,
            &mut service,
            &targets,
            system.arp.timeout,
            system.arp.retries + 1,
            &interrupted,
        );
        for (slot, q) in self.idle.queues[first..end].iter_mut().zip(held) {
            *slot = Some(q);
        }
        let named = |side: Side| match several {
            true => format!("{} {}", pair.name, side.name()),
            false => side.name().to_owned(),
        };
        let now = Instant::now();
        match result {
            Ok(macs) => {
                for ((side, ip), mac) in targets.iter().zip(macs) {
                    self.next_hop[k][side.index()] = mac;
                    out::line(&format!("{}: {ip} is at {mac}", named(*side)));
                    self.note(
                        now,
                        RunEvent::Arp {
                            port: *side,
                            ip: ip.to_string(),
                            mac: Some(mac.to_string()),
                            detail: None,
                        },
                    );
                }
                Event::Resolved
            }
            Err(WaitError::Interrupted) => {
                self.seen_interrupts = bed.interrupts.count();
                self.note(now, RunEvent::Interrupt {});
                Event::Interrupt
            }
            Err(e) => {
                for (side, ip) in targets {
                    self.note(
                        now,
                        RunEvent::Arp {
                            port: side,
                            ip: ip.to_string(),
                            mac: None,
                            detail: Some(e.to_string()),
                        },
                    );
                }
                Event::Failed(match several {
                    true => format!("pair {}: {e}", pair.name),
                    false => e.to_string(),
                })
            }
        }
    }
}
