//! How a port's received frames are spread over its queues, one per worker: set up once the
//! port has started, and said in the report.
//!
//! A port without RSS (memif, af_packet, virtio-user, vhost) hands its queue `i` what its peer
//! sent on queue `i`, so each worker's flows come back to it. A NIC with several queues hashes
//! the headers instead: on N6 the plain packets' addresses differ by UE and spread, but on N3
//! every G-PDU from the UPF has the same outer addresses and ports, and RSS on them puts them
//! all on one queue. There the TEID (one per UE) is what can spread them: an rte_flow rule that
//! hashes on it, or rules on its low bits (see `upfbench_dpdk::StartedPort::steer_gtpu_by_teid`).

use upfbench_dpdk::{SteeringRefused, TeidSteering};

use super::queues::Side;

/// How a port spreads what it receives, and what the user should know of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RxSpread {
    /// For the report's configuration: `2 queues: GTP-U TEID hash (rte_flow RSS rule)`.
    pub description: String,
    /// A warning when the frames will most likely land on one queue.
    pub warning: Option<String>,
}

/// What a port that started with `queues` receive queues, hashing them (`rss`) or not, does
/// with its frames; `steer` installs the TEID rules on N3 (called only there and only when
/// the port hashes on several queues).
pub fn rx_spread(
    side: Side,
    queues: u16,
    rss: bool,
    steer: impl FnOnce() -> Result<TeidSteering, SteeringRefused>,
) -> RxSpread {
    let plain = |how: &str| RxSpread {
        description: format!("{queues} queues: {how}"),
        warning: None,
    };
    if queues <= 1 {
        return RxSpread {
            description: "1 queue".to_owned(),
            warning: None,
        };
    }
    if !rss {
        return plain("queue i is its peer's queue i (no RSS)");
    }
    if side == Side::N6 {
        return plain("RSS on the IP/UDP header (the UEs' addresses)");
    }
    match steer() {
        Ok(steering) => plain(&steering.to_string()),
        Err(refused) => RxSpread {
            description: format!("{queues} queues: RSS on the outer IP/UDP header"),
            warning: Some(format!(
                "N3: {refused}. The UPF sends every G-PDU from one address and port, so RSS \
                 on the outer header puts them all on one of the {queues} queues: one worker \
                 receives the whole downlink (see the receive-queue table)"
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused() -> Result<TeidSteering, SteeringRefused> {
        Err(SteeringRefused {
            driver: "net_null".into(),
            hash: "Function not implemented (errno 38)".into(),
            low_bits: "Function not implemented (errno 38)".into(),
        })
    }

    fn never() -> Result<TeidSteering, SteeringRefused> {
        panic!("no rule is asked for here")
    }

    #[test]
    fn one_queue_or_queue_pairs_need_no_rule() {
        assert_eq!(rx_spread(Side::N3, 1, true, never).description, "1 queue");
        let pairs = rx_spread(Side::N3, 2, false, never);
        assert_eq!(
            pairs.description,
            "2 queues: queue i is its peer's queue i (no RSS)"
        );
        assert_eq!(pairs.warning, None);
        let n6 = rx_spread(Side::N6, 4, true, never);
        assert!(n6.description.contains("RSS on the IP/UDP header"));
        assert_eq!(n6.warning, None);
    }

    #[test]
    fn n3_with_rss_takes_a_teid_rule_or_warns() {
        let hash = rx_spread(Side::N3, 2, true, || Ok(TeidSteering::Hash));
        assert_eq!(
            hash.description,
            "2 queues: GTP-U TEID hash (rte_flow RSS rule)"
        );
        assert_eq!(hash.warning, None);
        let bits = rx_spread(Side::N3, 4, true, || Ok(TeidSteering::LowBits { rules: 4 }));
        assert!(bits.description.contains("4 queue rules"), "{bits:?}");
        let outer = rx_spread(Side::N3, 2, true, refused);
        assert_eq!(
            outer.description,
            "2 queues: RSS on the outer IP/UDP header"
        );
        let warning = outer.warning.expect("warned");
        assert!(
            warning.starts_with("N3: net_null refused both ways to spread GTP-U by TEID")
                && warning.contains("one worker receives the whole downlink"),
            "{warning}"
        );
    }
}
