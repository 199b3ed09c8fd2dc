//! Volume Threshold (§8.2.13), Volume Quota (§8.2.50), Subsequent Volume Threshold/Quota
//! (§8.2.16, §8.2.84) and Volume Measurement (§8.2.44).

use super::{IeType, IeValue, IeView, TypedIe};
use crate::error::{EmitError, Result};
use crate::wire::{Writer, bit_if, opt_len};

const TOVOL: u8 = 0x01;
const ULVOL: u8 = 0x02;
const DLVOL: u8 = 0x04;
const TONOP: u8 = 0x08;
const ULNOP: u8 = 0x10;
const DLNOP: u8 = 0x20;

/// The codec of an IE that is a flag octet and the 8-octet counters it flags, in the order
/// listed (the order of the fields in the struct literal is the order they are read).
macro_rules! counters_ie {
    ($ty:ident { $($field:ident = $flag:ident),* $(,)? }) => {
        impl IeValue for $ty {
            fn decode(ie: &IeView<'_>) -> Result<Self> {
                let mut r = ie.reader();
                let f = r.u8()?;
                Ok($ty { $($field: r.field_if(f & $flag != 0)?),* })
            }
            fn value_len(&self) -> usize {
                1 $(+ opt_len(self.$field))*
            }
            fn encode_value(&self, w: &mut Writer<'_>) -> core::result::Result<(), EmitError> {
                w.u8(0 $(| bit_if(self.$field.is_some(), $flag))*)?;
                $(w.field_opt(self.$field)?;)*
                Ok(())
            }
        }
    };
}

/// Octet counts: the value of Volume Threshold, Volume Quota and their Subsequent variants.
///
/// Layout: octet 5 spare(5) DLVOL ULVOL TOVOL, then Total, Uplink, Downlink Volume (8 octets each)
/// as flagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Volume {
    /// Total octets (TOVOL).
    pub total: Option<u64>,
    /// Uplink octets (ULVOL).
    pub uplink: Option<u64>,
    /// Downlink octets (DLVOL).
    pub downlink: Option<u64>,
}

counters_ie!(Volume {
    total = TOVOL,
    uplink = ULVOL,
    downlink = DLVOL,
});

impl TypedIe for Volume {
    const TYPE: IeType = IeType::VOLUME_THRESHOLD;
}

/// Volume Measurement (TS 29.244 §8.2.44): octets and packets counted by a URR.
///
/// Layout: octet 5 spare(2) DLNOP ULNOP TONOP DLVOL ULVOL TOVOL, then the flagged 8-octet
/// counters in that order (volumes, then numbers of packets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VolumeMeasurement {
    /// Total octets.
    pub total: Option<u64>,
    /// Uplink octets.
    pub uplink: Option<u64>,
    /// Downlink octets.
    pub downlink: Option<u64>,
    /// Total packets.
    pub total_packets: Option<u64>,
    /// Uplink packets.
    pub uplink_packets: Option<u64>,
    /// Downlink packets.
    pub downlink_packets: Option<u64>,
}

counters_ie!(VolumeMeasurement {
    total = TOVOL,
    uplink = ULVOL,
    downlink = DLVOL,
    total_packets = TONOP,
    uplink_packets = ULNOP,
    downlink_packets = DLNOP,
});

impl TypedIe for VolumeMeasurement {
    const TYPE: IeType = IeType::VOLUME_MEASUREMENT;
}
