//! The tester's two ports, by their role: what every report, line and table names them.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One of the tester's ports, by its role towards the UPF.
///
/// Written `N3` and `N6` in reports (JSON keys and values, CSV, tables), as 3GPP names the
/// interfaces. Also the index into per-port arrays ([`PortName::index`]): N3 is 0, N6 is 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[repr(u8)]
pub enum PortName {
    /// The gNB side: GTP-U (uplink sent, downlink received).
    N3 = 0,
    /// The data network side: plain IP (downlink sent, uplink received).
    N6 = 1,
}

impl PortName {
    /// Both, N3 first: the order of every per-port list in a report.
    pub const BOTH: [PortName; 2] = [PortName::N3, PortName::N6];

    /// Index into per-port arrays (N3 0, N6 1).
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// `N3` or `N6`.
    pub const fn name(self) -> &'static str {
        match self {
            PortName::N3 => "N3",
            PortName::N6 => "N6",
        }
    }

    /// The port of `name`, `N3` or `N6` (either case).
    pub fn from_name(name: &str) -> Option<PortName> {
        match name {
            "N3" | "n3" => Some(PortName::N3),
            "N6" | "n6" => Some(PortName::N6),
            _ => None,
        }
    }
}

impl fmt::Display for PortName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_are_the_3gpp_ones_and_index_follows_both() {
        assert_eq!(serde_json::to_string(&PortName::N3).unwrap(), "\"N3\"");
        let p: PortName = serde_json::from_str("\"N6\"").unwrap();
        assert_eq!(p, PortName::N6);
        for (i, p) in PortName::BOTH.iter().enumerate() {
            assert_eq!(p.index(), i);
            assert_eq!(PortName::from_name(p.name()), Some(*p));
            assert_eq!(p.to_string(), p.name());
        }
        assert_eq!(PortName::from_name("n6"), Some(PortName::N6));
        assert_eq!(PortName::from_name("N4"), None);
    }
}
