//! The two directions of user-plane traffic through a UPF.

use serde::{Deserialize, Serialize};

use crate::port::PortName;

/// Direction of a measured stream, as seen from the UE.
///
/// Uplink is sent on N3 as GTP-U and received decapsulated on N6; downlink is sent on N6 as plain
/// IP and received encapsulated on N3 (TS 23.501 §5.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// UE to data network (N3 → N6).
    Uplink = 0,
    /// Data network to UE (N6 → N3).
    Downlink = 1,
}

impl Direction {
    /// Both directions, in report order.
    pub const ALL: [Direction; 2] = [Direction::Uplink, Direction::Downlink];

    /// Dense index (0 or 1) for per-direction arrays.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Short label used by the table and the live line.
    pub const fn short(self) -> &'static str {
        match self {
            Direction::Uplink => "UL",
            Direction::Downlink => "DL",
        }
    }

    /// The tester's port the direction is sent on: N3 for uplink (G-PDUs), N6 for downlink.
    pub const fn sent_on(self) -> PortName {
        match self {
            Direction::Uplink => PortName::N3,
            Direction::Downlink => PortName::N6,
        }
    }

    /// The tester's port the direction comes back on: the other one.
    pub const fn received_on(self) -> PortName {
        match self {
            Direction::Uplink => PortName::N6,
            Direction::Downlink => PortName::N3,
        }
    }

    /// Lower-case name used in JSON and CSV.
    pub const fn name(self) -> &'static str {
        match self {
            Direction::Uplink => "uplink",
            Direction::Downlink => "downlink",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_matches_all_order() {
        for (i, d) in Direction::ALL.iter().enumerate() {
            assert_eq!(d.index(), i);
        }
    }

    #[test]
    fn serde_names_are_lowercase() {
        assert_eq!(
            serde_json::to_string(&Direction::Uplink).unwrap(),
            "\"uplink\""
        );
        let d: Direction = serde_json::from_str("\"downlink\"").unwrap();
        assert_eq!(d, Direction::Downlink);
        assert_eq!(Direction::Downlink.name(), "downlink");
        assert_eq!(Direction::Uplink.short(), "UL");
        assert_eq!(
            (Direction::Uplink.sent_on(), Direction::Uplink.received_on()),
            (PortName::N3, PortName::N6)
        );
        assert_eq!(
            (
                Direction::Downlink.sent_on(),
                Direction::Downlink.received_on()
            ),
            (PortName::N6, PortName::N3)
        );
    }
}
