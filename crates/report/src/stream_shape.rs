//! What a stream's packets were: the IP family of the UE's packets and the size of its frames
//! on the wire, with the headers it carried (an IPv6 header is 40 bytes, VLAN tags 4 each).

use serde::{Deserialize, Serialize};

use upfbench_stats::{FCS_BYTES, L1_OVERHEAD_BYTES, MIN_FRAME_BYTES};

/// The IP family of a stream's UE packets (inside the tunnel on N3, plain on N6).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    /// IPv4 (reports written before streams had a family are all IPv4).
    #[default]
    Ipv4,
    /// IPv6.
    Ipv6,
}

impl Family {
    /// `ipv4` or `ipv6`, as the profile writes it.
    pub fn name(self) -> &'static str {
        match self {
            Family::Ipv4 => "ipv4",
            Family::Ipv6 => "ipv6",
        }
    }
}

/// The size of a stream's frames: one size, as every packet of a stream has the same headers
/// and payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FrameSize {
    /// At layer 2: Ethernet header, tags, IP packet(s) and FCS, padded to 64 bytes.
    pub l2_bytes: u32,
    /// At layer 1: `l2_bytes` plus the preamble and the inter-frame gap (20 bytes).
    pub l1_bytes: u32,
}

impl FrameSize {
    /// The size of a frame of `built` bytes as built (without FCS or padding).
    pub fn of_built(built: u32) -> FrameSize {
        let l2 = (u64::from(built) + FCS_BYTES).max(MIN_FRAME_BYTES) as u32;
        FrameSize {
            l2_bytes: l2,
            l1_bytes: l2 + L1_OVERHEAD_BYTES as u32,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_count_the_fcs_the_padding_and_the_preamble() {
        // An IPv6 downlink of 300 B of payload: 14 + 40 + 8 + 300.
        assert_eq!(
            FrameSize::of_built(362),
            FrameSize {
                l2_bytes: 366,
                l1_bytes: 386
            }
        );
        // A short frame is padded to 64 at L2.
        assert_eq!(FrameSize::of_built(52).l2_bytes, 64);
        assert_eq!(FrameSize::of_built(52).l1_bytes, 84);
    }

    #[test]
    fn families_are_written_as_the_profile_writes_them() {
        assert_eq!(serde_json::to_string(&Family::Ipv6).unwrap(), "\"ipv6\"");
        assert_eq!(
            serde_json::from_str::<Family>("\"ipv4\"").unwrap(),
            Family::Ipv4
        );
        assert_eq!(Family::Ipv6.name(), "ipv6");
    }
}
