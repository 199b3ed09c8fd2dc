//! Spreading received GTP-U over a port's receive queues by TEID, with rte_flow rules.
//!
//! A UPF sends every downlink G-PDU from one address and port to one address and port, so a
//! NIC's RSS on the outer IP/UDP header puts all of them on one receive queue. The TEID tells
//! the tunnels (the UEs) apart; a NIC that can hash on it (an RSS action with
//! `RTE_ETH_RSS_GTPU`, Intel's ice for one) spreads them, and one that can match it under a
//! mask (mlx5's GTP-U item) can send each TEID's low bits to a queue of their own. Each TEID
//! stays on one queue either way, so a flow's packets stay on one worker.

use std::ffi::{CStr, c_char};

use crate::error::Error;
use crate::queue::StartedPort;
use crate::sys;

/// Most queue rules [`StartedPort::steer_gtpu_by_teid`] installs for the TEID's low bits.
pub const MAX_TEID_RULES: u16 = 64;

/// How a port spreads the G-PDUs it receives over its receive queues.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TeidSteering {
    /// One RSS rule that hashes on the TEID.
    Hash,
    /// A rule per value of the TEID's low bits, each to one queue
    /// ([`teid_rules`]).
    LowBits {
        /// Rules installed.
        rules: u16,
    },
}

impl std::fmt::Display for TeidSteering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TeidSteering::Hash => f.write_str("GTP-U TEID hash (rte_flow RSS rule)"),
            TeidSteering::LowBits { rules } => write!(
                f,
                "GTP-U TEID low bits (rte_flow: {rules} queue rules on the TEID under a mask)"
            ),
        }
    }
}

/// Why a port steers no G-PDU by TEID: what its driver said to each kind of rule.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{driver} refused both ways to spread GTP-U by TEID: an RSS rule on the TEID ({hash}); \
     queue rules on its low bits ({low_bits})"
)]
pub struct SteeringRefused {
    /// The port's driver.
    pub driver: String,
    /// The driver's reason for refusing the RSS rule.
    pub hash: String,
    /// The driver's reason for refusing the first queue rule.
    pub low_bits: String,
}

/// The queue rules that send the TEIDs to `queues` queues by their low bits above `shift`:
/// `(value, mask, queue)` with `teid & mask == value`. TEIDs given out `2^shift` apart differ
/// first in bit `shift`. The mask covers the smallest power of two at least `queues` (capped at
/// [`MAX_TEID_RULES`]); values beyond the queues wrap round, so with TEIDs in sequence the
/// queues' shares differ by at most a factor of two.
pub fn teid_rules(queues: u16, shift: u32) -> Vec<(u32, u32, u16)> {
    let values = queues.clamp(1, MAX_TEID_RULES).next_power_of_two();
    let shift = shift.min(32 - values.trailing_zeros());
    let mask = (u32::from(values) - 1) << shift;
    (0..values)
        .map(|v| (u32::from(v) << shift, mask, v % queues.max(1)))
        .collect()
}

/// What a shim call returned: 0 or a negative errno, with DPDK's reason.
fn outcome(ret: i32, message: *const c_char) -> Result<(), String> {
    if ret == 0 {
        return Ok(());
    }
    let reason = if message.is_null() {
        String::new()
    } else {
        // SAFETY: DPDK's rte_flow_error messages are static NUL-terminated strings.
        unsafe { CStr::from_ptr(message) }
            .to_string_lossy()
            .into_owned()
    };
    let errno = ret.unsigned_abs() as i32;
    let text = match Error::rte("rte_flow", errno) {
        Error::Rte { message, .. } => message,
        other => other.to_string(),
    };
    Err(if reason.is_empty() {
        format!("{text} (errno {errno})")
    } else {
        format!("{reason}: {text} (errno {errno})")
    })
}

impl StartedPort<'_, '_> {
    /// Installs rte_flow rules that spread received G-PDUs over the port's receive queues by
    /// TEID: one RSS rule hashing on the TEID if the driver takes it, else a queue rule per
    /// value of the TEID's low bits above `shift` ([`teid_rules`]). The rules go when the port
    /// is dropped. Without either the port keeps its RSS on the outer header.
    pub fn steer_gtpu_by_teid(&self, shift: u32) -> Result<TeidSteering, SteeringRefused> {
        let port = self.id();
        let queues: Vec<u16> = (0..self.rx_queue_count()).collect();
        let mut message: *const c_char = std::ptr::null();
        let mut flow: *mut sys::rte_flow = std::ptr::null_mut();
        // SAFETY: the port is started and controlled by this handle alone; the queue array
        // outlives the call, which copies what it keeps; the out pointers are valid.
        let ret = unsafe {
            sys::upfb_flow_gtpu_rss(
                port,
                queues.as_ptr(),
                queues.len() as u16,
                1,
                &mut flow,
                &mut message,
            )
        };
        let hash = match outcome(ret, message) {
            Ok(()) => {
                self.flows_installed.set(true);
                return Ok(TeidSteering::Hash);
            }
            Err(reason) => reason,
        };
        let rules = teid_rules(self.rx_queue_count(), shift);
        for (i, &(value, mask, queue)) in rules.iter().enumerate() {
            // SAFETY: as above; the shim builds the pattern and action on its own stack.
            let ret = unsafe {
                sys::upfb_flow_gtpu_teid_queue(port, value, mask, queue, 1, &mut flow, &mut message)
            };
            if let Err(low_bits) = outcome(ret, message) {
                if i > 0 {
                    self.flush_flows();
                }
                return Err(SteeringRefused {
                    driver: self.info().map(|i| i.driver).unwrap_or_default(),
                    hash,
                    low_bits,
                });
            }
            self.flows_installed.set(true);
        }
        Ok(TeidSteering::LowBits {
            rules: rules.len() as u16,
        })
    }

    /// Removes every rte_flow rule of the port, if it was given any.
    pub(crate) fn flush_flows(&self) {
        if self.flows_installed.replace(false) {
            let mut message: *const c_char = std::ptr::null();
            // SAFETY: the port is valid and controlled by this handle; message is a valid out
            // pointer. A failure leaves rules that the port's stop removes with it.
            let _ = unsafe { sys::upfb_flow_flush(self.id(), &mut message) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_low_bits_cover_every_queue_and_every_teid_once() {
        for queues in 1..=70u16 {
            let rules = teid_rules(queues, 0);
            let mask = rules[0].1;
            assert!(rules.iter().all(|r| r.1 == mask), "one mask for {queues}");
            assert_eq!(rules.len(), mask as usize + 1, "every value of the mask");
            let used = queues.min(MAX_TEID_RULES);
            for q in 0..used {
                assert!(rules.iter().any(|r| r.2 == q), "queue {q} of {queues}");
            }
            assert!(rules.iter().all(|r| r.2 < queues));
            // Every TEID matches exactly one rule.
            for teid in [0u32, 1, 2, 3, 7, 1000, 0xffff_ffff] {
                let hits = rules.iter().filter(|r| teid & r.1 == r.0).count();
                assert_eq!(hits, 1, "TEID {teid} with {queues} queues");
            }
            // With sequential TEIDs no queue takes more than twice another's share.
            let mut share = vec![0u32; queues as usize];
            for teid in 0..(mask + 1) {
                let r = rules.iter().find(|r| teid & r.1 == r.0).unwrap();
                share[r.2 as usize] += 1;
            }
            let used_shares: Vec<u32> = share.into_iter().filter(|&s| s > 0).collect();
            let (lo, hi) = (
                used_shares.iter().min().unwrap(),
                used_shares.iter().max().unwrap(),
            );
            assert!(hi <= &(2 * lo), "{queues} queues: {lo}..{hi}");
        }
    }

    #[test]
    fn a_power_of_two_of_queues_gets_one_rule_each() {
        assert_eq!(teid_rules(1, 0), vec![(0, 0, 0)]);
        assert_eq!(teid_rules(2, 0), vec![(0, 1, 0), (1, 1, 1)]);
        assert_eq!(
            teid_rules(4, 0).iter().map(|r| r.2).collect::<Vec<_>>(),
            vec![0, 1, 2, 3]
        );
        assert_eq!(
            teid_rules(3, 0).iter().map(|r| r.2).collect::<Vec<_>>(),
            vec![0, 1, 2, 0]
        );
    }

    #[test]
    fn teids_given_out_apart_are_told_apart_above_their_step() {
        // A step of 4: TEIDs 0, 4, 8, 12 differ in bits 2 and up.
        let rules = teid_rules(2, 2);
        assert_eq!(rules, vec![(0, 4, 0), (4, 4, 1)]);
        let queue = |teid: u32| rules.iter().find(|r| teid & r.1 == r.0).unwrap().2;
        assert_eq!([0, 4, 8, 12].map(queue), [0, 1, 0, 1]);
        // The mask never leaves the 32 bits.
        let top = teid_rules(4, 40);
        assert_eq!(top[3], (3 << 30, 3 << 30, 3));
    }
}
